import type { WalletPrincipal } from '../identity/principal.js';
import { DomainError } from '../shared/errors.js';
import { idempotencyScope } from '../shared/idempotency.js';
import type { Money } from '../shared/money.js';
import type { NewPayment, NewRefund, NewTopUp, NewTransfer } from './ledger.port.js';
import type { Initiator, Transaction } from './transaction.js';

/**
 * The largest amount one transaction may move, in minor units: far below 2^53 so that sums of
 * many of them stay exact in JavaScript numbers and in PostgreSQL bigint.
 */
export const MAX_TRANSACTION_AMOUNT = 100_000_000_000;

/**
 * How many funding and settlement accounts each tenant has. Every payment credits a settlement
 * account; with one, all payments of a tenant would queue on its row lock. Spread over shards
 * (chosen from the transaction id), they contend only one in TENANT_ACCOUNT_SHARDS of the time.
 */
export const TENANT_ACCOUNT_SHARDS = 16;

/** A ledger account of a tenant: one per wallet user, plus the tenant's outside accounts. */
export type AccountRef =
  | { readonly kind: 'USER'; readonly userId: string }
  /** Where top-ups come from: money entering the tenant's wallets. It alone may go negative. */
  | { readonly kind: 'FUNDING'; readonly shard: number }
  /** Where payments go: money leaving the wallets to the tenant; refunds come back from it. */
  | { readonly kind: 'SETTLEMENT'; readonly shard: number };

/** The shard of a tenant account a transaction id maps to (FNV-1a, stable across processes). */
export const shardOf = (transactionId: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < transactionId.length; i++) {
    h ^= transactionId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % TENANT_ACCOUNT_SHARDS;
};

/** One side of a double-entry posting: a signed amount on one account (credit > 0, debit < 0). */
export interface Posting {
  readonly account: AccountRef;
  readonly amount: number;
}

/** A stable, unique id for an account, and the order in which accounts are locked. */
export const accountId = (tenantId: string, account: AccountRef): string =>
  account.kind === 'USER' ? `${tenantId}:user:${account.userId}` : `${tenantId}:${account.kind.toLowerCase()}:${account.shard}`;

/** Only the funding account records money that came from outside, so only it may be below zero. */
export const mayGoNegative = (account: AccountRef): boolean => account.kind === 'FUNDING';

/**
 * The balanced postings of a transaction: exactly two, summing to zero.
 * TOP_UP: funding → user; PAYMENT: user → settlement; TRANSFER: user → counterparty;
 * REFUND: settlement → user, from the very settlement shard its payment credited, which
 * therefore always holds at least what remains of that payment.
 */
export const postingsOf = (
  t: Pick<Transaction, 'id' | 'type' | 'userId' | 'counterpartyUserId' | 'refundOf'> & { amount: { amount: number } },
): Posting[] => {
  const a = t.amount.amount;
  const user: AccountRef = { kind: 'USER', userId: t.userId };
  switch (t.type) {
    case 'TOP_UP':
      return [
        { account: { kind: 'FUNDING', shard: shardOf(t.id) }, amount: -a },
        { account: user, amount: a },
      ];
    case 'PAYMENT':
      return [
        { account: user, amount: -a },
        { account: { kind: 'SETTLEMENT', shard: shardOf(t.id) }, amount: a },
      ];
    case 'TRANSFER':
      if (t.counterpartyUserId === null) throw new Error('a transfer needs a counterparty');
      return [
        { account: user, amount: -a },
        { account: { kind: 'USER', userId: t.counterpartyUserId }, amount: a },
      ];
    case 'REFUND':
      if (t.refundOf === null) throw new Error('a refund needs its payment');
      return [
        { account: { kind: 'SETTLEMENT', shard: shardOf(t.refundOf) }, amount: -a },
        { account: user, amount: a },
      ];
  }
};

/** Postings ordered by account id: every writer locks accounts in this one order, so none deadlock. */
export const inLockOrder = (tenantId: string, postings: readonly Posting[]): Posting[] =>
  [...postings].sort((x, y) => {
    const a = accountId(tenantId, x.account);
    const b = accountId(tenantId, y.account);
    return a < b ? -1 : a > b ? 1 : 0;
  });

