import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';
import { isRetryableTransactionError, TRANSACTION_ATTEMPTS } from './pg-errors.js';
import { rows } from './sql.js';

/**
 * A write held until its unit of work ends: a call of one of the schema's functions, sent with
 * the unit's other held writes in one statement. Its arguments may still be filled in until then
 * (an idempotency key's answer is known only after the write it answers).
 */
export interface HeldCall {
  /** The function, e.g. `pbw_ledger_write`. */
  readonly fn: string;
  readonly args: readonly unknown[];
  /** The SQL type of each argument, or null where PostgreSQL infers it. */
  readonly types: readonly (string | null)[];
  /** This call's failure as the error to throw (a domain error, or `mustRunInTransaction`), or null when not its own. */
  readonly refusal?: (err: unknown) => unknown;
  /** False while the call still lacks arguments; a unit that ends with such a call starts over in a transaction. */
  readonly ready?: () => boolean;
}

/**
 * A unit's held writes as one call that may share a statement and a commit with other units'
 * (see `WriteBatches`). The function runs the writes in a subtransaction of its own and returns
 * NULL when they are made, or else undoes them and returns the failure as JSON (`code`,
 * `constraint`, `detail`, `message`, as the driver would have reported them).
 */
export interface BatchedCall {
  readonly fn: string;
  readonly args: readonly unknown[];
  /** The SQL type of each argument, or null where PostgreSQL infers it. */
  readonly types: readonly (string | null)[];
  /**
   * A function that makes many calls of `fn` at once, when a batch holds nothing else: it takes
   * a JSON array of their argument lists, in the batch's order, and answers a row per call
   * (`unit`, its index; `failure`, as `fn` answers), as the calls one after another would.
   */
  readonly many?: string;
  /** This call as one element of `many`'s JSON array (a JSON object, by name). */
  readonly record?: string;
}

/** A unit's held writes as one batchable call, or null when they are sent in a statement of their own. */
export type BatchForm = (held: readonly HeldCall[]) => BatchedCall | null;

/** A unit of work: a database transaction, or (until a statement needs one) the writes it holds. */
interface Unit {
  trx: Knex.Transaction | null;
  readonly held: HeldCall[];
  /** Set when something inside asked for the transaction that a holding unit does not have. */
  needsTransaction: boolean;
  /** Set when the unit has ended: what still runs in its context afterwards is outside any unit. */
  ended: boolean;
}

/** Thrown inside a holding unit when a statement needs its transaction: the unit starts over with one. */
class NeedsTransaction extends Error {
  constructor() {
    super('this statement runs in the unit of work’s transaction: the unit starts over with one');
  }
}

/** The error a held call's `refusal` answers with when its failure means "start over in a transaction". */
export const mustRunInTransaction = (): Error => new NeedsTransaction();

/**
 * The unit of work running in the current async context. On Node.js 20 an enabled
 * AsyncLocalStorage keeps promise hooks on for every promise of the process, units or not (a
 * token request cost a third more CPU once any unit had run): it is disabled whenever no unit
 * runs, and `run` enables it again. A context that outlives its unit finds the unit ended (or
 * its transaction completed), or nothing, either way outside any unit.
 */
const current = new AsyncLocalStorage<Unit>();

/** Units running in this process (a nested `run` joins its outer unit and is not counted). */
let running = 0;

/** The open unit in this context, if any (a unit whose transaction ended is none). */
const openUnit = (): Unit | null => {
  const unit = current.getStore();
  if (unit === undefined || unit.ended) return null;
  return unit.trx !== null && unit.trx.isCompleted() ? null : unit;
};

/**
 * The running unit of work's transaction, if any. Inside a unit that holds its writes (and so
 * has no transaction yet) the caller's statement needs one: the unit starts over in a transaction.
 */
export const ambientTransaction = (): Knex.Transaction | null => {
  const unit = openUnit();
  if (unit === null) return null;
  if (unit.trx === null) {
    unit.needsTransaction = true;
    throw new NeedsTransaction();
  }
  return unit.trx;
};

/**
 * Where a store's statement runs: in the running unit of work's transaction when there is one,
 * else on `pool`. Every store asks here, through `KnexStore` (knex-store.ts), so that nothing
 * inside a unit takes a second connection: embedded PGlite has only one, which the unit's
 * transaction holds.
 */
export const ambient = (pool: Knex): Knex => ambientTransaction() ?? pool;

/**
 * Where a write that can wait goes: the running unit's held writes when it holds them (the write
 * is sent when the unit ends, and the function returns true), else nowhere (false: the caller
 * runs it now, on `ambient`).
 */
export const hold = (call: HeldCall): boolean => {
  const unit = openUnit();
  if (unit === null || unit.trx !== null) return false;
  unit.held.push(call);
  return true;
};

