import type { Knex } from 'knex';
import {
  agentAccount,
  BOOKING_BOOK,
  billingOf,
  bookingAccountId,
  bookingAccountOf,
  bookingAccountOwner,
  fundingOf,
  LINE_OF_LEDGER_TYPE,
  orderMoneyOf,
  orderTransactionId,
  refundOf,
  saleOf,
  spendableShort,
  type AgentBilling,
  type BillingMode,
  type BookingPosting,
  type BookingTransaction,
  type BookingTransactionType,
} from '../../domain/billing/agent-account.js';
import type {
  AgentAccounts,
  FundingEntry,
  StatementLine,
  StatementQuery,
  StatementStream,
} from '../../domain/billing/agent-accounts.port.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { Money } from '../../domain/shared/money.js';
import { fallsBelow, lowBalance } from '../../domain/webhooks/events.js';
import { KnexStore } from './knex-store.js';
import { recordEvents } from './outbox.knex.js';
import { moneyRefusal } from './pg-errors.js';
import { jsonParam, rows } from './sql.js';

interface AccountRow {
  balance: number | string;
  currency: string;
  billing_mode: BillingMode | null;
  credit_limit: number | string;
  low_balance_alert: number | string | null;
  held: number | string;
}

/**
 * The account's row with what its pending transfers hold at $2, locked when asked: `FOR NO KEY
 * UPDATE`, the lock its writes take, which waits for them and they for it, but not for the key
 * share a hold's reference to the account takes (a stronger lock would deadlock two holds).
 */
const ACCOUNT = (lock: boolean) =>
  `SELECT a.balance, a.currency, a.billing_mode, a.credit_limit, a.low_balance_alert,
     (SELECT COALESCE(SUM(p.amount - p.captured), 0) FROM pending_transfers p
       WHERE p.account_id = a.id AND p.status = 'PENDING' AND p.expires_at > $2) AS held
   FROM ledger_accounts a WHERE a.id = $1${lock ? ' FOR NO KEY UPDATE OF a' : ''}`;

const billingOfRow = (r: AccountRow | undefined, currency: string): AgentBilling =>
  billingOf(
    {
      mode: r?.billing_mode ?? 'invoice',
      balance: Number(r?.balance ?? 0),
      held: Number(r?.held ?? 0),
      creditLimit: Number(r?.credit_limit ?? 0),
      lowBalanceAlert: r?.low_balance_alert === null || r?.low_balance_alert === undefined ? null : Number(r.low_balance_alert),
    },
    r === undefined ? currency : r.currency.trim(),
  );

/** The refusals the ledger's write and the agent triggers raise, as the domain's errors; anything else unchanged. */
const refusal = (err: unknown, currency: string): unknown => moneyRefusal(err, currency) ?? err;

/** The record `pbw_ledger_write` takes for a transaction of the booking book (no wallet event). */
const writeRecord = (t: BookingTransaction): string =>
  jsonParam({
    id: t.id,
    tenant_id: BOOKING_BOOK,
    type: t.type,
    amount: t.amount.amount,
    currency: t.amount.currency,
    user_id: t.agentId,
    counterparty_user_id: null,
    reference: t.reference,
    description: t.agentReference,
    refund_of: null,
    initiator_kind: 'machine',
    initiator_client_id: t.initiator,
    initiator_user_id: null,
    initiator_amr: null,
    initiator_act_sub: null,
    created_at: t.createdAt,
    postings: t.postings.map((p) => ({
      account_id: bookingAccountId(p.account),
      kind: p.account.kind,
      user_id: bookingAccountOwner(p.account),
      amount: p.amount,
      // A debit of an operator's payable or of revenue is conditional (it never goes below zero: the
      // sale it gives back credited it); an agent's is guarded by its CHECKs and trigger instead,
      // as it may go below zero, and funding is unbounded.
      checked: p.amount < 0 && p.account.kind !== 'AGENT' && p.account.kind !== 'FUNDING',
    })),
    events: null,
  });

/** How many statement lines one read brings: the most a statement ever holds in memory. */
const STATEMENT_BATCH = 2000;

interface LineRow {
  transaction_id: string;
  created_at: Date | string;
  /** The time as PostgreSQL writes it, to the microsecond: the keyset position (a Date keeps only milliseconds). */
  position: string;
  /** The order entries were applied in, within one instant. */
  seq: number | string;
  amount: number | string;
  /** The account's balance once this entry was applied. */
  balance_after: number | string;
  type: BookingTransactionType;
  reference: string | null;
  description: string | null;
}

