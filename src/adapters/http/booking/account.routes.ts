import { Router } from 'express';
import type { GetAgentAccount } from '../../../application/booking/get-agent-account.js';
import { agentOf } from '../request-context.js';

/** `GET /agent/account`: the calling agent, from its key. */
export function accountRoutes(deps: { getAgentAccount: GetAgentAccount }): Router {
  const router = Router();
  router.get('/agent/account', (_req, res) => {
    const account = deps.getAgentAccount.execute(agentOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.json(account);
  });
  return router;
}