/** What a request may say an amount is: minor units of the tenant's currency, or money. */
export type AmountInput = number | { readonly amount: number; readonly currency: string };

/** `invalid-request`: an amount outside 1..MAX_TRANSACTION_AMOUNT whole minor units. */
const invalidAmount = (): DomainError =>
  new DomainError('invalid-request', {
    message: `amount must be a whole number of minor units from 1 to ${MAX_TRANSACTION_AMOUNT}.`,
    details: {
      errors: [{ path: 'amount', message: `must be an integer from 1 to ${MAX_TRANSACTION_AMOUNT}` }],
    },
  });

/** Is this a positive whole number of minor units that one transaction may move? */
const isTransactionAmount = (value: number): boolean => Number.isSafeInteger(value) && value > 0 && value <= MAX_TRANSACTION_AMOUNT;

/** `currency-mismatch`: money in another currency than the wallet (or account) holds. */
export const currencyMismatch = (expected: string, got: string): DomainError =>
  new DomainError('currency-mismatch', { message: `This wallet holds ${expected}; the amount is in ${got}.`, details: { expected } });

/**
 * Checks an amount for a transaction in a tenant whose currency is `currency`: a positive
 * integer up to MAX_TRANSACTION_AMOUNT (else `invalid-request`), in that currency (else
 * `currency-mismatch`).
 */
export const amountIn = (input: AmountInput, currency: string): Money => {
  const value = typeof input === 'number' ? input : input.amount;
  if (!isTransactionAmount(value)) throw invalidAmount();
  if (typeof input !== 'number' && input.currency !== currency) throw currencyMismatch(currency, input.currency);
  return { amount: value, currency };
};

/** `same-user-transfer`: a transfer whose recipient is its sender. */
export const requireOtherRecipient = (fromUserId: string, toUserId: string): void => {
  if (fromUserId === toUserId) {
    throw new DomainError('same-user-transfer', { message: 'A transfer needs a recipient other than the sender.' });
  }
};

/**
 * The rules every entry obeys before anything is written, whichever adapter stores it: an amount
 * of 1..MAX_TRANSACTION_AMOUNT whole minor units (`invalid-request`) in a three-letter currency
 * code, and a transfer to someone else (`same-user-transfer`).
 */
const checkedEntry = <E extends { readonly amount: Money }>(e: E): E => {
  if (!isTransactionAmount(e.amount.amount)) throw invalidAmount();
  if (!/^[A-Z]{3}$/.test(e.amount.currency)) {
    throw new DomainError('invalid-request', {
      message: 'currency must be a three-letter ISO 4217 code.',
      details: {
        errors: [{ path: 'amount.currency', message: 'must be three capital letters' }],
      },
    });
  }
  return e;
};

/**
 * Every posting moves money in the currency of its account: an account that exists in another
 * currency refuses the transaction (`currency-mismatch`) before anything is written. `existing`
 * is the currency of the posting's account, or null when it has none yet.
 */
export const requireAccountCurrency = (existing: string | null, amount: Money): void => {
  if (existing !== null && existing !== amount.currency) throw currencyMismatch(existing, amount.currency);
};

/** The initiator record of a call, copied from its principal. */
export const initiatorOf = (principal: WalletPrincipal): Initiator =>
  principal.kind === 'machine'
    ? { kind: 'machine', tenantId: principal.tenantId, clientId: principal.clientId, userId: null, amr: null, act: null }
    : {
        kind: 'user',
        tenantId: principal.tenantId,
        clientId: principal.clientId,
        userId: principal.userId,
        amr: [...principal.amr],
        act: principal.act === null ? null : { sub: principal.act.sub },
      };

/**
 * Whose idempotency keys these are: a tenant's backend (per OAuth client) or one wallet user.
 * The same key from two callers names two different requests.
 */
