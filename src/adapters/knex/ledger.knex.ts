import DataLoader from 'dataloader';
import type { Knex } from 'knex';
import { jsonParam, rows } from './sql.js';
import { ambientTransaction } from './unit-of-work.knex.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Cursor } from '../../domain/shared/page.js';
import {
  accountId,
  currencyMismatch,
  inLockOrder,
  insufficientFunds,
  mayGoNegative,
  tenantAccountShort,
  postingsOf,
  refundableAmount,
  transactionNotFound,
  paymentRecord,
  refundRecord,
  topUpRecord,
  transferRecord,
} from '../../domain/wallet/ledger.js';
import type {
  Ledger,
  NewPayment,
  NewRefund,
  NewTopUp,
  NewTransfer,
  StatementLine,
  StatementPosition,
} from '../../domain/wallet/ledger.port.js';
import { partyOf, type TransactionScope } from '../../domain/wallet/scope.js';
import type { TransactionFilter, TransactionReader, TypeSummary } from '../../domain/wallet/transaction-reader.port.js';
import { TRANSACTION_TYPES, type Transaction, type TransactionType } from '../../domain/wallet/transaction.js';
import { detailOf, isRetryableTransactionError, sqlState, TRANSACTION_ATTEMPTS } from './pg-errors.js';
import { transactionCreated } from '../../domain/webhooks/events.js';
import { outboxRecords } from '../webhooks/payloads.js';
import { KnexStore } from './knex-store.js';

interface TransactionRow {
  id: string;
  tenant_id: string;
  type: TransactionType;
  amount: number | string | bigint;
  currency: string;
  user_id: string;
  counterparty_user_id: string | null;
  reference: string | null;
  description: string | null;
  refund_of: string | null;
  refunded_amount: number | string | bigint;
  initiator_kind: 'machine' | 'user';
  initiator_client_id: string;
  initiator_user_id: string | null;
  initiator_amr: string[] | string | null;
  initiator_act_sub: string | null;
  authorization_id: string | null;
  created_at: Date | string;
}

const COLUMNS = [
  'id',
  'tenant_id',
  'type',
  'amount',
  'currency',
  'user_id',
  'counterparty_user_id',
  'reference',
  'description',
  'refund_of',
  'refunded_amount',
  'initiator_kind',
  'initiator_client_id',
  'initiator_user_id',
  'initiator_amr',
  'initiator_act_sub',
  'authorization_id',
  'created_at',
].join(', ');

/** A text[] as either driver hands it back. */
const textArray = (value: string[] | string | null): string[] | null => {
  if (value === null || Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, '');
  return inner === '' ? [] : inner.split(',').map((s) => s.replace(/^"|"$/g, ''));
};

const toTransaction = (r: TransactionRow): Transaction => ({
  id: r.id,
  tenantId: r.tenant_id,
  type: r.type,
  amount: { amount: Number(r.amount), currency: r.currency.trim() },
  userId: r.user_id,
  counterpartyUserId: r.counterparty_user_id,
  reference: r.reference,
  description: r.description,
  refundOf: r.refund_of,
  refundedAmount: Number(r.refunded_amount),
  authorizationId: r.authorization_id,
  createdAt: new Date(r.created_at),
  initiatedBy: {
    kind: r.initiator_kind,
    tenantId: r.tenant_id,
    clientId: r.initiator_client_id,
    userId: r.initiator_user_id,
    amr: textArray(r.initiator_amr),
    act: r.initiator_act_sub === null ? null : { sub: r.initiator_act_sub },
  },
});

/**
 * The refusals of `pbw_ledger_write` (0015), by SQLSTATE, as the domain's errors. What an error
 * needs besides the code (the currency the account holds) is the DETAIL field; the message text
 * is for people reading the server's log, never parsed.
 */
const LEDGER_REFUSALS: Readonly<Record<string, (detail: string, currency: string) => DomainError>> = {
  /** A checked debit of a user's account found too little. */
  PB010: () => insufficientFunds(),
  /** A checked debit of a tenant's own account (its settlement shard, when refunding) found too little. */
  PB011: () => tenantAccountShort(),
  /** An account of the transaction holds another currency (DETAIL). */
  PB020: (held, currency) => currencyMismatch(held, currency),
  /** The payment changed between its read and the refund's guard: only possible without its row lock. */
  PB030: () => new DomainError('refund-exceeds-payment', { message: 'The refund is more than what remains of the payment.' }),
};

