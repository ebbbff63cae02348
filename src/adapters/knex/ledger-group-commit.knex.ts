import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { OneStatementWrites, PreparedWrite } from '../../application/one-statement-writes.port.js';
import type { IdempotencyRequest, StoredResponse } from '../../domain/shared/idempotency.port.js';
import { paymentRecord, topUpRecord, transferRecord } from '../../domain/wallet/ledger.js';
import type { Ledger, NewPayment, NewRefund, NewTopUp, NewTransfer, StatementLine } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { keyRecord } from './idempotency.knex.js';
import { ledgerRefusal, writeRecord } from './ledger.knex.js';
import { isRetryableTransactionError, sqlState, TRANSACTION_ATTEMPTS } from './pg-errors.js';
import { rows } from './sql.js';
import { ambientTransaction } from './unit-of-work.knex.js';

/** Most writes in one statement: each is a subtransaction, and many past 64 slow every snapshot. */
const BATCH_MAX = 32;

interface Waiting {
  /** One `{write, key}` record of `pbw_ledger_write_batch`'s array. */
  readonly record: string;
  attempts: number;
  readonly done: (err?: unknown) => void;
}

/**
 * Ledger writes of concurrent requests, sent together: while a statement is out, the writes that
 * arrive meanwhile wait, and go together in the next one, one commit for all (as TigerBeetle
 * batches transfers, and as group commit shares a WAL flush). Nothing waits for a batch to fill:
 * a write that arrives while no statement is out goes at once, alone or with those waiting.
 *
 * Each write is a call of `pbw_ledger_write_attempt` inside `pbw_ledger_write_batch`
 * (schema/functions), a subtransaction of its own: a refusal undoes only that write's rows and
 * comes back to its caller alone, as the error a statement of its own would have raised; a write
 * that met a deadlock goes again in a later statement. A caller hears of its write only after the
 * statement holding it has committed.
 *
 * One statement out at a time, per instance: a batch holds the row locks of all its writes until
 * it commits, and two at once take tenant shards and users in orders that deadlock (each waiting
 * a second for PostgreSQL's deadlock check); two at once that never share a row are each half the
 * size, and cost the service and PostgreSQL more CPU than waiting saved (bench/results.md).
 */
export class LedgerWriteBatches {
  private readonly waiting: Waiting[] = [];
  private inFlight = false;

  constructor(private readonly pool: Knex) {}

  /** Writes `write` (the record `pbw_ledger_write` takes), with `key` (the key's record, stored done) when it has one. */
  send(write: string, key: string | null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        record: `{"write":${write},"key":${key ?? 'null'}}`,
        attempts: 1,
        done: (err) => (err === undefined ? resolve() : reject(err)),
      });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, BATCH_MAX);
    this.inFlight = true;
    void this.sendBatch(batch).finally(() => {
      this.inFlight = false;
      this.pump();
    });
  }

  private async sendBatch(batch: readonly Waiting[]): Promise<void> {
    let outcomes: Array<{ unit: number; failure: string | null }>;
    try {
      outcomes = await rows(
        this.pool,
        'SELECT unit, failure FROM pbw_ledger_write_batch($1::jsonb)',
        [`[${batch.map((w) => w.record).join(',')}]`],
        'ledger.write-batch',
      );
    } catch (err) {
      // The statement itself failed (its arguments, its connection, its commit): every write in it fails so.
      for (const w of batch) w.done(err);
      return;
    }
    const failures = new Map(outcomes.map((o) => [Number(o.unit), o.failure]));
    for (const [i, w] of batch.entries()) {
      if (!failures.has(i)) {
        w.done(new Error('a batched write came back without its outcome'));
        continue;
      }
      const failure = failures.get(i);
      if (failure === null || failure === undefined) {
        w.done();
        continue;
      }
      const err = databaseError(failure);
      if (isRetryableTransactionError(err) && w.attempts < TRANSACTION_ATTEMPTS) {
        w.attempts += 1;
        this.waiting.push(w);
        continue;
      }
      w.done(err);
    }
  }
}

/** A failure a batched write answered, as the driver's error for it would read. */
function databaseError(failure: string): Error {
  const f = JSON.parse(failure) as { code: string; constraint: string | null; detail: string | null; message: string };
  return Object.assign(new Error(f.message), {
    code: f.code,
    ...(f.constraint === null ? {} : { constraint: f.constraint }),
    ...(f.detail === null ? {} : { detail: f.detail }),
  });
}