/**
 * The agents' accounts in PostgreSQL, in the ledger's tables (the booking book) and its one
 * write (`pbw_ledger_write`); holds are pending transfers owned by their order. The database
 * decides every refusal under the account's row lock: `pbw_agent_hold_covered` for a hold,
 * `pbw_agent_account_spendable` for a debit (PB012, the spendable in DETAIL), the row's CHECKs
 * behind them. An order's hold and its sale are decided at the commit of the transaction they
 * run in (0042, ADR 0015): the lock of a busy agent's account is then held only while one of its
 * orders commits, not across the statements and round trips of the rest of its transaction.
 * Inside a unit of work everything runs in its transaction, and the unit's commit answers the refusal.
 */
export class KnexAgentAccounts extends KnexStore implements AgentAccounts {
  async billingOf(agentId: string, currency: string, at: Date): Promise<AgentBilling> {
    // Prepared: every account read asks this.
    const [row] = await rows<AccountRow>(
      this.knex,
      ACCOUNT(false),
      [bookingAccountId(agentAccount(agentId)), at],
      'agent-accounts.billing',
    );
    return billingOfRow(row, currency);
  }

  async setBilling(agentId: string, currency: string, mode: BillingMode, creditLimit: number | null, at: Date): Promise<AgentBilling> {
    return this.inRetriedTransaction(async (trx) => {
      const row = await this.lockedAccount(trx, agentId, currency, at);
      const limit = creditLimit ?? Number(row.credit_limit);
      const next = billingOfRow({ ...row, billing_mode: mode, credit_limit: limit }, currency);
      if (mode === 'prepaid' && next.spendable.amount < 0) throw spendableShort(next.spendable);
      await rows(trx, 'UPDATE ledger_accounts SET billing_mode = $2, credit_limit = $3 WHERE id = $1', [
        bookingAccountId(agentAccount(agentId)),
        mode,
        limit,
      ]);
      await this.tellIfLow(trx, agentId, billingOfRow(row, currency), next, at);
      return next;
    });
  }

  async setLowBalanceAlert(agentId: string, currency: string, amount: number | null, at: Date): Promise<AgentBilling> {
    return this.inRetriedTransaction(async (trx) => {
      const row = await this.lockedAccount(trx, agentId, currency, at);
      await rows(trx, 'UPDATE ledger_accounts SET low_balance_alert = $2 WHERE id = $1', [bookingAccountId(agentAccount(agentId)), amount]);
      return billingOfRow({ ...row, low_balance_alert: amount }, currency);
    });
  }

  async fund(e: FundingEntry): Promise<AgentBilling> {
    return this.inRetriedTransaction(async (trx) => {
      await this.write(trx, fundingOf(e));
      const [row] = await rows<AccountRow>(trx, ACCOUNT(false), [bookingAccountId(agentAccount(e.agentId)), e.at]);
      return billingOfRow(row, e.amount.currency);
    });
  }

  /** The transaction that follows decides; nothing is stored if it refuses. */
  async precheck(): Promise<void> {}

