import { ContainerModule } from 'inversify';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { walletAuth } from '../../adapters/http/bearer.middleware.js';
import { docsRoutes } from '../../adapters/http/docs.routes.js';
import { healthRoutes } from '../../adapters/http/health.routes.js';
import { renderOpenApiFile, type OpenApiFile } from '../../adapters/http/openapi/documents.js';
import { PublishedOpenApiFiles } from '../../adapters/http/openapi/published.js';
import { operationRouter, type OperationDeps, type WalletAuth } from '../../adapters/http/operation-router.js';
import {
  BOOKING_OPERATIONS,
  BOOKING_PUBLIC_OPERATIONS,
  OPERATIONS,
  OPERATOR_OPERATIONS,
  WALLET_OPERATIONS,
  WELL_KNOWN_OPERATIONS,
} from '../../adapters/http/operations.js';
import type { RateLimits } from '../../adapters/http/rate-limits.js';
import type { Database } from '../../adapters/knex/database.js';
import type { Config } from '../config.js';
import type { Core } from '../core.js';
import type { Lifecycle } from '../lifecycle.js';
import type { PortSet } from '../ports.js';
import { TOKENS } from '../tokens.js';

/**
 * The files built in this process, per wallet base path, of the latest day only: OPERATIONS is
 * fixed at build time and the examples' dates are relative to the day, so services composed in
 * one process (tests, an embedding program) share one build a day (about 0.3 s).
 */
const built = new Map<string, { day: string; files: Partial<Record<OpenApiFile, string>> }>();
const buildFile =
  (walletBasePath: string) =>
  (file: OpenApiFile, day: string): string => {
    let entry = built.get(walletBasePath);
    if (entry === undefined || entry.day !== day) {
      entry = { day, files: {} };
      built.set(walletBasePath, entry);
    }
    return (entry.files[file] ??= renderOpenApiFile(file, OPERATIONS, { walletBasePath, asOf: day }));
  };

/**
 * The HTTP surface on top of the core: readiness, the published interface (`/docs`), and the
 * routers each surface's operation declarations build (booking public, booking behind the API
 * key, wallet behind bearer tokens). Routers are collected in binding order.
 */
export const httpModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Readiness).toResolvedValue(
      (lifecycle: Lifecycle, db: Database | null) => ({
        accepting: () => lifecycle.accepting,
        pingDatabase: async () => {
          if (db !== null) await db.knex.raw('SELECT 1');
        },
      }),
      [TOKENS.Lifecycle, TOKENS.Database],
    );
    bind(TOKENS.WalletAuth).toResolvedValue(
      (core: Core, limits: RateLimits): WalletAuth => walletAuth(core.identity.verifyWalletToken, limits.authFailures, config.issuer),
      [TOKENS.Core, TOKENS.RateLimits],
    );
    bind(TOKENS.OperationDeps).toResolvedValue(
      (core: Core, auth: WalletAuth, limits: RateLimits, ports: PortSet): OperationDeps => ({
        core,
        auth,
        limits,
        idempotentWrites: core.idempotentWrites,
        publicOrigin: config.issuer,
        server: { issuer: config.issuer, walletBasePath: config.walletBasePath, jwks: () => ports.signingKeys.jwks() },
      }),
      [TOKENS.Core, TOKENS.WalletAuth, TOKENS.RateLimits, TOKENS.Ports],
    );

    // root
    bind(TOKENS.RootRouters).toResolvedValue((readiness) => healthRoutes(readiness), [TOKENS.Readiness]);
    // the published interface, built here (before the service starts) and again by a timer on a
    // new day, never by a request
    bind(TOKENS.RootRouters).toResolvedValue(
      ({ clock }: PortSet, lifecycle: Lifecycle) => {
        const published = new PublishedOpenApiFiles(buildFile(config.walletBasePath), () => clock.now());
        lifecycle.onStart(async () => published.start());
        lifecycle.onStop(() => published.stop());
        return docsRoutes({ files: () => published.files(), swaggerUiDir: getAbsoluteFSPath() });
      },
      [TOKENS.Ports, TOKENS.Lifecycle],
    );
    // the JWKS and the OAuth metadata: declarations like the rest, at the root
    bind(TOKENS.RootRouters).toResolvedValue((deps: OperationDeps) => operationRouter(WELL_KNOWN_OPERATIONS, deps), [TOKENS.OperationDeps]);

    // the surfaces, each built from its operation declarations
    bind(TOKENS.BookingPublicRouters).toResolvedValue(
      // The per-IP limiter on each public route (none with rate limits off).
      (deps: OperationDeps) => operationRouter(BOOKING_PUBLIC_OPERATIONS, deps, config.rateLimits ? { limiter: deps.limits.public } : {}),
      [TOKENS.OperationDeps],
    );
    bind(TOKENS.BookingRouters).toResolvedValue(
      (deps: OperationDeps) => operationRouter(BOOKING_OPERATIONS, deps, { behindKey: true }),
      [TOKENS.OperationDeps],
    );
    bind(TOKENS.OperatorRouters).toResolvedValue(
      (deps: OperationDeps) => operationRouter(OPERATOR_OPERATIONS, deps, { behindKey: true }),
      [TOKENS.OperationDeps],
    );
    bind(TOKENS.WalletRouters).toResolvedValue((deps: OperationDeps) => operationRouter(WALLET_OPERATIONS, deps), [TOKENS.OperationDeps]);
  });
