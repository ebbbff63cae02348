import { ContainerModule } from 'inversify';
import { NodeRandomSource, Sha256Hasher, TimeSortableIds } from '../../adapters/crypto/node-crypto.js';
import { healthRoutes } from '../../adapters/http/health.routes.js';
import { TOKENS } from '../tokens.js';

/** Ids, randomness, hashing, readiness and the health routes. */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Ids).toConstantValue(new TimeSortableIds());
  bind(TOKENS.Random).toConstantValue(new NodeRandomSource());
  bind(TOKENS.SecretHasher).toConstantValue(new Sha256Hasher());
  bind(TOKENS.Readiness).toResolvedValue(
    (lifecycle, db) => ({
      accepting: () => lifecycle.accepting,
      pingDatabase: async () => {
        if (db !== null) await db.knex.raw('SELECT 1');
      },
    }),
    [TOKENS.Lifecycle, TOKENS.Database],
  );
  bind(TOKENS.RootRouters).toResolvedValue((readiness) => healthRoutes(readiness), [TOKENS.Readiness]);
});
