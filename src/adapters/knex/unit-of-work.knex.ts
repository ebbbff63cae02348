import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';
import { isRetryableTransactionError } from './pg-errors.js';
import { rows } from './sql.js';

/**
 * A write held until its unit of work ends: a call of one of the schema's functions, sent with
 * the unit's other held writes in one statement. Its arguments may still be filled in until then
 * (an idempotency key's answer is known only after the write it answers).
 */
export interface HeldCall {
  /** The function, e.g. `pbw_ledger_write`. */
  readonly fn: string;
  readonly args: unknown[];
  /** The SQL type of each argument, or null where PostgreSQL infers it. */
  readonly types: readonly (string | null)[];
  /** This call's failure as the error to throw (a domain error, or `mustRunInTransaction`), or null when not its own. */
  readonly refusal?: (err: unknown) => unknown;
  /** False while the call still lacks arguments; a unit that ends with such a call starts over in a transaction. */
  readonly ready?: () => boolean;
}

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

/** The unit of work running in the current async context. */
const current = new AsyncLocalStorage<Unit>();

const RETRIES = 3;

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
 * else on `pool`. Every store a unit of work may reach asks here, so that nothing inside one
 * takes a second connection: embedded PGlite has only one, which the unit's transaction holds.
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

  /**
   * `holdWrites: false` runs every unit in a transaction from its start: an idempotency key is
   * then claimed when the request arrives (a duplicate waits from that moment, and `work` never
   * runs for a key already stored), at the cost of the round trips of a transaction.
   */
  constructor(
    private readonly pool: Knex,
    options: { holdWrites?: boolean } = {},
  ) {
    this.holdWrites = options.holdWrites ?? true;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (openUnit() !== null) return work();
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
    const { text, values, name } = statementOf(held);
    for (let attempt = 1; ; attempt++) {
      try {
        await rows(this.pool, text, values, name);
        return;
      } catch (err) {
        if (attempt < RETRIES && isRetryableTransactionError(err)) continue;
        for (const call of held) {
          const refused = call.refusal?.(err);
          if (refused !== undefined && refused !== null && refused !== err) throw refused;
        }
        throw err;
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
