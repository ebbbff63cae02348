import { accountId, insufficientFunds, paymentRecord, requireAccountCurrency, type AccountRef } from '../../domain/wallet/ledger.js';
import {
  afterCapture,
  captureAmount,
  heldAt,
  lapsed,
  lapsedNow,
  pendingTransferNotFound,
  statusAt,
  voidOf,
  type PendingTransfer,
} from '../../domain/wallet/pending-transfer.js';
import type { AuthorizationListing, NewCapture, NewPendingTransfer, PendingTransfers } from '../../domain/wallet/pending-transfers.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { AUTHORIZATION_OWNER } from '../../domain/wallet/pending-transfer.js';
import { partyOf } from '../../domain/wallet/scope.js';
import { authorizationChanged } from '../../domain/webhooks/events.js';
import type { MemoryLedger } from './ledger.memory.js';
import type { MemoryOutbox } from './webhooks.memory.js';

/**
 * Pending transfers in process memory, on a `MemoryLedger`, with the same decisions as
 * PostgreSQL: each hold, capture and void checks and changes its state without awaiting in
 * between, so it is atomic among concurrent calls of one process.
 */
export class MemoryPendingTransfers implements PendingTransfers {
  private readonly transfers = new Map<string, PendingTransfer>();

  /** `outbox` records a wallet authorization's events with each change, as the database's would. */
  constructor(
    private readonly ledger: MemoryLedger,
    private readonly outbox?: MemoryOutbox,
  ) {
    // Payments and transfers of the ledger cannot spend what these transfers hold.
    ledger.respectHolds((id, at) => this.heldById(id, at));
  }

  async hold(e: NewPendingTransfer): Promise<PendingTransfer> {
    const id = accountId(e.tenantId, e.account);
    const account = this.ledger.balances().find((a) => a.id === id);
    requireAccountCurrency(account === undefined ? null : this.currencyOf(id, e.amount.currency), e.amount);
    const available = (account?.balance ?? 0) - this.held(e.tenantId, e.account, e.createdAt);
    if (available < e.amount.amount) throw insufficientFunds();
    const t: PendingTransfer = { ...e, captured: 0, status: 'PENDING', resolvedAt: null };
    this.transfers.set(t.id, t);
    this.outbox?.record(authorizationChanged('authorization.created', t, t.createdAt));
    return t;
  }

  async capture(e: NewCapture): Promise<{ transfer: PendingTransfer; transaction: Transaction }> {
    const t = this.mine(e.tenantId, e.pendingTransferId);
    const amount = captureAmount(t, e.amount, e.at);
    if (t.account.kind !== 'USER') throw new RangeError('captures pay from user accounts only');
    const next = afterCapture(t, amount, e.final, e.at);
    // The state changes before the payment's promise settles, so no other capture sees the old one.
    this.transfers.set(t.id, next);
    try {
      const transaction = await this.ledger.pay(
        paymentRecordEntry(e, t.account.userId, t.reference, { amount, currency: t.amount.currency }),
      );
      this.outbox?.record(authorizationChanged('authorization.captured', next, e.at, transaction));
      return { transfer: next, transaction };
    } catch (err) {
      this.transfers.set(t.id, t);
      throw err;
    }
  }

  async void(tenantId: string, id: string, at: Date): Promise<{ transfer: PendingTransfer; changed: boolean }> {
    const outcome = voidOf(this.mine(tenantId, id), at);
    if (outcome.changed) {
      this.transfers.set(id, outcome.transfer);
      this.outbox?.record(authorizationChanged('authorization.voided', outcome.transfer, at));
    }
    return outcome;
  }

  async find(tenantId: string, id: string): Promise<PendingTransfer | null> {
    const t = this.transfers.get(id);
    return t !== undefined && t.tenantId === tenantId ? t : null;
  }

  async heldOn(tenantId: string, account: AccountRef, at: Date): Promise<number> {
    return this.held(tenantId, account, at);
  }

