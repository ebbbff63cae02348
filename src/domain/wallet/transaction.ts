import type { Money } from '../shared/money.js';

/** The kinds of money movement the wallet records. */
export const TRANSACTION_TYPES = ['TOP_UP', 'PAYMENT', 'TRANSFER', 'REFUND'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/**
 * Who made a transaction, copied from the principal of the call, so that a later dispute can
 * tell a password login (`amr: ["pwd"]`) from a tenant vouching for its user
 * (`amr: ["tenant_delegated"]`, `act: { sub: <client id> }`).
 */
export interface Initiator {
  readonly kind: 'machine' | 'user';
  readonly tenantId: string;
  readonly clientId: string;
  /** The wallet user, for a user token; null for a machine token. */
  readonly userId: string | null;
  /** The token's `amr`; null for a machine token. */
  readonly amr: readonly string[] | null;
  /** The token's `act`; null when the token has none. */
  readonly act: { readonly sub: string } | null;
}

/** A recorded money movement within one tenant. Amounts are positive, in minor units. */
export interface Transaction {
  readonly id: string;
  readonly tenantId: string;
  readonly type: TransactionType;
  readonly amount: Money;
  /**
   * The wallet user whose money moves first: the one credited by a top-up or a refund, the payer
   * of a payment, the sender of a transfer.
   */
  readonly userId: string;
  /** The receiving user of a transfer; null for every other type. */
  readonly counterpartyUserId: string | null;
  /** The caller's reference (top-up, payment; a refund repeats its payment's); null when none. */
  readonly reference: string | null;
  /** A payment's description or a transfer's note; null when none. */
  readonly description: string | null;
  /** The payment a refund gives money back for; null for every other type. */
  readonly refundOf: string | null;
  /** For a payment: how much of it has been refunded so far; 0 for every other type. */
  readonly refundedAmount: number;
  /** The authorization a payment captures (`auth_…`); null for every other transaction. */
  readonly authorizationId: string | null;
  readonly createdAt: Date;
  readonly initiatedBy: Initiator;
}
