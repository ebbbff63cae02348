import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';
import { moneyRefusal } from './pg-errors.js';

/**
 * The unit of work running in the current async context: its transaction. On Node.js 20 an
 * enabled AsyncLocalStorage keeps promise hooks on for every promise of the process, units or not
 * (a token request cost a third more CPU once any unit had run): it is disabled whenever no unit
 * runs, and `run` enables it again. A context that outlives its unit finds the transaction
 * completed, or nothing: either way outside any unit.
 */
const current = new AsyncLocalStorage<Knex.Transaction>();

/** Units running in this process (a nested `run` joins its outer unit and is not counted). */
let running = 0;

/** The running unit of work's transaction, if any (a unit whose transaction ended is none). */
export const ambientTransaction = (): Knex.Transaction | null => {
  const trx = current.getStore();
  return trx === undefined || trx.isCompleted() ? null : trx;
};

/**
 * Where a store's statement runs: in the running unit of work's transaction when there is one,
 * else on `pool`. Every store asks here, through `KnexStore` (knex-store.ts), so that nothing
 * inside a unit takes a second connection: embedded PGlite has only one, which the unit's
 * transaction holds.
 */
export const ambient = (pool: Knex): Knex => ambientTransaction() ?? pool;

/**
 * Units of work on PostgreSQL (or PGlite): `work` runs once, in one transaction, which commits
 * when it resolves and rolls back when it throws. The transaction is carried in the async
 * context, so the stores write through it without being given it. A nested `run` joins the
 * outer unit. Nothing is retried here: a deadlock or serialization failure fails the unit, and
 * the caller (the client, under its Idempotency-Key) decides. What the database decides at the
 * commit (an agent's money, 0042) fails the unit as the domain's refusal (`moneyRefusal`).
 */
export class KnexUnitOfWork implements UnitOfWork {
  constructor(private readonly pool: Knex) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (ambientTransaction() !== null) return work();
    running += 1;
    try {
      return await this.pool.transaction((trx) => current.run(trx, work));
    } catch (err) {
      throw moneyRefusal(err) ?? err;
    } finally {
      running -= 1;
      if (running === 0) current.disable();
    }
  }
}