/**
 * Units of work on PostgreSQL (or PGlite), carried in the async context: the stores write
 * through them without being given them. A nested `run` joins the outer unit.
 *
 * A unit starts without a transaction. Writes that can wait (`hold`: the ledger's write, an
 * idempotency key's claim and stored answer) are held, and sent when the unit ends as one
 * statement: one round trip and one commit, atomic as a transaction is, each call after the one
 * before it. The first statement that needs the transaction (a read in it, a locking read, any
 * other write) makes the unit start over from the beginning in a transaction, as units always
 * ran before; nothing of the first start reached the database. So a payment with an
 * Idempotency-Key costs one statement, and an order costs what it did.
 */
export class KnexUnitOfWork implements UnitOfWork {
  private readonly holdWrites: boolean;
  private readonly batchForm: BatchForm | null;
  private readonly batches: WriteBatches;

  /**
   * `holdWrites: false` runs every unit in a transaction from its start: an idempotency key is
   * then claimed when the request arrives (a duplicate waits from that moment, and `work` never
   * runs for a key already stored), at the cost of the round trips of a transaction.
   * `batch` says which units' held writes can share a statement and a commit with other units'
   * (`WriteBatches`); without it each unit's go in a statement of their own.
   */
  constructor(
    private readonly pool: Knex,
    options: { holdWrites?: boolean; batch?: BatchForm } = {},
  ) {
    this.holdWrites = options.holdWrites ?? true;
    this.batchForm = options.batch ?? null;
    this.batches = new WriteBatches(pool);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (openUnit() !== null) return work();
    running += 1;
    try {
      return await this.runUnit(work);
    } finally {
      running -= 1;
      if (running === 0) current.disable();
    }
  }

  private async runUnit<T>(work: () => Promise<T>): Promise<T> {
    if (!this.holdWrites) return this.inTransaction(work);
    const unit: Unit = { trx: null, held: [], needsTransaction: false, ended: false };
    try {
      const result = await current.run(unit, work);
      unit.ended = true;
      if (!unit.needsTransaction && unit.held.every((call) => call.ready?.() ?? true)) {
        await this.send(unit.held);
        return result;
      }
    } catch (err) {
      unit.ended = true;
      if (!(err instanceof NeedsTransaction) && !unit.needsTransaction) throw err;
    }
    return this.inTransaction(work);
  }

  private inTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.pool.transaction((trx) => current.run({ trx, held: [], needsTransaction: false, ended: false }, work));
  }

  /** The held calls in one statement, in the order they were held; retried on a deadlock or serialization failure. */
  private async send(held: readonly HeldCall[]): Promise<void> {
    if (held.length === 0) return;
    const batched = this.batchForm?.(held) ?? null;
    if (batched !== null) return this.batches.send(held, batched);
    const { text, values, name } = statementOf(held);
    for (let attempt = 1; ; attempt++) {
      try {
        await rows(this.pool, text, values, name);
        return;
      } catch (err) {
        if (attempt < TRANSACTION_ATTEMPTS && isRetryableTransactionError(err)) continue;
        throw refusalOf(held, err);
      }
    }
  }
}

/**
 * One statement calling each function in turn: each call reads a row of the one before it
 * (materialized), so PostgreSQL makes them in order, and a failure of any undoes them all.
 */
function statementOf(held: readonly HeldCall[]): { text: string; values: unknown[]; name: string } {
  const values: unknown[] = [];
  const calls = held.map((call) => {
    const params = call.args.map((arg, i) => {
      values.push(arg);
      const type = call.types[i];
      return type === null || type === undefined ? `$${values.length}` : `$${values.length}::${type}`;
    });
    return `${call.fn}(${params.join(', ')})`;
  });
  const name = `unit:${held.map((c) => `${c.fn}/${c.args.length}`).join('+')}`;
  if (calls.length === 1) return { text: `SELECT ${calls[0]} AS outcome`, values, name };
  const steps = calls.map((call, i) =>
    i === 0 ? `s0 AS MATERIALIZED (SELECT ${call} AS outcome)` : `s${i} AS MATERIALIZED (SELECT ${call} AS outcome FROM s${i - 1})`,
  );
  return { text: `WITH ${steps.join(', ')} SELECT outcome FROM s${calls.length - 1}`, values, name };
}

/** A failure of held calls as the first of them that claims it answers it, else as it is. */
function refusalOf(held: readonly HeldCall[], err: unknown): unknown {
  for (const call of held) {
    const refused = call.refusal?.(err);
    if (refused !== undefined && refused !== null && refused !== err) return refused;
  }
  return err;
}

interface Waiting {
  readonly held: readonly HeldCall[];
  readonly call: BatchedCall;
  attempts: number;
  readonly done: (err?: unknown) => void;
}

/** Most units' writes in one statement: each is a subtransaction, and many past 64 slow every snapshot. */
const BATCH_MAX = 32;
/**
 * Statements of batched writes out at once, per instance: one. A batch holds the row locks of all
 * its writes until it commits; two at once take tenant shards and users in orders that deadlock
 * (each waiting a second for PostgreSQL's deadlock check). Two at once whose units never share a
 * row do not deadlock, but then each batch is half the size, and a payment cost the service and
 * PostgreSQL more CPU than one batch at a time saved in waiting (measured, bench/results.md).
 */
