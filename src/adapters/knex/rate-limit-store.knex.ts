import type { Knex } from 'knex';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { KnexStore } from './knex-store.js';

interface HitRow {
  hits: number;
  reset_at: Date;
}

/**
 * An express-rate-limit store on PostgreSQL (or PGlite), so that every instance of the service
 * counts against the same window. One atomic upsert per request: the row of a window that has
 * ended starts again at 1, so no two instances can both see a fresh window.
 */
export class KnexRateLimitStore extends KnexStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;

  constructor(
    pool: Knex,
    /** Keeps each limiter's keys apart in the shared table. */
    readonly prefix: string,
  ) {
    super(pool);
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const row = (await this.knex('rate_limit_hits')
      .where('key', this.prefix + key)
      .where('reset_at', '>', this.knex.fn.now())
      .first('hits', 'reset_at')) as HitRow | undefined;
    return row === undefined ? undefined : { totalHits: row.hits, resetTime: new Date(row.reset_at) };
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const result = await this.knex.raw<{ rows: HitRow[] }>(
      `INSERT INTO rate_limit_hits AS h (key, hits, reset_at)
       VALUES (?, 1, now() + make_interval(secs => ?))
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN h.reset_at <= now() THEN 1 ELSE h.hits + 1 END,
         reset_at = CASE WHEN h.reset_at <= now() THEN EXCLUDED.reset_at ELSE h.reset_at END
       RETURNING hits, reset_at`,
      [this.prefix + key, this.windowMs / 1000],
    );
    const row = result.rows[0] as HitRow;
    return { totalHits: row.hits, resetTime: new Date(row.reset_at) };
  }

  async decrement(key: string): Promise<void> {
    await this.knex('rate_limit_hits')
      .where({ key: this.prefix + key })
      .where('reset_at', '>', this.knex.fn.now())
      .update({ hits: this.knex.raw('greatest(hits - 1, 0)') });
  }

  async resetKey(key: string): Promise<void> {
    await this.knex('rate_limit_hits')
      .where({ key: this.prefix + key })
      .delete();
  }
}

/** Deletes the rows of windows that ended more than a minute ago; returns how many. */
export async function purgeExpiredRateLimits(knex: Knex): Promise<number> {
  // RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report.
  const gone = await knex('rate_limit_hits').where('reset_at', '<', knex.raw("now() - interval '1 minute'")).delete().returning('key');
  return gone.length;
}
