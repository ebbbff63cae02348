import { ContainerModule } from 'inversify';
import { idempotency } from '../../adapters/http/idempotency.middleware.js';
import { KnexIdempotencyStore } from '../../adapters/knex/idempotency.knex.js';
import { MemoryIdempotencyStore } from '../../adapters/memory/idempotency.memory.js';
import { postgresKnex, type Database } from '../../adapters/knex/database.js';
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from '../../domain/shared/idempotency.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

/** How many requests of one instance may hold an idempotency claim at once (others wait for a connection). */
const CLAIM_POOL_MAX = 10;

/** Idempotency keys shared by all instances, and their hourly purge after the retention period. */
export const idempotencyModule = (db: Database | null): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.IdempotencyStore).toResolvedValue(
      (lifecycle: Lifecycle, clock: Clock) => {
        // Running claims each hold a connection of a pool of their own, so that requests holding
        // claims can never take every connection their own writes need.
        const claims = db?.target.kind === 'postgres' ? postgresKnex({ ...db.target, poolMax: CLAIM_POOL_MAX }) : null;
        const store: IdempotencyStore =
          db === null
            ? new MemoryIdempotencyStore()
            : new KnexIdempotencyStore(db.knex, { holding: claims === null ? { kind: 'process' } : { kind: 'transaction', claims } });
        let timer: NodeJS.Timeout | null = null;
        lifecycle.onStart(async () => {
          timer = setInterval(() => {
            void store.purge(new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS)).catch(() => undefined);
          }, 3_600_000);
          timer.unref();
        });
        lifecycle.onStop(async () => {
          if (timer !== null) clearInterval(timer);
          await claims?.destroy();
        });
        return store;
      },
      [TOKENS.Lifecycle, TOKENS.Clock],
    );
    bind(TOKENS.Idempotent).toResolvedValue(
      (store: IdempotencyStore, clock: Clock) => idempotency(store, clock),
      [TOKENS.IdempotencyStore, TOKENS.Clock],
    );
  });