/** Where `OneStatementWrites.prepare` keeps the write its work makes. */
interface Preparing {
  write: Transaction | null;
}

/**
 * The `prepare` running in the current async context. Disabled whenever none runs (as the unit
 * of work's context is, for the same cost of promise hooks on Node.js 20).
 */
const preparing = new AsyncLocalStorage<Preparing>();
let preparingCount = 0;

/** A key whose record failed because another request has stored or holds it (after the lock wait). */
const isKeyTaken = (err: unknown): boolean => {
  const state = sqlState(err);
  return (state === '23505' && (err as { constraint?: string }).constraint === 'idempotency_keys_pkey') || state === '55P03';
};

/**
 * The opt-in group-commit ledger (ADR 0010): a decorator over the ledger port whose top-ups,
 * payments and transfers made outside a unit of work go through `LedgerWriteBatches`, one
 * statement and one commit shared with the other requests' writes of the moment. Inside a unit of
 * work they are the inner ledger's, in the unit's transaction; refunds and every read are the
 * inner ledger's always. The domain's checks run first, as the inner ledger's do.
 *
 * With `oneStatementWrites()` it also makes a keyed write one statement: the write its work makes
 * is kept, and sent with the key's answer (`pbw_ledger_write_attempt` stores the key first, so a
 * key another request has leaves nothing written).
 */
export class GroupCommitLedger implements Ledger {
  private readonly batches: LedgerWriteBatches;

  /** `pool` is where the batches go: a connection that no unit of work holds. */
  constructor(
    private readonly inner: Ledger,
    pool: Knex,
  ) {
    this.batches = new LedgerWriteBatches(pool);
  }

  topUp(e: NewTopUp): Promise<Transaction> {
    return this.write(
      () => this.inner.topUp(e),
      () => topUpRecord(e),
    );
  }

  pay(e: NewPayment): Promise<Transaction> {
    return this.write(
      () => this.inner.pay(e),
      () => paymentRecord(e),
    );
  }

  transfer(e: NewTransfer): Promise<Transaction> {
    return this.write(
      () => this.inner.transfer(e),
      () => transferRecord(e),
    );
  }

  refund(e: NewRefund): Promise<Transaction> {
    if (preparing.getStore() !== undefined) throw new Error('a refund is made in a unit of work, never prepared for one statement');
    return this.inner.refund(e);
  }

  balanceOf(...read: Parameters<Ledger['balanceOf']>): Promise<number> {
    return this.inner.balanceOf(...read);
  }

  balancesOf(...read: Parameters<Ledger['balancesOf']>): Promise<ReadonlyMap<string, number>> {
    return this.inner.balancesOf(...read);
  }

  balanceBefore(...read: Parameters<Ledger['balanceBefore']>): Promise<number> {
    return this.inner.balanceBefore(...read);
  }

  statementLines(...read: Parameters<Ledger['statementLines']>): Promise<StatementLine[]> {
    return this.inner.statementLines(...read);
  }

  /** Keyed writes as one statement each, through this ledger's batches. */
  oneStatementWrites(): OneStatementWrites {
    return {
      prepare: async <T>(work: () => Promise<T>) => {
        const state: Preparing = { write: null };
        preparingCount += 1;
        let value: T;
        try {
          value = await preparing.run(state, work);
        } finally {
          preparingCount -= 1;
          if (preparingCount === 0) preparing.disable();
        }
        const t = state.write;
        return { value, write: t === null ? null : this.prepared(t) };
      },
    };
  }

  private prepared(t: Transaction): PreparedWrite {
    return {
      commitWith: async (request: IdempotencyRequest, response: StoredResponse, times) => {
        const key = keyRecord({ request, claimedAt: times.claimedAt, answer: { response, completedAt: times.completedAt } });
        try {
          await this.batches.send(writeRecord(t), key);
          return 'written';
        } catch (err) {
          if (isKeyTaken(err)) return 'key-taken';
          throw ledgerRefusal(err, t.amount.currency);
        }
      },
    };
  }

  private async write(inner: () => Promise<Transaction>, record: () => Transaction): Promise<Transaction> {
    if (ambientTransaction() !== null) return inner();
    const t = record();
    const state = preparing.getStore();
    if (state !== undefined) {
      if (state.write !== null) throw new Error('a write prepared for one statement makes one ledger write');
      state.write = t;
      return t;
    }
    try {
      await this.batches.send(writeRecord(t), null);
    } catch (err) {
      throw ledgerRefusal(err, t.amount.currency);
    }
    return t;
  }
}
