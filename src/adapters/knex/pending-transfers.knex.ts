import type { Knex } from 'knex';
import { accountId, insufficientFunds, requireAccountCurrency, type AccountRef } from '../../domain/wallet/ledger.js';
import {
  afterCapture,
  captureAmount,
  lapsedNow,
  pendingTransferNotFound,
  voidOf,
  type PendingTransfer,
  type PendingTransferStatus,
} from '../../domain/wallet/pending-transfer.js';
import type { AuthorizationListing, NewCapture, NewPendingTransfer, PendingTransfers } from '../../domain/wallet/pending-transfers.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { AUTHORIZATION_OWNER } from '../../domain/wallet/pending-transfer.js';
import { partyOf } from '../../domain/wallet/scope.js';
import { authorizationChanged } from '../../domain/webhooks/events.js';
import { recordEvents } from './outbox.knex.js';
import { captureRecord } from '../memory/pending-transfers.memory.js';
import { KnexStore } from './knex-store.js';
import { ledgerRefusal, writeRecord } from './ledger.knex.js';
import { rows } from './sql.js';

interface Row {
  id: string;
  tenant_id: string;
  account_kind: 'USER' | 'FUNDING' | 'SETTLEMENT';
  user_id: string | null;
  shard: number | null;
  owner_kind: string;
  owner_id: string;
  reference: string;
  amount: number | string;
  currency: string;
  captured: number | string;
  status: PendingTransferStatus;
  expires_at: Date | string;
  created_at: Date | string;
  resolved_at: Date | string | null;
}

const toTransfer = (r: Row): PendingTransfer => ({
  id: r.id,
  tenantId: r.tenant_id,
  account: r.account_kind === 'USER' ? { kind: 'USER', userId: r.user_id! } : { kind: r.account_kind, shard: Number(r.shard) },
  owner: { kind: r.owner_kind, id: r.owner_id },
  reference: r.reference,
  amount: { amount: Number(r.amount), currency: r.currency.trim() },
  captured: Number(r.captured),
  status: r.status,
  expiresAt: new Date(r.expires_at),
  createdAt: new Date(r.created_at),
  resolvedAt: r.resolved_at === null ? null : new Date(r.resolved_at),
});

/** The SQL of "its status at `now` is `status`" (`statusAt`): a lapsed PENDING row reads EXPIRED. */
const statusAtSql = (status: PendingTransferStatus, now: string): string => {
  switch (status) {
    case 'PENDING':
      return `(status = 'PENDING' AND expires_at > ${now})`;
    case 'EXPIRED':
      return `(status = 'EXPIRED' OR (status = 'PENDING' AND expires_at <= ${now}))`;
    default:
      return `status = '${status}'`;
  }
};

const HELD = `SELECT COALESCE(SUM(amount - captured), 0) AS held FROM pending_transfers
  WHERE account_id = $1 AND status = 'PENDING' AND expires_at > $2`;

/**
 * Pending transfers in PostgreSQL, decided by the database's locks: a hold under its account's
 * row lock (the lock every debit of the account takes), a capture, void or expiry under the
 * transfer's row lock. A capture records its PAYMENT through the ledger's one write
 * (`pbw_ledger_write`) in the same transaction, after lowering what the transfer holds, so the
 * payment debits held money and is never refused for it.
 */
export class KnexPendingTransfers extends KnexStore implements PendingTransfers {
  async hold(e: NewPendingTransfer): Promise<PendingTransfer> {
    const id = accountId(e.tenantId, e.account);
    return this.inRetriedTransaction(async (trx) => {
      const [account] = await rows<{ balance: number | string; currency: string }>(
        trx,
        'SELECT balance, currency FROM ledger_accounts WHERE id = $1 FOR UPDATE',
        [id],
      );
      requireAccountCurrency(account === undefined ? null : account.currency.trim(), e.amount);
      const [held] = await rows<{ held: number | string }>(trx, HELD, [id, e.createdAt]);
      if (account === undefined || Number(account.balance) - Number(held!.held) < e.amount.amount) throw insufficientFunds();
      const [row] = await rows<Row>(
        trx,
        `INSERT INTO pending_transfers (id, tenant_id, account_id, account_kind, user_id, shard, owner_kind, owner_id,
           reference, amount, currency, captured, status, expires_at, created_at, resolved_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, 'PENDING', $12, $13, NULL) RETURNING *`,
        [
          e.id,
          e.tenantId,
          id,
          e.account.kind,
          e.account.kind === 'USER' ? e.account.userId : null,
          e.account.kind === 'USER' ? null : e.account.shard,
          e.owner.kind,
          e.owner.id,
          e.reference,
          e.amount.amount,
          e.amount.currency,
          e.expiresAt,
          e.createdAt,
        ],
      );
      const made = toTransfer(row!);
      await recordEvents(trx, authorizationChanged('authorization.created', made, made.createdAt));
      return made;
    });
  }

  async capture(e: NewCapture): Promise<{ transfer: PendingTransfer; transaction: Transaction }> {
    return this.inRetriedTransaction(async (trx) => {
      const t = await this.locked(trx, e.tenantId, e.pendingTransferId);
      const amount = captureAmount(t, e.amount, e.at);
      if (t.account.kind !== 'USER') throw new RangeError('captures pay from user accounts only');
      const next = afterCapture(t, amount, e.final, e.at);
      await this.store(trx, next);
      const transaction = captureRecord(e, t.account.userId, t.reference, t.amount.currency, amount);
      try {
        await rows(trx, 'SELECT pbw_ledger_write($1::jsonb) AS outcome', [writeRecord(transaction)], 'ledger.write');
      } catch (err) {
        throw ledgerRefusal(err, t.amount.currency);
      }
      await recordEvents(trx, authorizationChanged('authorization.captured', next, e.at, transaction));
      return { transfer: next, transaction };
    });
  }

