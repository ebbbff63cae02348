import type { Knex } from 'knex';
import { ambient } from './unit-of-work.knex.js';

/**
 * What every Knex store extends to reach the database: `knex` is the running unit of work's
 * transaction when there is one, else the pool, so nothing a store does inside a unit takes a
 * second connection (embedded PGlite has only one, which the unit's transaction holds: a store
 * that went around it would wait for it forever). `rawPool` is the pool itself, for what runs
 * where a unit can never be open: a transaction of the store's own when none is running, a
 * batched read across requests outside any unit.
 */
export abstract class KnexStore {
  constructor(protected readonly rawPool: Knex) {}

  /** Where statements run: the running unit of work's transaction, else the pool. */
  protected get knex(): Knex {
    return ambient(this.rawPool);
  }
}
