import type { Request, RequestHandler } from 'express';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { AuthenticateAgent } from '../../application/identity/authenticate-agent.js';
import type { AuthFailureLimit } from './rate-limits.js';
import type { AuthenticateOperator } from '../../application/operator/authenticate-operator.js';
import type { Operator } from '../../domain/catalogue/operator.js';

/** The header that carries the agent's key; the only source of booking identity. */
export const API_KEY_HEADER = 'x-api-key';

/**
 * Authenticates every booking request from `X-API-KEY` before routing. Nothing else (query,
 * body, other headers, environment) can supply or default an identity. An address that failed
 * too often is refused before its key is looked up (`failures`).
 */
export const requireApiKey = (authenticate: AuthenticateAgent, failures?: AuthFailureLimit): RequestHandler => {
  // The request goes on when the key is resolved: one promise settles, with no async frame around it.
  const resolve = (req: Request, presented: string | undefined): Promise<AgentPrincipal> =>
    failures === undefined ? authenticate.execute(presented) : failures.guard(req, () => authenticate.execute(presented));
  return (req, res, next) => {
    const header = req.headers[API_KEY_HEADER];
    // A repeated header arrives joined by ", " and so fails the key's shape check.
    const presented = typeof header === 'string' ? header : undefined;
    return resolve(req, presented).then((agent) => {
      res.locals.agent = agent;
      next();
    });
  };
};

/**
 * Authenticates every operator request from `X-API-KEY` (an operator key, `pbo_…`) before
 * routing; an agent key is `invalid-api-key` here, as an operator key is on the booking surface.
 */
export const requireOperatorKey = (authenticate: AuthenticateOperator, failures?: AuthFailureLimit): RequestHandler => {
  const resolve = (req: Request, presented: string | undefined): Promise<Operator> =>
    failures === undefined ? authenticate.execute(presented) : failures.guard(req, () => authenticate.execute(presented));
  return (req, res, next) => {
    const header = req.headers[API_KEY_HEADER];
    const presented = typeof header === 'string' ? header : undefined;
    return resolve(req, presented).then((operator) => {
      res.locals.operator = operator;
      next();
    });
  };
};