  async follow(previous: OrderStatus | null, order: Order, at: Date, by: string): Promise<void> {
    const move = orderMoneyOf(previous, order);
    if (move === null) return;
    const db = this.knex;
    switch (move.kind) {
      case 'hold':
        // A transaction of its own outside a unit of work: the alert's figures are read before its commit decides.
        return this.decidedAtCommit(order.price.currency, async (trx) => {
          const [inserted] = await this.guarded(order.price.currency, () =>
            rows<{ alert: number | string | null }>(
              trx,
              // The alert as the statement began: an account this hold created has none.
              `INSERT INTO pending_transfers (id, tenant_id, account_id, account_kind, user_id, shard, owner_kind, owner_id,
                 reference, amount, currency, captured, status, expires_at, created_at, resolved_at)
               VALUES ($1, $2, $3, 'AGENT', $4, NULL, 'order', $5, $5, $6, $7, 0, 'PENDING', $8, $9, NULL)
               RETURNING (SELECT low_balance_alert FROM ledger_accounts WHERE id = account_id) AS alert`,
              [
                `hld_${order.id}`,
                BOOKING_BOOK,
                bookingAccountId(agentAccount(order.agentId)),
                order.agentId,
                order.id,
                order.price.amount,
                order.price.currency,
                move.expiresAt,
                at,
              ],
              'agent-accounts.hold',
            ),
          );
          if (inserted?.alert !== null && inserted?.alert !== undefined) await this.tellIfFell(trx, order.agentId, order.price, 0, at);
        });
      case 'charge':
        return this.decidedAtCommit(order.price.currency, async (trx) => {
          const alert = await this.writeAtCommit(trx, saleOf(order, by, at));
          // The sale is written at the commit: the figures after it are those before, less its price.
          if (alert !== null) await this.tellIfFell(trx, order.agentId, order.price, order.price.amount, at);
        });
      case 'capture':
        // What the hold held stops counting as it is captured, in the statement that queues the
        // sale: the debit at the commit then takes held money.
        await this.writeAtCommit(db, saleOf(order, by, at), { orderId: order.id, at });
        return;
      case 'extend':
        await rows(db, `UPDATE pending_transfers SET expires_at = $2 WHERE owner_kind = 'order' AND owner_id = $1 AND status = 'PENDING'`, [
          order.id,
          move.expiresAt,
        ]);
        return;
      case 'void':
        await rows(
          db,
          `UPDATE pending_transfers SET status = 'VOIDED', resolved_at = $2 WHERE owner_kind = 'order' AND owner_id = $1 AND status = 'PENDING'`,
          [order.id, at],
        );
        return;
      case 'lapse':
        // At its deadline; or at `at`, when the deadline was brought forward to now (the sandbox's `…/expire`).
        await rows(
          db,
          `UPDATE pending_transfers SET status = 'EXPIRED', expires_at = LEAST(expires_at, $2), resolved_at = LEAST(expires_at, $2)
           WHERE owner_kind = 'order' AND owner_id = $1 AND status = 'PENDING'`,
          [order.id, at],
        );
        return;
      case 'refund': {
        const sale = await rows<{ account_id: string; amount: number | string }>(
          db,
          'SELECT account_id, amount FROM ledger_entries WHERE transaction_id = $1',
          [orderTransactionId(order.id, 'BOOKING')],
        );
        // An order confirmed before accounts existed was never charged: there is nothing to give back.
        if (sale.length === 0) return;
        const postings: BookingPosting[] = sale.map((r) => ({ account: bookingAccountOf(r.account_id)!, amount: Number(r.amount) }));
        for (const t of refundOf({ postings, amount: order.price }, order, move.fee, by, at)) await this.write(db, t);
        return;
      }
    }
  }

  async releaseHolds(orderIds: readonly string[], at: Date): Promise<void> {
    if (orderIds.length === 0) return;
    await rows(
      this.knex,
      `UPDATE pending_transfers SET status = 'VOIDED', resolved_at = $2
       WHERE owner_kind = 'order' AND owner_id = ANY ($1::text[]) AND status = 'PENDING'`,
      [orderIds, at],
    );
  }

  async recordLapses(at: Date, limit: number): Promise<number> {
    const found = await rows<{ id: string }>(
      this.knex,
      `UPDATE pending_transfers SET status = 'EXPIRED', resolved_at = expires_at
       WHERE id IN (SELECT id FROM pending_transfers WHERE owner_kind = 'order' AND status = 'PENDING' AND expires_at <= $1
                    ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         AND status = 'PENDING'
       RETURNING id`,
      [at, limit],
    );
    return found.length;
  }

  async statement(query: StatementQuery, currency: string): Promise<StatementStream> {
    const account = bookingAccountId(
      'agentId' in query.account
        ? agentAccount(query.account.agentId)
        : { kind: 'OPERATOR_PAYABLE', operatorCode: query.account.operatorCode, livemode: query.account.livemode },
    );
    const [head] = await rows<{ currency: string | null; opening: number | string }>(
      this.knex,
      `SELECT (SELECT currency FROM ledger_accounts WHERE id = $1) AS currency,
         (SELECT balance_after FROM ledger_entries WHERE account_id = $1 AND created_at < $2
          ORDER BY created_at DESC, seq DESC LIMIT 1) AS opening`,
      [account, query.from],
    );
    const cur = head?.currency?.trim() ?? currency;
    const opening = Number(head?.opening ?? 0);
    const db = this.knex;
    async function* lines(): AsyncGenerator<StatementLine> {
      let after: { at: string; seq: string } | null = null;
      for (;;) {
        const batch: LineRow[] = await rows<LineRow>(
          db,
          `SELECT e.transaction_id, e.created_at, e.created_at::text AS position, e.seq, e.amount, e.balance_after,
             t.type, t.reference, t.description
           FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
           WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3
             AND ($4::timestamptz IS NULL OR (e.created_at, e.seq) > ($4::timestamptz, $5::bigint))
           ORDER BY e.created_at, e.seq LIMIT $6`,
          [account, query.from, query.to, after?.at ?? null, after?.seq ?? '0', STATEMENT_BATCH],
          'agent-accounts.statement',
        );
        for (const r of batch) {
          const amount = Number(r.amount);
          const balance = Number(r.balance_after);
          const type = LINE_OF_LEDGER_TYPE[r.type];
          yield {
            at: new Date(r.created_at),
            type,
            orderId: type === 'FUNDING' || type === 'ADJUSTMENT' ? null : r.reference,
            agentReference: r.description,
            amount: { amount, currency: cur },
            balance: { amount: balance, currency: cur },
            transactionId: r.transaction_id,
          };
        }
        if (batch.length < STATEMENT_BATCH) return;
        const last = batch[batch.length - 1]!;
        after = { at: last.position, seq: String(last.seq) };
      }
    }
    return { currency: cur, opening: { amount: opening, currency: cur }, lines: lines() };
  }

