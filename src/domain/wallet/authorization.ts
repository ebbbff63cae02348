import { DomainError } from '../shared/errors.js';
import type { PendingTransfer } from './pending-transfer.js';
import { AUTHORIZATION_OWNER } from './pending-transfer.js';
import type { TransactionScope } from './scope.js';

/** How long an authorization holds money when the caller does not say: seven days. */
export const AUTHORIZATION_DEFAULT_SECONDS = 7 * 24 * 3600;
/** The longest an authorization may hold money: thirty days. */
export const AUTHORIZATION_MAX_SECONDS = 30 * 24 * 3600;

/**
 * When an authorization made at `at` lapses: `seconds` after it (the default when absent), a
 * whole number from 1 to AUTHORIZATION_MAX_SECONDS; `invalid-request` otherwise.
 */
export const authorizationExpiry = (at: Date, seconds: number | undefined): Date => {
  const s = seconds ?? AUTHORIZATION_DEFAULT_SECONDS;
  if (!Number.isInteger(s) || s < 1 || s > AUTHORIZATION_MAX_SECONDS) {
    throw new DomainError('invalid-request', {
      message: `expiresInSeconds must be a whole number from 1 to ${AUTHORIZATION_MAX_SECONDS}.`,
      details: { errors: [{ path: 'expiresInSeconds', message: `must be an integer from 1 to ${AUTHORIZATION_MAX_SECONDS}` }] },
    });
  }
  return new Date(at.getTime() + s * 1000);
};

/**
 * Whether a pending transfer is an authorization the scope may see: one of the scope's tenant's
 * wallet authorizations and, for a person, one held on their own account. Outside it, callers
 * get `authorization-not-found`, the same answer as for an unknown id.
 */
export const authorizationInScope = (scope: TransactionScope, t: PendingTransfer): boolean =>
  t.tenantId === scope.tenantId &&
  t.owner.kind === AUTHORIZATION_OWNER &&
  (scope.userId === null || (t.account.kind === 'USER' && t.account.userId === scope.userId));
