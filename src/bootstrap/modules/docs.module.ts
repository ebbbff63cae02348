import { ContainerModule } from 'inversify';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { docsRoutes } from '../../adapters/http/docs.routes.js';
import { renderOpenApiFiles } from '../../adapters/http/openapi/documents.js';
import { exampleDayOf } from '../../adapters/http/openapi/examples.js';
import { OPERATIONS } from '../../adapters/http/operations.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Config } from '../config.js';
import { TOKENS } from '../tokens.js';

/**
 * The files per wallet base path and day: OPERATIONS is fixed at build time, and the examples'
 * dates are relative to the day, so one generation per process and day (about 0.3 s).
 */
const rendered = new Map<string, { day: string; files: ReturnType<typeof renderOpenApiFiles> }>();
const filesFor = (walletBasePath: string, now: Date): ReturnType<typeof renderOpenApiFiles> => {
  const day = exampleDayOf(now);
  let entry = rendered.get(walletBasePath);
  if (entry === undefined || entry.day !== day) {
    entry = { day, files: renderOpenApiFiles(OPERATIONS, { walletBasePath, asOf: day }) };
    rendered.set(walletBasePath, entry);
  }
  return entry.files;
};

/**
 * The published interface: the OpenAPI files, generated at start from the operations (with this
 * deployment's `WALLET_BASE_PATH`) and again on the first request of each new day, and the
 * reference page at `/docs`.
 */
export const docsModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.RootRouters).toResolvedValue(
    (config: Config, clock: Clock) => {
      filesFor(config.walletBasePath, clock.now());
      return docsRoutes({ files: () => filesFor(config.walletBasePath, clock.now()), swaggerUiDir: getAbsoluteFSPath() });
    },
    [TOKENS.Config, TOKENS.Clock],
  );
});