  /** The agent's account row, created (invoice) when missing, locked, with what it holds at `at`. */
  private async lockedAccount(trx: Knex.Transaction, agentId: string, currency: string, at: Date): Promise<AccountRow> {
    const id = bookingAccountId(agentAccount(agentId));
    await rows(
      trx,
      `INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at, billing_mode)
       VALUES ($1, $2, 'AGENT', $3, $4, 0, $5, 'invoice') ON CONFLICT (id) DO NOTHING`,
      [id, BOOKING_BOOK, agentId, currency, at],
    );
    const [row] = await rows<AccountRow>(trx, ACCOUNT(true), [id, at]);
    return row!;
  }

  /**
   * Tells the agent when this spend of `spent` takes its spendable below its alert. The account is
   * locked here, so that the figures are exact: an agent with an alert waits for its account from
   * this statement on, not only at the commit. `unapplied` is what of the spend its figures do not
   * show yet (a sale written at the commit).
   */
  private async tellIfFell(trx: Knex.Transaction, agentId: string, spent: Money, unapplied: number, at: Date): Promise<void> {
    const [row] = await rows<AccountRow>(trx, ACCOUNT(true), [bookingAccountId(agentAccount(agentId)), at]);
    if (row === undefined || row.low_balance_alert === null) return;
    const after = billingOfRow({ ...row, balance: Number(row.balance) - unapplied }, spent.currency);
    if (fallsBelow(Number(row.low_balance_alert), after.spendable.amount + spent.amount, after.spendable.amount))
      await recordEvents(trx, [lowBalance(agentId, after, at)]);
  }

  private async tellIfLow(
    db: Knex | Knex.Transaction,
    agentId: string,
    before: AgentBilling,
    after: AgentBilling,
    at: Date,
  ): Promise<void> {
    if (fallsBelow(after.lowBalanceAlert?.amount ?? null, before.spendable.amount, after.spendable.amount))
      await recordEvents(db, [lowBalance(agentId, after, at)]);
  }

  /**
   * Queues `t` to be written at the commit of the transaction it runs in (`ledger_writes_at_commit`,
   * 0042), so that the accounts it moves are locked only while that transaction commits; with
   * `captures`, the order's hold is captured in the same statement. Answers the agent's
   * low-balance alert as it stands (null: none).
   */
  private async writeAtCommit(
    db: Knex | Knex.Transaction,
    t: BookingTransaction,
    captures?: { readonly orderId: string; readonly at: Date },
  ): Promise<number | null> {
    const capture =
      captures === undefined
        ? ''
        : `WITH captured AS (UPDATE pending_transfers SET captured = amount, status = 'CAPTURED', resolved_at = $5
             WHERE owner_kind = 'order' AND owner_id = $4 AND status IN ('PENDING', 'EXPIRED'))
           `;
    const [queued] = await this.guarded(t.amount.currency, () =>
      rows<{ alert: number | string | null }>(
        db,
        `${capture}INSERT INTO ledger_writes_at_commit (id, record) VALUES ($1, $2::jsonb)
         RETURNING (SELECT low_balance_alert FROM ledger_accounts WHERE id = $3) AS alert`,
        [
          t.id,
          writeRecord(t),
          bookingAccountId(agentAccount(t.agentId)),
          ...(captures === undefined ? [] : [captures.orderId, captures.at]),
        ],
        captures === undefined ? 'agent-accounts.write-at-commit' : 'agent-accounts.capture-at-commit',
      ),
    );
    return queued?.alert === null || queued?.alert === undefined ? null : Number(queued.alert);
  }

  /**
   * Runs `work` in the unit of work's transaction, or in one of its own whose commit's refusal
   * (what the database decides at the commit: the cover of a hold, a sale) is the domain's error.
   */
  private decidedAtCommit(currency: string, work: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
    return this.guarded(currency, () => this.inTransaction(work));
  }

  private async write(db: Knex | Knex.Transaction, t: BookingTransaction): Promise<void> {
    await this.guarded(t.amount.currency, () =>
      rows(db, 'SELECT pbw_ledger_write($1::jsonb) AS outcome', [writeRecord(t)], 'agent-accounts.write'),
    );
  }

  private async guarded<T>(currency: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw refusal(err, currency);
    }
  }
}
