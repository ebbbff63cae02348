import type { WalletUser } from '../../domain/identity/tenant.js';

/**
 * What callers see of a wallet user: a plain object, so other areas can add fields (a balance)
 * by spreading it. Never the password hash.
 */
export interface WalletUserView {
  readonly id: string;
  readonly externalUserRef: string;
  readonly email: string | null;
  readonly createdAt: Date;
}

export const toWalletUserView = (u: WalletUser): WalletUserView => ({
  id: u.id,
  externalUserRef: u.externalUserRef,
  email: u.email,
  createdAt: u.createdAt,
});
