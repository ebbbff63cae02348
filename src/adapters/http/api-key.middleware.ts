import type { RequestHandler } from 'express';
import type { AuthenticateAgent } from '../../application/identity/authenticate-agent.js';

/** The header that carries the agent's key; the only source of booking identity. */
export const API_KEY_HEADER = 'x-api-key';

/**
 * Authenticates every booking request from `X-API-KEY` before routing. Nothing else (query,
 * body, other headers, environment) can supply or default an identity.
 */
export const requireApiKey = (authenticate: AuthenticateAgent): RequestHandler => async (req, res, next) => {
  const header = req.headers[API_KEY_HEADER];
  // A repeated header arrives joined by ", " and so fails the key's shape check.
  res.locals.agent = await authenticate.execute(typeof header === 'string' ? header : undefined);
  next();
};
