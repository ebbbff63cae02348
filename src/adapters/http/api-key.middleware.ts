import type { RequestHandler } from 'express';
import type { AuthenticateAgent } from '../../application/identity/authenticate-agent.js';
import type { AuthFailureLimit } from './rate-limits.js';

/** The header that carries the agent's key; the only source of booking identity. */
export const API_KEY_HEADER = 'x-api-key';

/**
 * Authenticates every booking request from `X-API-KEY` before routing. Nothing else (query,
 * body, other headers, environment) can supply or default an identity. An address that failed
 * too often is refused before its key is looked up (`failures`).
 */
export const requireApiKey =
  (authenticate: AuthenticateAgent, failures?: AuthFailureLimit): RequestHandler =>
  async (req, res, next) => {
    const header = req.headers[API_KEY_HEADER];
    // A repeated header arrives joined by ", " and so fails the key's shape check.
    const presented = typeof header === 'string' ? header : undefined;
    res.locals.agent =
      failures === undefined ? await authenticate.execute(presented) : await failures.guard(req, () => authenticate.execute(presented));
    next();
  };
