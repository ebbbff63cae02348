import { Router } from 'express';
import type { AgentAccount, GetAgentAccount } from '../../../application/booking/get-agent-account.js';
import type { AgentPrincipal } from '../../../domain/identity/principal.js';
import { agentOf } from '../request-context.js';

/** One key's account as last answered: what it was built from, and its JSON. */
interface Answered {
  readonly from: AgentPrincipal;
  readonly body: string;
}

/**
 * Whether `a` and `b` give the same account: the same scalars, and the same channel and
 * entitlement objects (the resolved key's, replaced whenever the key, agent or channel changes).
 */
const sameAccount = (a: AgentPrincipal, b: AgentPrincipal): boolean =>
  a.agentId === b.agentId &&
  a.agentName === b.agentName &&
  a.discountBps === b.discountBps &&
  a.channel === b.channel &&
  a.entitlements === b.entitlements &&
  a.key.id === b.key.id &&
  a.key.prefix === b.key.prefix &&
  a.key.createdAt === b.key.createdAt &&
  a.key.expiresAt === b.key.expiresAt;

/** Keys whose account JSON is kept; past this the oldest is dropped. */
const KEPT_ACCOUNTS = 1000;

/**
 * `GET /agent/account`: the calling agent, from its key. The answer of a key is serialised once
 * and sent again while nothing it is built from has changed (checked on every request).
 */
export function accountRoutes(deps: { getAgentAccount: GetAgentAccount }): Router {
  const router = Router();
  const answered = new Map<string, Answered>();
  const bodyOf = (principal: AgentPrincipal): string => {
    const last = answered.get(principal.keyId);
    if (last !== undefined && sameAccount(last.from, principal)) return last.body;
    const account: AgentAccount = deps.getAgentAccount.execute(principal);
    const body = JSON.stringify(account);
    answered.delete(principal.keyId);
    answered.set(principal.keyId, { from: principal, body });
    if (answered.size > KEPT_ACCOUNTS) answered.delete(answered.keys().next().value!);
    return body;
  };
  router.get('/agent/account', (_req, res) => {
    const body = bodyOf(agentOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  });
  return router;
}
