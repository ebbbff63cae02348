import type { Response } from 'express';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { idempotencyScope } from '../../domain/shared/idempotency.js';
import type { ScopeOf } from './idempotency.middleware.js';
import { agentOf } from './request-context.js';

/** Booking writes: an agent's keys, whichever of its API keys sends them. */
export const agentScopeOf: ScopeOf = (res: Response) => idempotencyScope(agentOf(res.locals));

/**
 * Writes that mint a key (a roll, a create): the calling API key's own keys. Another key of the
 * same agent sending the same Idempotency-Key makes its own request, never a replay of this key's.
 */
export const callingKeyScopeOf: ScopeOf = (res: Response) => {
  const agent = agentOf(res.locals);
  return idempotencyScope({ kind: 'agent-key', agentId: agent.agentId, keyId: agent.keyId });
};

/** Wallet writes: the keys of the tenant's backend (per client) or of one wallet user. */
export const walletScopeOf: ScopeOf = (res: Response) => idempotencyScope(res.locals.wallet as WalletPrincipal);
