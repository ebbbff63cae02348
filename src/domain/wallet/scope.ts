import type { WalletPrincipal } from '../identity/principal.js';

/**
 * Which transactions a caller may read. A machine token reads its whole tenant, optionally
 * narrowed to one user's activity; a user token reads exactly the person's own activity (as the
 * user or the counterparty of a transaction), and nothing the caller sends can change that.
 */
export type TransactionScope =
  | { readonly kind: 'tenant'; readonly tenantId: string; readonly userId: string | null }
  | { readonly kind: 'person'; readonly tenantId: string; readonly userId: string };

/**
 * Builds the read scope from the principal. `requestedUserId` (a query parameter) narrows a
 * machine token's reads; for a user token it is ignored: the person always sees their own.
 */
export const transactionScope = (principal: WalletPrincipal, requestedUserId: string | null = null): TransactionScope =>
  principal.kind === 'machine'
    ? { kind: 'tenant', tenantId: principal.tenantId, userId: requestedUserId }
    : { kind: 'person', tenantId: principal.tenantId, userId: principal.userId };

/** The user whose activity the scope is limited to, or null for the whole tenant. */
export const partyOf = (scope: TransactionScope): string | null => scope.userId;

/** Whether a transaction falls within the scope (the rule every adapter's query implements). */
export const inScope = (
  scope: TransactionScope,
  t: { readonly tenantId: string; readonly userId: string; readonly counterpartyUserId: string | null },
): boolean => {
  if (t.tenantId !== scope.tenantId) return false;
  const party = partyOf(scope);
  return party === null || t.userId === party || t.counterpartyUserId === party;
};