/** The refusal `pbw_ledger_write` raised for a write in `currency`, as the domain's error; anything else unchanged. */
export const ledgerRefusal = (err: unknown, currency: string): unknown => {
  const state = sqlState(err);
  const refusal = state !== undefined && Object.hasOwn(LEDGER_REFUSALS, state) ? LEDGER_REFUSALS[state] : undefined;
  return refusal === undefined ? err : refusal(detailOf(err), currency);
};

const WRITE = 'SELECT pbw_ledger_write($1::jsonb) AS outcome';

/**
 * The record `pbw_ledger_write` takes for `t` (JSON, by name): the transaction, its postings in
 * the domain's lock order, its `transaction.created` event.
 */
export function writeRecord(t: Transaction): string {
  const postings = inLockOrder(t.tenantId, postingsOf(t));
  return jsonParam({
    id: t.id,
    tenant_id: t.tenantId,
    type: t.type,
    amount: t.amount.amount,
    currency: t.amount.currency,
    user_id: t.userId,
    counterparty_user_id: t.counterpartyUserId,
    reference: t.reference,
    description: t.description,
    refund_of: t.refundOf,
    initiator_kind: t.initiatedBy.kind,
    initiator_client_id: t.initiatedBy.clientId,
    initiator_user_id: t.initiatedBy.userId,
    initiator_amr: t.initiatedBy.amr === null ? null : [...t.initiatedBy.amr],
    initiator_act_sub: t.initiatedBy.act?.sub ?? null,
    authorization_id: t.authorizationId,
    created_at: t.createdAt,
    postings: postings.map((p) => ({
      account_id: accountId(t.tenantId, p.account),
      kind: p.account.kind,
      user_id: p.account.kind === 'USER' ? p.account.userId : null,
      amount: p.amount,
      checked: p.amount < 0 && !mayGoNegative(p.account),
    })),
    events: outboxRecords([transactionCreated(t)]),
  });
}

/**
 * The ledger in PostgreSQL. One database transaction per write: the balances in account-id
 * order (a debit is `UPDATE … WHERE balance >= amount`, decided under the row lock; a credit is
 * an upsert), then the transaction row and its entries, whose sum per transaction the database checks at commit.
 * Every write records its `transaction.created` event in the same transaction (the outbox).
 * All four kinds of write go through one function, `pbw_ledger_write` (0014; each refusal its
 * own SQLSTATE since 0015): top-ups, payments and transfers as a statement of their own; refunds
 * inside the transaction that reads and locks their payment first.
 * Works alike on PGlite (one connection: everything inside uses `trx`).
 */
export class KnexLedger extends KnexStore implements Ledger, TransactionReader {
  /**
   * Balance reads that arrive together share one query. Every read still starts after its request
   * arrived, so it sees every write acknowledged before; nothing is cached between batches.
   */
  private readonly balances: DataLoader<string, number>;

  constructor(pool: Knex) {
    super(pool);
    this.balances = new DataLoader((ids) => this.readBalances(ids), {
      cache: false,
      maxBatchSize: 500,
      // The requests that one turn of the event loop read from their sockets, not one per tick.
      batchScheduleFn: (run) => setImmediate(run),
    });
  }

  async topUp(e: NewTopUp): Promise<Transaction> {
    return this.record(topUpRecord(e));
  }

  async pay(e: NewPayment): Promise<Transaction> {
    return this.record(paymentRecord(e));
  }

  async transfer(e: NewTransfer): Promise<Transaction> {
    return this.record(transferRecord(e));
  }

  async refund(e: NewRefund): Promise<Transaction> {
    return this.retried(() =>
      this.inTransaction(async (trx) => {
        // The payment's row lock orders concurrent refunds of it: each sees what the others gave back.
        const payment = await this.selectOne(trx, 'WHERE tenant_id = ? AND id = ? FOR UPDATE', [e.tenantId, e.paymentId]);
        if (payment === null) throw transactionNotFound();
        return this.write(trx, refundRecord(e, payment, refundableAmount(payment, e.amount)));
      }),
    );
  }