  async expireDue(at: Date, limit: number): Promise<PendingTransfer[]> {
    const due = [...this.transfers.values()]
      .filter((t) => t.owner.kind === AUTHORIZATION_OWNER && t.status === 'PENDING' && statusAt(t, at) === 'EXPIRED')
      .slice(0, limit);
    return due.map((t) => this.recordLapse(lapsed(t)));
  }

  async expireNow(tenantId: string, id: string, at: Date): Promise<PendingTransfer> {
    return this.recordLapse(lapsedNow(this.mine(tenantId, id), at));
  }

  async heldThen(tenantId: string, account: AccountRef, at: Date): Promise<number> {
    const id = accountId(tenantId, account);
    const when = at.getTime();
    let sum = 0;
    for (const t of this.transfers.values()) {
      if (accountId(t.tenantId, t.account) !== id || t.createdAt.getTime() > when || t.expiresAt.getTime() <= when) continue;
      if (t.resolvedAt !== null && t.resolvedAt.getTime() <= when) continue;
      const captured = this.ledger
        .allTransactions()
        .filter((x) => x.authorizationId === t.id && x.createdAt.getTime() <= when)
        .reduce((s, x) => s + x.amount.amount, 0);
      sum += t.amount.amount - captured;
    }
    return sum;
  }

  async listAuthorizations({ scope, status, after, limit, now }: AuthorizationListing): Promise<PendingTransfer[]> {
    const party = partyOf(scope);
    return [...this.transfers.values()]
      .filter(
        (t) =>
          t.tenantId === scope.tenantId &&
          t.owner.kind === AUTHORIZATION_OWNER &&
          (party === null || (t.account.kind === 'USER' && t.account.userId === party)) &&
          (status === undefined || statusAt(t, now) === status) &&
          (after === null || newerFirst(after, t) < 0),
      )
      .sort(newerFirst)
      .slice(0, limit);
  }

  /** Stores a lapse and records its `authorization.expired` event, as the database does in one transaction. */
  private recordLapse(expired: PendingTransfer): PendingTransfer {
    this.transfers.set(expired.id, expired);
    this.outbox?.record(authorizationChanged('authorization.expired', expired, expired.expiresAt));
    return expired;
  }

  private held(tenantId: string, account: AccountRef, at: Date): number {
    return this.heldById(accountId(tenantId, account), at);
  }

  private heldById(id: string, at: Date): number {
    let sum = 0;
    for (const t of this.transfers.values()) if (accountId(t.tenantId, t.account) === id) sum += heldAt(t, at);
    return sum;
  }

  private currencyOf(accountKey: string, fallback: string): string {
    const t = this.ledger.allTransactions().find((x) => accountId(x.tenantId, { kind: 'USER', userId: x.userId }) === accountKey);
    return t?.amount.currency ?? fallback;
  }

  private mine(tenantId: string, id: string): PendingTransfer {
    const t = this.transfers.get(id);
    if (t === undefined || t.tenantId !== tenantId) throw pendingTransferNotFound();
    return t;
  }
}

const paymentRecordEntry = (e: NewCapture, userId: string, reference: string, amount: { amount: number; currency: string }) => ({
  id: e.transactionId,
  tenantId: e.tenantId,
  userId,
  reference,
  description: `capture of ${e.pendingTransferId}`,
  authorizationId: e.pendingTransferId,
  amount,
  initiatedBy: e.initiatedBy,
  createdAt: e.at,
});

/** The PAYMENT a capture records, as the ledger's domain builds it. */
export const captureRecord = (e: NewCapture, userId: string, reference: string, currency: string, amount: number): Transaction =>
  paymentRecord(paymentRecordEntry(e, userId, reference, { amount, currency }));

/** The listing order: newest first, then id descending (negative when `a` comes first). */
const newerFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id > b.id ? -1 : a.id < b.id ? 1 : 0);
