// The admin view of a wallet user, shared by the listing and the disabling use cases.

import { isDisabled, type WalletUser } from '../../domain/identity/tenant.js';

/** What an operator sees of a wallet user: never the password hash. */
export interface WalletUserSummary {
  readonly userId: string;
  readonly tenantId: string;
  readonly externalUserRef: string;
  readonly email: string | null;
  readonly status: 'ACTIVE' | 'DISABLED';
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

export const summaryOf = (u: WalletUser): WalletUserSummary => ({
  userId: u.id,
  tenantId: u.tenantId,
  externalUserRef: u.externalUserRef,
  email: u.email,
  status: isDisabled(u) ? 'DISABLED' : 'ACTIVE',
  disabledAt: u.disabledAt ?? null,
  createdAt: u.createdAt,
});