const BATCHES_IN_FLIGHT = 1;

/**
 * Held writes of concurrent units of work, sent together: while a statement is out, the units
 * that end meanwhile wait, and go together in the next statement, one commit for all (as
 * TigerBeetle batches transfers, and as group commit shares a WAL flush). Each unit's writes are
 * a subtransaction of their own (`BatchedCall`): a refusal undoes only that unit's rows, and
 * comes back to that unit alone, as the error a statement of its own would have raised. A unit
 * whose writes met a deadlock goes again in a later statement. Units whose calls name one `many`
 * function go as one call of it. Nothing waits for a batch to
 * fill: a unit that ends while no statement is out goes at once, alone or with those waiting. A
 * unit's answer is sent only after the statement holding its writes has committed.
 */
class WriteBatches {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly pool: Knex) {}

  send(held: readonly HeldCall[], call: BatchedCall): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ held, call, attempts: 1, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < BATCHES_IN_FLIGHT && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, BATCH_MAX);
      this.inFlight += 1;
      void this.sendBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private async sendBatch(batch: readonly Waiting[]): Promise<void> {
    let outcomes: Array<{ unit: number; failure: string | null }>;
    try {
      const { text, name, values } = this.statement(batch);
      outcomes = await rows(this.pool, text, values, name);
    } catch (err) {
      // The statement itself failed (its arguments, its connection, its commit): every unit in it fails as it would have alone.
      for (const unit of batch) unit.done(refusalOf(unit.held, err));
      return;
    }
    const failures = new Map(outcomes.map((o) => [Number(o.unit), o.failure]));
    for (const [i, unit] of batch.entries()) {
      if (!failures.has(i)) {
        unit.done(new Error('a batched write came back without its outcome'));
        continue;
      }
      const failure = failures.get(i);
      if (failure === null || failure === undefined) {
        unit.done();
        continue;
      }
      const err = databaseError(failure);
      if (isRetryableTransactionError(err) && unit.attempts < TRANSACTION_ATTEMPTS) {
        unit.attempts += 1;
        this.waiting.push(unit);
        continue;
      }
      unit.done(refusalOf(unit.held, err));
    }
  }

  /**
   * The statement of a batch: one call of the units' `many` function when they all name the same,
   * else each unit's call, numbered, its parameters after the previous unit's.
   */
  private statement(batch: readonly Waiting[]): { text: string; name: string | undefined; values: unknown[] } {
    const many = batch[0]!.call.many;
    if (many !== undefined && batch.every((unit) => unit.call.many === many && unit.call.record !== undefined)) {
      const records = `[${batch.map((unit) => unit.call.record).join(',')}]`;
      return { text: `SELECT unit, failure FROM ${many}($1::jsonb)`, name: `batch:${many}`, values: [records] };
    }
    const values: unknown[] = [];
    for (const unit of batch) values.push(...unit.call.args);
    const shape = batch.map((unit) => `${unit.call.fn}/${unit.call.args.length}`).join('+');
    const known = BATCH_STATEMENTS.get(shape);
    if (known !== undefined) return { ...known, values };
    let n = 0;
    const text = batch
      .map((unit, i) => {
        const params = unit.call.args.map((_, a) => {
          n += 1;
          const type = unit.call.types[a];
          return type === null || type === undefined ? `$${n}` : `$${n}::${type}`;
        });
        return `SELECT ${i} AS unit, ${unit.call.fn}(${params.join(', ')}) AS failure`;
      })
      .join(' UNION ALL ');
    // Past the shapes kept, sent as text: never prepared under a name that another text may take.
    if (BATCH_STATEMENTS.size >= BATCH_SHAPES_KEPT) return { text, name: undefined, values };
    const statement = { text, name: `batch:${BATCH_STATEMENTS.size + 1}` };
    BATCH_STATEMENTS.set(shape, statement);
    return { ...statement, values };
  }
}

/**
 * Batch statements by their shape (each unit's function and argument count), made once each and
 * prepared under their name on every connection that sends them. Shapes past the first
 * BATCH_SHAPES_KEPT are sent unnamed.
 */
const BATCH_STATEMENTS = new Map<string, { text: string; name: string }>();
const BATCH_SHAPES_KEPT = 256;

/** A failure a batched call answered, as the driver's error for it would read. */
function databaseError(failure: string): Error {
  const f = JSON.parse(failure) as { code: string; constraint: string | null; detail: string | null; message: string };
  return Object.assign(new Error(f.message), {
    code: f.code,
    ...(f.constraint === null ? {} : { constraint: f.constraint }),
    ...(f.detail === null ? {} : { detail: f.detail }),
  });
}
