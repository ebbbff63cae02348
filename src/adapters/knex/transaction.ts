import type { Knex } from 'knex';
import { isRetryableTransactionError } from './pg-errors.js';

/** How a retried transaction behaves. */
export interface TransactionRetryOptions {
  /** Total tries, the first included (default 3). */
  readonly attempts?: number;
  /** Isolation level of each try (default: the server's, READ COMMITTED). */
  readonly isolationLevel?: Knex.IsolationLevels;
  /** Base of the randomised backoff between tries, in ms (default 5, doubled each retry). */
  readonly backoffMs?: number;
  /** Told about each retry (for a log line or a counter). */
  readonly onRetry?: (attempt: number, err: unknown) => void;
}

/**
 * Runs `fn` in a transaction and, when PostgreSQL aborts it with a serialization failure
 * (40001) or a deadlock (40P01), runs the whole of it again in a fresh transaction, at most
 * `attempts` times in all; the last error is rethrown. Every other error is rethrown at once.
 *
 * `fn` must do all its work through the `trx` it receives and have no effect outside the
 * database that cannot be repeated (no HTTP call, no in-process state change before commit):
 * an aborted try is rolled back whole and leaves nothing behind.
 */
export async function withTransactionRetry<T>(
  knex: Knex,
  fn: (trx: Knex.Transaction) => Promise<T>,
  options: TransactionRetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = options.backoffMs ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await knex.transaction(fn, options.isolationLevel ? { isolationLevel: options.isolationLevel } : {});
    } catch (err) {
      if (attempt >= attempts || !isRetryableTransactionError(err)) throw err;
      options.onRetry?.(attempt, err);
      // Jitter so the transactions that collided do not collide again in lockstep.
      const wait = backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
