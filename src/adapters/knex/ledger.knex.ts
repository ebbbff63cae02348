import DataLoader from 'dataloader';
import type { Knex } from 'knex';
import { rows } from './sql.js';
import { DomainError } from '../../domain/shared/errors.js';
import { keyReused } from '../../domain/shared/idempotency.js';
import type { Cursor } from '../../domain/shared/page.js';
import {
  accountId,
  inLockOrder,
  insufficientFunds,
  mayGoNegative,
  postingsOf,
  refundableAmount,
  sameRequest,
  transactionNotFound,
  type LedgerIdempotency,
  paymentRecord,
  refundRecord,
  topUpRecord,
  transferRecord,
} from '../../domain/wallet/ledger.js';
import type { Ledger, NewPayment, NewRefund, NewTopUp, NewTransfer } from '../../domain/wallet/ledger.port.js';
import { partyOf, type TransactionScope } from '../../domain/wallet/scope.js';
import type { TransactionFilter, TransactionReader, TypeSummary } from '../../domain/wallet/transaction-reader.port.js';
import { TRANSACTION_TYPES, type Transaction, type TransactionType } from '../../domain/wallet/transaction.js';
import { isRetryableTransactionError, isUniqueViolation } from './pg-errors.js';
import { transactionCreated } from '../../domain/webhooks/events.js';
import { eventsJson, recordEvents } from './outbox.knex.js';

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
  idempotency_scope: string | null;
  idempotency_key: string | null;
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

const toRow = (t: Transaction, idem: LedgerIdempotency | null): Record<string, unknown> => ({
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
  refunded_amount: 0,
  initiator_kind: t.initiatedBy.kind,
  initiator_client_id: t.initiatedBy.clientId,
  initiator_user_id: t.initiatedBy.userId,
  initiator_amr: t.initiatedBy.amr === null ? null : [...t.initiatedBy.amr],
  initiator_act_sub: t.initiatedBy.act?.sub ?? null,
  idempotency_scope: idem?.scope ?? null,
  idempotency_key: idem?.key ?? null,
  created_at: t.createdAt,
});

const RETRIES = 3;

const tenantAccountShort = (): DomainError =>
  new DomainError('insufficient-funds', { message: 'The tenant account is too low for this amount.' });

/**
 * The ledger in PostgreSQL. One database transaction per write: the balances in account-id
 * order (a debit is `UPDATE … WHERE balance >= amount`, decided under the row lock; a credit is
 * an upsert), then the transaction row (its unique idempotency key makes a concurrent duplicate
 * wait and then fail) and its entries, whose sum per transaction the database checks at commit.
 * Every write records its `transaction.created` event in the same transaction (the outbox).
 * Top-ups, payments and transfers make it one call of `pbw_ledger_record_with_events` (0012);
 * refunds, which also lock and update their payment, run it as statements in a transaction.
 * Works alike on PGlite (one connection: everything inside uses `trx`).
 */
export class KnexLedger implements Ledger, TransactionReader {
  /**
   * Balance reads that arrive together share one query. Every read still starts after its request
   * arrived, so it sees every write acknowledged before; nothing is cached between batches.
   */
  private readonly balances: DataLoader<string, number>;

  constructor(private readonly knex: Knex) {
    this.balances = new DataLoader((ids) => this.readBalances(ids), {
      cache: false,
      maxBatchSize: 500,
      // The requests that one turn of the event loop read from their sockets, not one per tick.
      batchScheduleFn: (run) => setImmediate(run),
    });
  }

  topUp(e: NewTopUp): Promise<Transaction> {
    return this.record(e.idempotency, topUpRecord(e));
  }

  pay(e: NewPayment): Promise<Transaction> {
    return this.record(e.idempotency, paymentRecord(e));
  }

  transfer(e: NewTransfer): Promise<Transaction> {
    return this.record(e.idempotency, transferRecord(e));
  }

  refund(e: NewRefund): Promise<Transaction> {
    return this.withKey(
      e.tenantId,
      e.idempotency,
      () =>
        this.knex.transaction(async (trx) => {
          const payment = await this.selectOne(trx, 'WHERE tenant_id = ? AND id = ? FOR UPDATE', [e.tenantId, e.paymentId]);
          if (payment === null) throw transactionNotFound();
          const existing = await this.byKey(trx, e.tenantId, e.idempotency);
          if (existing !== null)
            return this.sameOrReused(existing, {
              type: 'REFUND',
              amount: e.amount,
              userId: payment.userId,
              counterpartyUserId: null,
              refundOf: payment.id,
            });
          const amount = refundableAmount(payment, e.amount);
          await trx('ledger_transactions')
            .where({ id: payment.id })
            .update({ refunded_amount: payment.refundedAmount + amount })
            .returning('id');
          const refund = await this.apply(trx, e.idempotency, refundRecord(e, payment, amount));
          await recordEvents(trx, [transactionCreated(refund)]);
          return refund;
        }),
      (existing) =>
        this.sameOrReused(existing, { type: 'REFUND', amount: e.amount, userId: null, counterpartyUserId: null, refundOf: e.paymentId }),
    );
  }

  balanceOf(tenantId: string, userId: string): Promise<number> {
    return this.balances.load(accountId(tenantId, { kind: 'USER', userId }));
  }