export const idempotencyScopeOf = (initiator: Initiator): string =>
  idempotencyScope(
    initiator.kind === 'machine'
      ? { kind: 'machine', tenantId: initiator.tenantId, clientId: initiator.clientId }
      : { kind: 'user', tenantId: initiator.tenantId, userId: initiator.userId ?? '' },
    'tenant',
  );

/**
 * What a refund of `requested` (null: all that remains) gives back of `payment`, or a
 * DomainError: only a payment is refundable (`not-refundable`), in its own currency
 * (`currency-mismatch`), by a valid amount (`invalid-request`), and refunds never total more than
 * the payment (`refund-exceeds-payment`).
 */
export const refundableAmount = (payment: Transaction, requested: Money | null): number => {
  if (payment.type !== 'PAYMENT') {
    throw new DomainError('not-refundable', { message: `Only payments can be refunded; this is a ${payment.type}.` });
  }
  if (requested !== null) {
    if (!isTransactionAmount(requested.amount)) throw invalidAmount();
    if (requested.currency !== payment.amount.currency) throw currencyMismatch(payment.amount.currency, requested.currency);
  }
  const remaining = payment.amount.amount - payment.refundedAmount;
  const amount = requested?.amount ?? remaining;
  if (remaining <= 0 || amount > remaining) {
    throw new DomainError('refund-exceeds-payment', {
      details: {
        remaining: { amount: remaining, currency: payment.amount.currency },
      },
    });
  }
  return amount;
};

export const insufficientFunds = (): DomainError => new DomainError('insufficient-funds');

/** A checked debit of a tenant's own account (settlement, when refunding) found too little. */
export const tenantAccountShort = (): DomainError =>
  new DomainError('insufficient-funds', { message: 'The tenant account is too low for this amount.' });

/** The refusal of a checked debit of `account`: the user's funds, or the tenant's account. */
export const shortOf = (account: AccountRef['kind']): DomainError => (account === 'USER' ? insufficientFunds() : tenantAccountShort());

export const transactionNotFound = (): DomainError => new DomainError('transaction-not-found', { message: 'No such transaction.' });

/** The fields every new transaction starts with: nothing refunded, no refund link. */
const fresh = (e: { id: string; tenantId: string; createdAt: Date; initiatedBy: Initiator }) => ({
  id: e.id,
  tenantId: e.tenantId,
  refundOf: null,
  refundedAmount: 0,
  authorizationId: null,
  createdAt: e.createdAt,
  initiatedBy: e.initiatedBy,
});

/** The transaction a top-up records (every adapter stores exactly this). */
export const topUpRecord = (entry: NewTopUp): Transaction => {
  const e = checkedEntry(entry);
  return {
    ...fresh(e),
    type: 'TOP_UP',
    amount: e.amount,
    userId: e.userId,
    counterpartyUserId: null,
    reference: e.reference,
    description: null,
  };
};

/** The transaction a payment records. */
export const paymentRecord = (entry: NewPayment): Transaction => {
  const e = checkedEntry(entry);
  return {
    ...fresh(e),
    type: 'PAYMENT',
    amount: e.amount,
    userId: e.userId,
    counterpartyUserId: null,
    reference: e.reference,
    description: e.description,
    authorizationId: e.authorizationId ?? null,
  };
};

/** The transaction a transfer records: the payer is `userId`, the payee the counterparty. */
export const transferRecord = (entry: NewTransfer): Transaction => {
  const e = checkedEntry(entry);
  requireOtherRecipient(e.userId, e.toUserId);
  return {
    ...fresh(e),
    type: 'TRANSFER',
    amount: e.amount,
    userId: e.userId,
    counterpartyUserId: e.toUserId,
    reference: null,
    description: e.note,
  };
};

/** The transaction a refund of `amount` (already bounded by `refundableAmount`) records. */
export const refundRecord = (e: NewRefund, payment: Transaction, amount: number): Transaction => ({
  ...fresh(e),
  type: 'REFUND',
  amount: { amount, currency: payment.amount.currency },
  userId: payment.userId,
  counterpartyUserId: null,
  reference: payment.reference,
  description: null,
  refundOf: payment.id,
});
