import { ContainerModule } from 'inversify';
import type { RequestHandler } from 'express';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { walletAuth } from '../../adapters/http/bearer.middleware.js';
import { accountRoutes } from '../../adapters/http/booking/account.routes.js';
import { catalogueRoutes } from '../../adapters/http/booking/catalogue.routes.js';
import { keyRoutes } from '../../adapters/http/booking/keys.routes.js';
import { orderRoutes } from '../../adapters/http/booking/orders.routes.js';
import { quoteRoutes } from '../../adapters/http/booking/quotes.routes.js';
import { tripRoutes } from '../../adapters/http/booking/trips.routes.js';
import { docsRoutes } from '../../adapters/http/docs.routes.js';
import { healthRoutes } from '../../adapters/http/health.routes.js';
import { agentScopeOf, callingKeyScopeOf } from '../../adapters/http/idempotency-scopes.js';
import { idempotency, type Idempotent } from '../../adapters/http/idempotency.middleware.js';
import { jwksRoutes } from '../../adapters/http/jwks.routes.js';
import { renderOpenApiFile, type OpenApiFile } from '../../adapters/http/openapi/documents.js';
import { PublishedOpenApiFiles } from '../../adapters/http/openapi/published.js';
import { OPERATIONS } from '../../adapters/http/operations.js';
import type { RateLimits } from '../../adapters/http/rate-limits.js';
import { authRoutes } from '../../adapters/http/wallet/auth.routes.js';
import { moneyRoutes } from '../../adapters/http/wallet/money.routes.js';
import { oauthMetadataRoutes } from '../../adapters/http/wallet/oauth-metadata.routes.js';
import { oauthRoutes } from '../../adapters/http/wallet/oauth.routes.js';
import { transactionsRoutes } from '../../adapters/http/wallet/transactions.routes.js';
import { usersRoutes } from '../../adapters/http/wallet/users.routes.js';
import { webhookRoutes } from '../../adapters/http/webhooks/webhooks.routes.js';
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

type Auth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

/**
 * The HTTP surface on top of the core: readiness, the published interface (`/docs`), the booking
 * routes (public, then behind the API key) and the wallet routes (behind bearer tokens), each
 * router taking the use cases of its area. Routers are collected in binding order.
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
    bind(TOKENS.Idempotent).toResolvedValue((core: Core) => idempotency(core.idempotentWrites), [TOKENS.Core]);
    bind(TOKENS.WalletAuth).toResolvedValue(
      (core: Core, limits: RateLimits): Auth => walletAuth(core.identity.verifyWalletToken, limits.authFailures),
      [TOKENS.Core, TOKENS.RateLimits],
    );
    const agentScope = (idempotent: Idempotent) => idempotent(agentScopeOf);
    // Every write that mints a key: the calling key's own Idempotency-Keys, and never the key stored.
    const keyMinting = (idempotent: Idempotent) => idempotent(callingKeyScopeOf, { secretFields: ['apiKey'] });

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
    bind(TOKENS.RootRouters).toResolvedValue((ports: PortSet) => jwksRoutes(ports.signingKeys), [TOKENS.Ports]);
    bind(TOKENS.RootRouters).toConstantValue(oauthMetadataRoutes({ issuer: config.issuer, walletBasePath: config.walletBasePath }));

    // booking: public, then behind the API key
    bind(TOKENS.BookingPublicRouters).toResolvedValue((core: Core) => catalogueRoutes(core.catalogue), [TOKENS.Core]);
    bind(TOKENS.BookingRouters).toResolvedValue((core: Core) => accountRoutes(core.booking), [TOKENS.Core]);
    bind(TOKENS.BookingRouters).toResolvedValue(
      ({ identity }: Core, idempotent: Idempotent) =>
        keyRoutes({
          listOwnKeys: identity.listOwnKeys,
          rollOwnKey: identity.rollOwnKey,
          reportOwnKeyLeaked: identity.reportOwnKeyLeaked,
          idempotent: keyMinting(idempotent),
        }),
      [TOKENS.Core, TOKENS.Idempotent],
    );
    bind(TOKENS.BookingRouters).toResolvedValue((core: Core) => tripRoutes(core.booking), [TOKENS.Core]);
    bind(TOKENS.BookingRouters).toResolvedValue((core: Core) => quoteRoutes(core.booking), [TOKENS.Core]);
    bind(TOKENS.BookingRouters).toResolvedValue(
      ({ booking }: Core, idempotent: Idempotent) => orderRoutes({ ...booking, idempotent: agentScope(idempotent) }),
      [TOKENS.Core, TOKENS.Idempotent],
    );
    bind(TOKENS.BookingRouters).toResolvedValue(
      (core: Core) => webhookRoutes({ surface: 'agent', useCases: core.webhooks }),
      [TOKENS.Core],
    );

    // wallet: behind bearer tokens
    bind(TOKENS.WalletRouters).toResolvedValue(
      ({ identity }: Core, limits: RateLimits) =>
        oauthRoutes({
          issueMachineToken: identity.issueMachineToken,
          authenticateClient: identity.authenticateClient,
          revokeToken: identity.revokeToken,
          introspectToken: identity.introspectToken,
          limit: limits.token,
          failures: limits.authFailures,
        }),
      [TOKENS.Core, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth: Auth, { identity }: Core, limits: RateLimits) =>
        authRoutes({ auth, issueDelegatedToken: identity.issueDelegatedToken, logIn: identity.logIn, logOut: identity.logOut, limits }),
      [TOKENS.WalletAuth, TOKENS.Core, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth: Auth, { identity, wallet }: Core) =>
        usersRoutes({
          auth,
          createUser: identity.createWalletUser,
          listUsers: identity.listWalletUsers,
          getUser: identity.getWalletUser,
          getCurrentUser: identity.getCurrentWalletUser,
          balances: wallet.getUserBalances,
        }),
      [TOKENS.WalletAuth, TOKENS.Core],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth: Auth, idempotent: Idempotent, { wallet }: Core, limits: RateLimits) =>
        moneyRoutes({
          auth,
          idempotent,
          topUp: wallet.topUp,
          refund: wallet.refundPayment,
          pay: wallet.makePayment,
          transfer: wallet.makeTransfer,
          balance: wallet.getMyBalance,
          limitPayments: limits.payments,
        }),
      [TOKENS.WalletAuth, TOKENS.Idempotent, TOKENS.Core, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth: Auth, { wallet }: Core) =>
        transactionsRoutes({ auth, list: wallet.listTransactions, get: wallet.getTransaction, summarize: wallet.summarizeTransactions }),
      [TOKENS.WalletAuth, TOKENS.Core],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth: Auth, core: Core) => webhookRoutes({ surface: 'tenant', auth: auth('machine'), useCases: core.webhooks }),
      [TOKENS.WalletAuth, TOKENS.Core],
    );
  });
