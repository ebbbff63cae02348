import express, { type RequestHandler } from 'express';
import { checkJsonBody } from './json-guard.js';
import { HttpProblem } from './problem.js';

/** The largest JSON body accepted. */
export const JSON_BODY_LIMIT = '64kb';

const hasBody = (headers: { 'content-length'?: string | undefined; 'transfer-encoding'?: string | undefined }): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const parseJson = express.json({ limit: JSON_BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] });

/**
 * For routes that take JSON: a body of another media type is 415, a malformed one 400, an
 * oversized one 413 (the error handler maps the parser's errors), one nested too deeply or
 * holding a NUL character 400 `invalid-request`, before any later step walks it. A request with
 * no body gets an empty object, which the route's schema then judges.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    next();
    return;
  }
  if (req.is(['application/json', 'application/*+json']) === false) {
    next(new HttpProblem(415, 'unsupported-media-type', 'The request body must be application/json.'));
    return;
  }
  parseJson(req, res, (err?: unknown) => {
    if (err !== undefined) {
      next(err);
      return;
    }
    try {
      checkJsonBody(req.body);
    } catch (problem) {
      next(problem);
      return;
    }
    next();
  });
};

/** The largest form body accepted (the OAuth token endpoint). */
export const FORM_BODY_LIMIT = '16 KiB';

const parseForm = express.urlencoded({ limit: '16kb', extended: false, parameterLimit: 50 });

/** For routes that take `application/x-www-form-urlencoded` (the OAuth token endpoint). */
export const formBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    next();
    return;
  }
  if (req.is('application/x-www-form-urlencoded') === false) {
    next(new HttpProblem(415, 'unsupported-media-type', 'The request body must be application/x-www-form-urlencoded.'));
    return;
  }
  parseForm(req, res, next);
};
