import type { Operator } from '../../domain/catalogue/operator.js';
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AgentPrincipal, WalletPrincipal } from '../../domain/identity/principal.js';
import type { WalletUser } from '../../domain/identity/tenant.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { looksLikeSecret, redactSecrets } from '../../domain/shared/redaction.js';

declare module 'express-serve-static-core' {
  interface Locals {
    requestId: string;
    agent?: AgentPrincipal;
    /** The operator of an operator key (operator routes). */
    operator?: Operator;
    wallet?: WalletPrincipal;
    /** The wallet user of a user token, as the bearer check read it during this request. */
    walletUser?: WalletUser | null;
    /** The verified bearer token of a wallet request (its jti, iat and exp). */
    walletToken?: VerifiedToken;
    /** Whether the wallet caller's tenant is live (false for a sandbox tenant). */
    walletLivemode?: boolean;
    /** When the request began (performance.now()) and its path, for the access log line. */
    accessLogStart?: number;
    accessLogPath?: string;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Random bytes for request ids, drawn from the CSPRNG 256 ids at a time: one call into it per
// request cost more than the rest of the id.
const ID_BYTES = 12;
let idPool = Buffer.alloc(0);
let idOffset = 0;
/** A new request id, `req_` and 16 random base64url characters. */
export const newRequestId = (): string => {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idOffset = 0;
  }
  const id = `req_${idPool.toString('base64url', idOffset, idOffset + ID_BYTES)}`;
  idOffset += ID_BYTES;
  return id;
};

/**
 * The request's id: the caller's `X-Request-Id` when it is sane and has not the form of a secret
 * (a key or token sent there by mistake would otherwise be echoed, logged, traced and kept in
 * the security trail), else a new one.
 */
export const requestIdOf = (given: string | string[] | undefined): string =>
  typeof given === 'string' && SANE_REQUEST_ID.test(given) && !looksLikeSecret(given) ? given : newRequestId();

/** Keeps the caller's `X-Request-Id` when it is sane, else makes one; echoes it on every response. */
export const requestId: RequestHandler = (req, res, next) => {
  const id = requestIdOf(req.headers['x-request-id']);
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};

/**
 * What every request runs first, in one middleware: the request id (`requestId`) and one
 * structured access-log line per request: id, method, path (no query string), status, latency
 * and the calling principal. Headers are never logged, so keys and tokens cannot leak through here.
 * `observers` are told of every finished response by the same listener (the request metrics).
 */
export const requestContext = (log: Logger, observers: ReadonlyArray<(res: Response) => void> = []): RequestHandler => {
  const logLine = accessLogLine(log, observers);
  return (req, res, next) => {
    const id = requestIdOf(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    startAccessLog(req, res);
    res.on('finish', logLine);
    next();
  };
};

const startAccessLog = (req: Request, res: Response): void => {
  res.locals.accessLogStart = performance.now();
  const url = req.originalUrl;
  const q = url.indexOf('?');
  // A key pasted into the path is no more kept than one in the query.
  res.locals.accessLogPath = redactSecrets(q < 0 ? url : url.slice(0, q));
};

/**
 * The 'finish' listener writing a request's line. One function shared by every response, reading
 * what the request left on it, rather than a closure per request: this runs on every request.
 */
function accessLogLine(log: Logger, observers: ReadonlyArray<(res: Response) => void>): (this: Response) => void {
  // The line is built below from fixed fields, none of them secret (no header, no query string,
  // no body), so the logger's redaction pass, which would double its cost, is skipped for it.
  const lines = log.child({}, { redact: [] });
  return function logLine(this: Response): void {
    const { agent, wallet, requestId: id, accessLogStart: started, accessLogPath: path } = this.locals;
    const line: Record<string, unknown> = {
      requestId: id,
      method: this.req.method,
      path,
      status: this.statusCode,
      ms: Math.round((performance.now() - (started ?? 0)) * 100) / 100,
    };
    if (agent) {
      line.agentId = agent.agentId;
      line.keyId = agent.keyId;
    }
    if (wallet) {
      line.tenantId = wallet.tenantId;
      line.principal = wallet.kind;
    }
    lines.info(line, 'request');
    for (const observe of observers) observe(this);
  };
}

/** The agent a booking route acts for; the API-key middleware has put it there. */
/** The operator the operator-key check resolved (operator routes only). */
export const operatorOf = (locals: { operator?: Operator }): Operator => {
  if (locals.operator === undefined) throw new Error('operator route reached without operator-key authentication');
  return locals.operator;
};

export const agentOf = (locals: { agent?: AgentPrincipal }): AgentPrincipal => {
  if (locals.agent === undefined) throw new Error('booking route reached without API-key authentication');
  return locals.agent;
};