  async balanceOf(tenantId: string, userId: string): Promise<number> {
    const id = accountId(tenantId, { kind: 'USER', userId });
    // Inside a unit of work, read in its transaction (never batched with other requests' reads).
    if (ambientTransaction() !== null) return (await this.readBalances([id], this.knex))[0]!;
    return this.balances.load(id);
  }

  /** The balances of these accounts in one round trip, in their order (0 for one never credited). */
  private async readBalances(ids: readonly string[], db: Knex = this.rawPool): Promise<number[]> {
    const found = await rows<{ id: string; balance: number | string }>(
      db,
      'SELECT id, balance FROM ledger_accounts WHERE id = ANY ($1::text[])',
      [ids],
      'ledger.balances',
    );
    const byId = new Map(found.map((r) => [r.id, Number(r.balance)]));
    return ids.map((id) => byId.get(id) ?? 0);
  }

  async balancesOf(tenantId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const out = new Map<string, number>();
    if (userIds.length === 0) return out;
    const rows = (await this.knex('ledger_accounts')
      .where({ tenant_id: tenantId, kind: 'USER' })
      .whereIn('user_id', [...userIds])
      .select('user_id', 'balance')) as Array<{ user_id: string; balance: number | string }>;
    for (const r of rows) out.set(r.user_id, Number(r.balance));
    return out;
  }

