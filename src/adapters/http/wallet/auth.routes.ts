import { Router, type RequestHandler } from 'express';
import type { IssueDelegatedToken } from '../../../application/wallet/issue-delegated-token.js';
import type { LogIn } from '../../../application/wallet/log-in.js';
import type { LogOut } from '../../../application/wallet/log-out.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { machineOf, tokenOf } from '../bearer.middleware.js';
import { jsonBody } from '../body.js';
import { clientAddress } from '../client-address.js';
import { parseBody } from '../validate.js';
import { delegatedTokenRequestSchema, loginRequestSchema } from './auth.schemas.js';

type Auth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

/**
 * `POST /auth/delegated-token` (machine token), `POST /auth/login` (no token) and
 * `POST /auth/logout` (user token).
 */
export function authRoutes(deps: {
  auth: Auth;
  issueDelegatedToken: IssueDelegatedToken;
  logIn: LogIn;
  logOut: LogOut;
  limits: { readonly delegated: RequestHandler; readonly login: RequestHandler };
}): Router {
  const router = Router();
  router.post('/auth/delegated-token', deps.auth('machine'), deps.limits.delegated, jsonBody, async (req, res) => {
    const { externalUserRef } = parseBody(delegatedTokenRequestSchema, req);
    const token = await deps.issueDelegatedToken.execute(machineOf(res.locals), externalUserRef);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.status(200).json({
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
  });
  router.post('/auth/login', deps.limits.login, jsonBody, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const input = parseBody(loginRequestSchema, req);
    try {
      const token = await deps.logIn.execute({ ...input, address: clientAddress(req) });
      res.status(200).json({ access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn });
    } catch (err) {
      if (err instanceof DomainError && err.reason === 'too-many-attempts') {
        res.setHeader('Retry-After', String(err.details?.retryAfterSeconds ?? 60));
      }
      throw err;
    }
  });
  // A wallet app's sign-out: the token that made the call is revoked, on every instance.
  router.post('/auth/logout', deps.auth('user'), async (_req, res) => {
    await deps.logOut.execute(tokenOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });
  return router;
}
