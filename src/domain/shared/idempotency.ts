import { DomainError } from './errors.js';

/** The `Idempotency-Key` header's shape: 1..255 visible ASCII characters. */
export const isValidIdempotencyKey = (key: string): boolean => /^[\x21-\x7e]{1,255}$/.test(key);

export const keyReused = (): DomainError => new DomainError('idempotency-key-reused');

export const keyInUse = (): DomainError => new DomainError('idempotency-key-in-use');

/** Who an idempotency key belongs to: the same key from two owners names two different requests. */
export type IdempotencyOwner =
  | { readonly kind: 'agent'; readonly agentId: string }
  | { readonly kind: 'agent-key'; readonly agentId: string; readonly keyId: string }
  | { readonly kind: 'machine'; readonly tenantId: string; readonly clientId: string }
  | { readonly kind: 'user'; readonly tenantId: string; readonly userId: string };

/**
 * The one rule for the scope an owner's idempotency keys are stored under: an agent; one API key
 * of an agent (for the writes that mint keys: a key acts only on itself, replays included); a
 * tenant's backend per OAuth client; one wallet user. `service` gives the whole scope (as the request
 * store keeps it); `tenant` gives the part within the owner's tenant, for a store that keeps the
 * tenant in a column of its own (the ledger).
 *
 * These strings are persisted (`idempotency_keys.scope`; `ledger_transactions.idempotency_scope`
 * on transactions recorded before migration 0017) and matched on every retry: changing their
 * format would let a retry of a stored write run again.
 */
export const idempotencyScope = (owner: IdempotencyOwner, within: 'service' | 'tenant' = 'service'): string => {
  if (owner.kind === 'agent') return `agent:${owner.agentId}`;
  if (owner.kind === 'agent-key') return `agent:${owner.agentId}:key:${owner.keyId}`;
  const local = owner.kind === 'machine' ? `machine:${owner.clientId}` : `user:${owner.userId}`;
  return within === 'tenant' ? local : `wallet:${owner.tenantId}:${local}`;
};