  /** The balances of these accounts in one round trip, in their order (0 for one never credited). */
  private async readBalances(ids: readonly string[]): Promise<number[]> {
    const found = await rows<{ id: string; balance: number | string }>(
      this.knex,
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
   * Records a top-up, payment or transfer. A retry under a used key is found by the unique key
   * (or, when the first spent the money, by the refusal), not by a read before every write.
   */
  private record(idem: LedgerIdempotency | null, t: Transaction): Promise<Transaction> {
    const wanted = {
      type: t.type,
      amount: t.amount.amount,
      userId: t.userId,
      counterpartyUserId: t.counterpartyUserId,
      refundOf: t.refundOf,
    };
    return this.withKey(
      t.tenantId,
      idem,
      () => this.recordInOneStatement(idem, t),
      (existing) => this.sameOrReused(existing, wanted),
    );
  }

  /**
   * One call of `pbw_ledger_record_with_events` (migration 0012: `pbw_ledger_record` of 0008, then
   * the `transaction.created` event into the outbox), its own transaction: the same steps as
   * `apply`, in one round trip and one commit.
   */
  private async recordInOneStatement(idem: LedgerIdempotency | null, t: Transaction): Promise<Transaction> {
    const postings = inLockOrder(t.tenantId, postingsOf(t));
    const [result] = await rows<{ outcome: string }>(
      this.knex,
      'SELECT pbw_ledger_record_with_events($1::jsonb, $2::text[], $3::text[], $4::text[], $5::bigint[], $6::boolean[], $7::jsonb) AS outcome',
      [
        JSON.stringify(toRow(t, idem)),
        postings.map((p) => accountId(t.tenantId, p.account)),
        postings.map((p) => p.account.kind),
        postings.map((p) => (p.account.kind === 'USER' ? p.account.userId : null)),
        postings.map((p) => p.amount),
        postings.map((p) => p.amount < 0 && !mayGoNegative(p.account)),
        eventsJson([transactionCreated(t)]),
      ],
      'ledger.record.events',
    );
    const outcome = result?.outcome;
    if (outcome === 'ok') return t;
    if (outcome === 'short:USER') throw insufficientFunds();
    if (outcome?.startsWith('short:')) throw tenantAccountShort();
    throw new Error(`pbw_ledger_record answered ${String(outcome)}`);
  }

  /**
   * Runs `write` (one database transaction), retrying deadlocks and serialization failures. When a
   * write with the same idempotency key committed first (the unique key refused this one, or the
   * money it moved left too little for this one), returns `onDuplicate` of it.
   */
  private async withKey(
    tenantId: string,
    idem: LedgerIdempotency | null,
    write: () => Promise<Transaction>,
    onDuplicate: (existing: Transaction) => Transaction,
  ): Promise<Transaction> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        const maybeDuplicate = isUniqueViolation(err) || (err instanceof DomainError && err.reason === 'insufficient-funds');
        if (idem !== null && maybeDuplicate) {
          const existing = await this.byKey(this.knex, tenantId, idem);
          if (existing !== null) return onDuplicate(existing);
        }
        if (attempt < RETRIES && isRetryableTransactionError(err)) continue;
        throw err;
      }
    }
  }

  /**
   * Inside a refund's transaction: moves the balances in lock order, then inserts the
   * transaction (its unique idempotency key refuses a duplicate) and its entries in one statement.
   */
  private async apply(trx: Knex.Transaction, idem: LedgerIdempotency | null, t: Transaction): Promise<Transaction> {
    const postings = inLockOrder(t.tenantId, postingsOf(t));
    for (const p of postings) {
      const id = accountId(t.tenantId, p.account);
      if (p.amount < 0 && !mayGoNegative(p.account)) {
        const moved = await rows(
          trx,
          'UPDATE ledger_accounts SET balance = balance + $1 WHERE id = $2 AND balance >= $3 RETURNING id',
          [p.amount, id, -p.amount],
          'ledger.debit',
        );
        if (moved.length === 0) {
          if (p.account.kind === 'USER') throw insufficientFunds();
          throw tenantAccountShort();
        }
      } else {
        await rows(
          trx,
          `INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance`,
          [id, t.tenantId, p.account.kind, p.account.kind === 'USER' ? p.account.userId : null, t.amount.currency, p.amount, t.createdAt],
          'ledger.credit',
        );
      }
    }
    const row = toRow(t, idem);
    const columns = Object.keys(row);
    const entries = postings.map((p) => [accountId(t.tenantId, p.account), p.amount]);
    const n = columns.length;
    await rows(
      trx,
      `WITH txn AS (INSERT INTO ledger_transactions (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id, created_at)
       INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
       SELECT txn.id, e.account_id, e.amount, txn.created_at FROM txn,
         (VALUES ${entries.map((_, i) => `($${n + 2 * i + 1}::text, $${n + 2 * i + 2}::bigint)`).join(', ')}) AS e(account_id, amount)`,
      [...Object.values(row), ...entries.flat()],
      `ledger.insert.${n}.${entries.length}`,
    );
    return t;
  }

  private sameOrReused(existing: Transaction, wanted: Parameters<typeof sameRequest>[1]): Transaction {
    if (!sameRequest(existing, wanted)) throw keyReused();
    return existing;
  }

  private async byKey(db: Knex | Knex.Transaction, tenantId: string, idem: LedgerIdempotency | null): Promise<Transaction | null> {
    if (idem === null) return null;
    return this.selectOne(db, 'WHERE tenant_id = ? AND idempotency_scope = ? AND idempotency_key = ?', [tenantId, idem.scope, idem.key]);
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
