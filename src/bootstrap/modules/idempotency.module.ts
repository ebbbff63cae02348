import { ContainerModule } from 'inversify';
import { idempotency } from '../../adapters/http/idempotency.middleware.js';
import { KnexIdempotencyStore } from '../../adapters/knex/idempotency.knex.js';
import { MemoryIdempotencyStore } from '../../adapters/memory/idempotency.memory.js';
import type { Database } from '../../adapters/knex/database.js';
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from '../../domain/shared/idempotency.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

/** Idempotency keys shared by all instances, and their hourly purge after the retention period. */
export const idempotencyModule = (db: Database | null): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.IdempotencyStore).toResolvedValue(
      (lifecycle: Lifecycle, clock: Clock) => {
        const store: IdempotencyStore = db === null ? new MemoryIdempotencyStore() : new KnexIdempotencyStore(db.knex);
        let timer: NodeJS.Timeout | null = null;
        lifecycle.onStart(async () => {
          timer = setInterval(() => {
            void store.purge(new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS)).catch(() => undefined);
          }, 3_600_000);
          timer.unref();
        });
        lifecycle.onStop(async () => {
          if (timer !== null) clearInterval(timer);
        });
        return store;
      },
      [TOKENS.Lifecycle, TOKENS.Clock],
    );
    bind(TOKENS.Idempotent).toResolvedValue((store: IdempotencyStore, clock: Clock) => idempotency(store, clock), [
      TOKENS.IdempotencyStore,
      TOKENS.Clock,
    ]);
  });