  async balanceBefore(tenantId: string, userId: string, instant: Date): Promise<number> {
    const [last] = await rows<{ balance_after: number | string }>(
      this.knex,
      `SELECT balance_after FROM ledger_entries WHERE account_id = $1 AND created_at < $2
       ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [accountId(tenantId, { kind: 'USER', userId }), instant],
      'ledger.balance-before',
    );
    return last === undefined ? 0 : Number(last.balance_after);
  }

  async statementLines(
    tenantId: string,
    userId: string,
    range: { readonly from: Date; readonly to: Date },
    after: StatementPosition | null,
    limit: number,
  ): Promise<StatementLine[]> {
    const found = await rows<{
      created_at: Date | string;
      seq: number | string;
      amount: number | string;
      balance_after: number | string;
      id: string;
      type: TransactionType;
      reference: string | null;
    }>(
      this.knex,
      `SELECT e.created_at, e.seq, e.amount, e.balance_after, t.id, t.type, t.reference
       FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE e.account_id = $1 AND e.created_at < $3
         AND ${after === null ? 'e.created_at >= $2' : '(e.created_at, e.seq) > ($4::timestamptz, $5::bigint)'}
       ORDER BY e.created_at, e.seq LIMIT $6`,
      [accountId(tenantId, { kind: 'USER', userId }), range.from, range.to, after?.at ?? null, after?.seq ?? 0, limit],
      after === null ? 'ledger.statement-first' : 'ledger.statement-next',
    );
    return found.map((r) => ({
      at: new Date(r.created_at),
      seq: Number(r.seq),
      transactionId: r.id,
      type: r.type,
      reference: r.reference,
      amount: Number(r.amount),
      balance: Number(r.balance_after),
    }));
  }

  async list(scope: TransactionScope, filter: TransactionFilter, after: Cursor | null, limit: number): Promise<Transaction[]> {
    const { sql, bindings } = conditions(filter, after);
    const order = 'ORDER BY created_at DESC, id DESC';
    const party = partyOf(scope);
    if (party === null) {
      const rows = await this.knex.raw(`SELECT ${COLUMNS} FROM ledger_transactions WHERE tenant_id = ?${sql} ${order} LIMIT ?`, [
        scope.tenantId,
        ...bindings,
        limit,
      ]);
      return (rows.rows as TransactionRow[]).map(toTransaction);
    }
    // A person's activity is where they are the user or the counterparty: two index range scans,
    // each already in listing order and limited, merged; never a sort of all their rows.
    const rows = await this.knex.raw(
      `SELECT * FROM (
         (SELECT ${COLUMNS} FROM ledger_transactions WHERE tenant_id = ? AND user_id = ?${sql} ${order} LIMIT ?)
         UNION ALL
         (SELECT ${COLUMNS} FROM ledger_transactions WHERE tenant_id = ? AND counterparty_user_id = ? AND user_id <> ?${sql} ${order} LIMIT ?)
       ) AS mine ${order} LIMIT ?`,
      [scope.tenantId, party, ...bindings, limit, scope.tenantId, party, party, ...bindings, limit, limit],
    );
    return (rows.rows as TransactionRow[]).map(toTransaction);
  }

  async find(scope: TransactionScope, transactionId: string): Promise<Transaction | null> {
    const party = partyOf(scope);
    return party === null
      ? this.selectOne(this.knex, 'WHERE tenant_id = ? AND id = ?', [scope.tenantId, transactionId])
      : this.selectOne(this.knex, 'WHERE tenant_id = ? AND id = ? AND (user_id = ? OR counterparty_user_id = ?)', [
          scope.tenantId,
          transactionId,
          party,
          party,
        ]);
  }

  async summarize(scope: TransactionScope, filter: TransactionFilter): Promise<TypeSummary[]> {
    const { sql, bindings } = conditions(filter, null);
    const party = partyOf(scope);
    const who = party === null ? '' : ' AND (user_id = ? OR counterparty_user_id = ?)';
    const rows = await this.knex.raw(
      `SELECT type, COUNT(*) AS count, COALESCE(SUM(amount), 0) AS total FROM ledger_transactions
       WHERE tenant_id = ?${who}${sql} GROUP BY type`,
      [scope.tenantId, ...(party === null ? [] : [party, party]), ...bindings],
    );
    const byType = new Map((rows.rows as Array<{ type: TransactionType; count: unknown; total: unknown }>).map((r) => [r.type, r]));
    return TRANSACTION_TYPES.map((type) => {
      const r = byType.get(type);
      return { type, count: Number(r?.count ?? 0), total: Number(r?.total ?? 0) };
    });
  }

  /**
   * Records a top-up, payment or transfer: one call of `pbw_ledger_write`, in the running unit of
   * work's transaction, or else as a statement of its own (one round trip, one commit).
   */
  private record(t: Transaction): Promise<Transaction> {
    return this.retried(() => this.write(this.knex, t));
  }

  /**
   * The one write of the ledger: one call of `pbw_ledger_write` (0014) with the transaction, its
   * postings in the domain's lock order and its `transaction.created` event. Called on the pool
   * it is a transaction of its own (one round trip, one commit); a refund calls it inside the
   * transaction that read and locked its payment. Inside a unit of work both run in its
   * transaction (`KnexStore.knex`): the write commits with whatever else the unit writes (an idempotency
   * key's stored response), in one commit, and a failed request or a crash undoes both.
   */
  private async write(db: Knex | Knex.Transaction, t: Transaction): Promise<Transaction> {
    try {
      await rows(db, WRITE, [writeRecord(t)], 'ledger.write');
    } catch (err) {
      throw ledgerRefusal(err, t.amount.currency);
    }
    return t;
  }

  /**
   * Runs `write`, retrying deadlocks and serialization failures when it is a transaction of its
   * own; inside a unit of work the failure ends the unit's transaction, so it is the unit's to retry.
   */
  private async retried(write: () => Promise<Transaction>): Promise<Transaction> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (attempt < TRANSACTION_ATTEMPTS && isRetryableTransactionError(err) && ambientTransaction() === null) continue;
        throw err;
      }
    }
  }

  private async selectOne(db: Knex | Knex.Transaction, where: string, bindings: readonly Knex.Value[]): Promise<Transaction | null> {
    const rows = await db.raw(`SELECT ${COLUMNS} FROM ledger_transactions ${where}`, bindings);
    const row = (rows.rows as TransactionRow[])[0];
    return row === undefined ? null : toTransaction(row);
  }
}

/** The filter and keyset position as SQL conditions (each starting with AND) and bindings. */
function conditions(filter: TransactionFilter, after: Cursor | null): { sql: string; bindings: Knex.Value[] } {
  let sql = '';
  const bindings: Knex.Value[] = [];
  if (filter.types !== undefined && filter.types.length > 0) {
    sql += ` AND type IN (${filter.types.map(() => '?').join(', ')})`;
    bindings.push(...filter.types);
  }
  if (filter.from !== undefined) {
    sql += ' AND created_at >= ?';
    bindings.push(filter.from);
  }
  if (filter.to !== undefined) {
    sql += ' AND created_at < ?';
    bindings.push(filter.to);
  }
  if (after !== null) {
    sql += ' AND (created_at, id) < (?, ?)';
    bindings.push(after.createdAt, after.id);
  }
  return { sql, bindings };
}