  async void(tenantId: string, id: string, at: Date): Promise<{ transfer: PendingTransfer; changed: boolean }> {
    return this.inRetriedTransaction(async (trx) => {
      const outcome = voidOf(await this.locked(trx, tenantId, id), at);
      if (outcome.changed) {
        await this.store(trx, outcome.transfer);
        await recordEvents(trx, authorizationChanged('authorization.voided', outcome.transfer, at));
      }
      return outcome;
    });
  }

  async find(tenantId: string, id: string): Promise<PendingTransfer | null> {
    const [row] = await rows<Row>(this.knex, 'SELECT * FROM pending_transfers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    return row === undefined ? null : toTransfer(row);
  }

  async heldOn(tenantId: string, account: AccountRef, at: Date): Promise<number> {
    const [held] = await rows<{ held: number | string }>(this.knex, HELD, [accountId(tenantId, account), at]);
    return Number(held!.held);
  }

  /** One bounded batch: the lapsed transfers no other caller holds, each recorded EXPIRED once. */
  async expireDue(at: Date, limit: number): Promise<PendingTransfer[]> {
    return this.inRetriedTransaction((trx) =>
      this.recordLapses(
        trx,
        `SELECT id FROM pending_transfers WHERE owner_kind = $3 AND status = 'PENDING' AND expires_at <= $1
         ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [at, limit, AUTHORIZATION_OWNER],
      ),
    );
  }

  /** Under the transfer's lock: its deadline moved to `at`, then its lapse recorded by the one statement `expireDue` uses. */
  async expireNow(tenantId: string, id: string, at: Date): Promise<PendingTransfer> {
    return this.inRetriedTransaction(async (trx) => {
      const due = lapsedNow(await this.locked(trx, tenantId, id), at);
      await rows(trx, 'UPDATE pending_transfers SET expires_at = $2 WHERE id = $1', [id, due.expiresAt]);
      const [expired] = await this.recordLapses(trx, 'SELECT id FROM pending_transfers WHERE id = $1 AND expires_at <= $2', [id, at]);
      if (expired === undefined) throw new Error(`the lapse of ${id} was not recorded`);
      return expired;
    });
  }

  /**
   * Records EXPIRED (resolved at the deadline) on the still PENDING transfers whose ids `due`
   * selects, with their `authorization.expired` events, in `trx`; answers those it recorded.
   */
  private async recordLapses(trx: Knex.Transaction, due: string, bindings: readonly unknown[]): Promise<PendingTransfer[]> {
    const found = (
      await rows<Row>(
        trx,
        `UPDATE pending_transfers SET status = 'EXPIRED', resolved_at = expires_at
       WHERE id IN (${due}) AND status = 'PENDING'
       RETURNING *`,
        [...bindings],
      )
    ).map(toTransfer);
    await recordEvents(
      trx,
      found.flatMap((t) => authorizationChanged('authorization.expired', t, t.expiresAt)),
    );
    return found;
  }

  async heldThen(tenantId: string, account: AccountRef, at: Date): Promise<number> {
    const [held] = await rows<{ held: number | string }>(
      this.knex,
      `SELECT COALESCE(SUM(p.amount - COALESCE((SELECT SUM(t.amount) FROM ledger_transactions t
           WHERE t.authorization_id = p.id AND t.created_at <= $2), 0)), 0) AS held
       FROM pending_transfers p
       WHERE p.account_id = $1 AND p.created_at <= $2 AND p.expires_at > $2 AND (p.resolved_at IS NULL OR p.resolved_at > $2)`,
      [accountId(tenantId, account), at],
    );
    return Number(held!.held);
  }

  async listAuthorizations({ scope, status, after, limit, now }: AuthorizationListing): Promise<PendingTransfer[]> {
    const party = partyOf(scope);
    const where: string[] = [];
    const bindings: unknown[] = [];
    const bind = (v: unknown): string => `$${bindings.push(v)}`;
    if (party === null) where.push(`tenant_id = ${bind(scope.tenantId)} AND owner_kind = ${bind(AUTHORIZATION_OWNER)}`);
    else
      where.push(
        `account_id = ${bind(accountId(scope.tenantId, { kind: 'USER', userId: party }))} AND owner_kind = ${bind(AUTHORIZATION_OWNER)}`,
      );
    if (status !== undefined) where.push(statusAtSql(status, bind(now)));
    if (after !== null) where.push(`(created_at, id) < (${bind(after.createdAt)}, ${bind(after.id)})`);
    const found = await rows<Row>(
      this.knex,
      `SELECT * FROM pending_transfers WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${bind(limit)}`,
      bindings,
    );
    return found.map(toTransfer);
  }

  private async locked(trx: Knex.Transaction, tenantId: string, id: string): Promise<PendingTransfer> {
    const [row] = await rows<Row>(trx, 'SELECT * FROM pending_transfers WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenantId, id]);
    if (row === undefined) throw pendingTransferNotFound();
    return toTransfer(row);
  }

  private async store(trx: Knex.Transaction, t: PendingTransfer): Promise<void> {
    await rows(trx, 'UPDATE pending_transfers SET captured = $2, status = $3, resolved_at = $4 WHERE id = $1', [
      t.id,
      t.captured,
      t.status,
      t.resolvedAt,
    ]);
  }
}
