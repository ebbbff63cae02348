import { ContainerModule, type ContainerModuleLoadOptions } from 'inversify';
import type { RequestHandler } from 'express';
import type { RateLimits } from '../../adapters/http/rate-limits.js';
import { CreateTenant } from '../../application/admin/create-tenant.js';
import { ListTenants } from '../../application/admin/list-tenants.js';
import { ListTenantUsers } from '../../application/admin/list-tenant-users.js';
import { ResetClientSecret } from '../../application/admin/reset-client-secret.js';
import { RotateClientSecret } from '../../application/admin/rotate-client-secret.js';
import { RotateSigningKey } from '../../application/admin/rotate-signing-key.js';
import { SetWalletUserDisabled } from '../../application/admin/set-wallet-user-disabled.js';
import { AuthenticateClient } from '../../application/wallet/authenticate-client.js';
import { IntrospectToken } from '../../application/wallet/introspect-token.js';
import { LogOut } from '../../application/wallet/log-out.js';
import { RevokeToken } from '../../application/wallet/revoke-token.js';
import { FeedTokenRevocationList } from '../../adapters/cache/token-revocation-list.cached.js';
import { KnexRevokedTokenStore } from '../../adapters/knex/token-revocation.knex.js';
import { REVOKED_TOKENS_TABLE } from '../../adapters/knex/migrations/0011-oauth-revocation.js';
import { MemoryRevokedTokenStore } from '../../adapters/memory/token-revocation.memory.js';
import { oauthMetadataRoutes } from '../../adapters/http/wallet/oauth-metadata.routes.js';
import { SeedWalletDemo } from '../../application/admin/seed-wallet-demo.js';
import { IssueDelegatedToken } from '../../application/wallet/issue-delegated-token.js';
import { IssueMachineToken } from '../../application/wallet/issue-machine-token.js';
import { LogIn } from '../../application/wallet/log-in.js';
import { CreateWalletUser } from '../../application/wallet/create-wallet-user.js';
import { GetCurrentWalletUser } from '../../application/wallet/get-current-wallet-user.js';
import { GetWalletUser } from '../../application/wallet/get-wallet-user.js';
import { ListWalletUsers } from '../../application/wallet/list-wallet-users.js';
import { VerifyWalletToken } from '../../application/wallet/verify-wallet-token.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import { ZxcvbnCommonPasswords } from '../../adapters/passwords/common-passwords.zxcvbn.js';
import { walletAuth } from '../../adapters/http/bearer.middleware.js';
import { jwksRoutes } from '../../adapters/http/jwks.routes.js';
import { authRoutes } from '../../adapters/http/wallet/auth.routes.js';
import { oauthRoutes } from '../../adapters/http/wallet/oauth.routes.js';
import { usersRoutes } from '../../adapters/http/wallet/users.routes.js';
import type { GetUserBalances } from '../../application/wallet/get-user-balances.js';
import { SigningKeyRing } from '../../adapters/jose/signing-keys.js';
import { JoseTokenIssuer, type TokenSettings } from '../../adapters/jose/token-issuer.jose.js';
import { CLOCK_TOLERANCE_SECONDS, JoseTokenVerifier } from '../../adapters/jose/token-verifier.jose.js';
import type { Database } from '../../adapters/knex/database.js';
import { KnexLoginThrottle } from '../../adapters/knex/login-throttle.knex.js';
import { KnexSigningKeyStore } from '../../adapters/knex/signing-key-store.knex.js';
import { KnexTenantDirectory } from '../../adapters/knex/tenant-directory.knex.js';
import type { IdentityChangeFeed } from '../../adapters/knex/identity-change-feed.js';
import { CachedTenantDirectory, WALLET_IDENTITY_TABLES } from '../../adapters/cache/tenant-directory.cached.js';
import { MemoryLoginThrottle } from '../../adapters/memory/login-throttle.memory.js';
import { MemorySigningKeyStore } from '../../adapters/memory/signing-key-store.memory.js';
import type { MemoryOutbox } from '../../adapters/memory/webhooks.memory.js';
import { MemoryTenantDirectory } from '../../adapters/memory/tenant-directory.memory.js';
import type { Logger } from 'pino';
import { LOGIN_THROTTLE_WINDOW_SECONDS } from '../../domain/identity/login-throttle.js';
import type { LoginThrottleStore } from '../../domain/identity/login-throttle.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

/** The one ring of signing keys the service uses. */
export const WALLET_KEY_RING = 'wallet';
/** How often expired login-attempt keys are deleted. */
const LOGIN_THROTTLE_PURGE_EVERY_MS = 5 * 60_000;
/** How many verified tokens each instance remembers. */
const VERIFIED_TOKEN_CACHE = 10_000;

/**
 * Wallet identity: tenants and users, signing keys, token issue and verification, login
 * throttling, the token and user routes, the JWKS and the wallet auth middleware that other
 * wallet routers take from `TOKENS.WalletAuth`.
 */
export const walletIdentityModule = (config: Config, db: Database | null, outbox?: MemoryOutbox): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const settings: TokenSettings = {
      issuer: config.issuer,
      audience: config.tokenAudience,
      machineTokenTtlSeconds: config.machineTokenTtlSeconds,
      userTokenTtlSeconds: config.userTokenTtlSeconds,
    };
    if (db === null) {
      bind(TOKENS.TenantDirectory).toConstantValue(new MemoryTenantDirectory(outbox));
      bindLoginThrottle(bind, new MemoryLoginThrottle());
      bind(TOKENS.SigningKeyStore).toConstantValue(new MemorySigningKeyStore());
      bind(TOKENS.TokenRevocations).toResolvedValue(
        (clock: Clock, lifecycle: Lifecycle) => {
          const list = new FeedTokenRevocationList(new MemoryRevokedTokenStore(), { trusted: true }, clock);
          lifecycle.onStart(() => list.start());
          return list;
        },
        [TOKENS.Clock, TOKENS.Lifecycle],
      );
    } else {
      // Revoked jtis live in memory on every instance, loaded at start and fed by the change
      // feed, so a token that was never revoked costs no database read.
      bind(TOKENS.TokenRevocations).toResolvedValue(
        (feed: IdentityChangeFeed, clock: Clock, lifecycle: Lifecycle) => {
          const list = new FeedTokenRevocationList(new KnexRevokedTokenStore(db.knex), feed, clock);
          feed.subscribe(new Set([REVOKED_TOKENS_TABLE]), (detail) => list.heard(detail));
          lifecycle.onStart(() => list.start());
          return list;
        },
        [TOKENS.IdentityChangeFeed, TOKENS.Clock, TOKENS.Lifecycle],
      );
      // Tenants and users are read on every wallet request: cached per instance, kept fresh by
      // the database's change feed like the key cache.
      bind(TOKENS.TenantDirectory).toResolvedValue(
        (feed: IdentityChangeFeed) => {
          const directory = new CachedTenantDirectory(new KnexTenantDirectory(db.knex), feed, {
            maxEntries: config.keyCache.maxEntries,
            ttlMs: config.keyCache.ttlMs,
          });
          feed.subscribe(WALLET_IDENTITY_TABLES, () => directory.clear());
          return directory;
        },
        [TOKENS.IdentityChangeFeed],
      );
      bindLoginThrottle(bind, new KnexLoginThrottle(db.knex));
      bind(TOKENS.SigningKeyStore).toConstantValue(new KnexSigningKeyStore(db.knex));
    }
    bind(TOKENS.PasswordHasher).toConstantValue(new ScryptPasswordHasher());
    bind(TOKENS.SigningKeys).toResolvedValue(
      (store, clock, lifecycle: Lifecycle) => {
        const ring = new SigningKeyRing(
          config.tokenSigningKey === null
            ? { kind: 'stored', store, ring: WALLET_KEY_RING }
            : { kind: 'configured', jwks: config.tokenSigningKey },
          clock,
          { retentionSeconds: Math.max(settings.machineTokenTtlSeconds, settings.userTokenTtlSeconds) + CLOCK_TOLERANCE_SECONDS + 60 },
        );
        lifecycle.onStart(() => ring.start());
        return ring;
      },
      [TOKENS.SigningKeyStore, TOKENS.Clock, TOKENS.Lifecycle],
    );
    bind(TOKENS.TokenIssuer).toResolvedValue(
      (keys, clock) => new JoseTokenIssuer(keys, clock, settings),
      [TOKENS.SigningKeys, TOKENS.Clock],
    );
    bind(TOKENS.TokenVerifier).toResolvedValue(
      (keys, clock) => new JoseTokenVerifier(keys, clock, settings, { cacheEntries: VERIFIED_TOKEN_CACHE }),
      [TOKENS.SigningKeys, TOKENS.Clock],
    );
    bind(TOKENS.VerifyWalletToken).toResolvedValue(
      (v, t, r) => new VerifyWalletToken(v, t, r),
      [TOKENS.TokenVerifier, TOKENS.TenantDirectory, TOKENS.TokenRevocations],
    );
    bind(TOKENS.AuthenticateClient).toResolvedValue(
      (t, h, clock) => new AuthenticateClient(t, h, clock),
      [TOKENS.TenantDirectory, TOKENS.SecretHasher, TOKENS.Clock],
    );
    bind(TOKENS.RevokeToken).toResolvedValue((v, r) => new RevokeToken(v, r), [TOKENS.TokenVerifier, TOKENS.TokenRevocations]);
    bind(TOKENS.IntrospectToken).toResolvedValue((v) => new IntrospectToken(v), [TOKENS.VerifyWalletToken]);
    bind(TOKENS.LogOut).toResolvedValue((r) => new LogOut(r), [TOKENS.TokenRevocations]);
    bind(TOKENS.RotateClientSecret).toResolvedValue(
      (t, random, hasher, clock) => new RotateClientSecret(t, random, hasher, clock),
      [TOKENS.TenantDirectory, TOKENS.Random, TOKENS.SecretHasher, TOKENS.Clock],
    );
    bind(TOKENS.ListTenants).toResolvedValue((t, clock) => new ListTenants(t, clock), [TOKENS.TenantDirectory, TOKENS.Clock]);
    bind(TOKENS.ListTenantUsers).toResolvedValue((t) => new ListTenantUsers(t), [TOKENS.TenantDirectory]);
    bind(TOKENS.SetWalletUserDisabled).toResolvedValue(
      (t, clock) => new SetWalletUserDisabled(t, clock),
      [TOKENS.TenantDirectory, TOKENS.Clock],
    );
    bind(TOKENS.WalletAuth).toResolvedValue(
      (verify: VerifyWalletToken, limits: RateLimits): ((rule: 'machine' | 'user' | 'either') => RequestHandler) =>
        walletAuth(verify, limits.authFailures),
      [TOKENS.VerifyWalletToken, TOKENS.RateLimits],
    );
    bind(TOKENS.IssueMachineToken).toResolvedValue((a, i) => new IssueMachineToken(a, i), [TOKENS.AuthenticateClient, TOKENS.TokenIssuer]);
    bind(TOKENS.IssueDelegatedToken).toResolvedValue(
      (t, i, ids, clock) => new IssueDelegatedToken(t, i, ids, clock),
      [TOKENS.TenantDirectory, TOKENS.TokenIssuer, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.LogIn).toResolvedValue(
      (t, p, th, i, clock) => new LogIn(t, p, th, i, clock),
      [TOKENS.TenantDirectory, TOKENS.PasswordHasher, TOKENS.LoginThrottle, TOKENS.TokenIssuer, TOKENS.Clock],
    );
    bind(TOKENS.CreateWalletUser).toResolvedValue(
      (t, p, ids, clock) => new CreateWalletUser(t, p, ids, clock, new ZxcvbnCommonPasswords()),
      [TOKENS.TenantDirectory, TOKENS.PasswordHasher, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.ListWalletUsers).toResolvedValue((t) => new ListWalletUsers(t), [TOKENS.TenantDirectory]);
    bind(TOKENS.GetWalletUser).toResolvedValue((t) => new GetWalletUser(t), [TOKENS.TenantDirectory]);
    bind(TOKENS.GetCurrentWalletUser).toResolvedValue((t) => new GetCurrentWalletUser(t), [TOKENS.TenantDirectory]);
    bind(TOKENS.CreateTenant).toResolvedValue(
      (t, ids, random, hasher, clock) => new CreateTenant(t, ids, random, hasher, clock),
      [TOKENS.TenantDirectory, TOKENS.Ids, TOKENS.Random, TOKENS.SecretHasher, TOKENS.Clock],
    );
    bind(TOKENS.ResetClientSecret).toResolvedValue(
      (t, random, hasher) => new ResetClientSecret(t, random, hasher),
      [TOKENS.TenantDirectory, TOKENS.Random, TOKENS.SecretHasher],
    );
    bind(TOKENS.RotateSigningKey).toResolvedValue((keys) => new RotateSigningKey(keys), [TOKENS.SigningKeys]);
    bind(TOKENS.DemoContributions).toResolvedValue(
      (t, createTenant, reset, createUser, passwords, random) => new SeedWalletDemo(t, createTenant, reset, createUser, passwords, random),
      [
        TOKENS.TenantDirectory,
        TOKENS.CreateTenant,
        TOKENS.ResetClientSecret,
        TOKENS.CreateWalletUser,
        TOKENS.PasswordHasher,
        TOKENS.Random,
      ],
    );
    bind(TOKENS.RootRouters).toResolvedValue((keys) => jwksRoutes(keys), [TOKENS.SigningKeys]);
    bind(TOKENS.RootRouters).toConstantValue(oauthMetadataRoutes({ issuer: config.issuer, walletBasePath: config.walletBasePath }));
    bind(TOKENS.WalletRouters).toResolvedValue(
      (issueMachineToken, authenticateClient, revokeToken, introspectToken, limits) =>
        oauthRoutes({
          issueMachineToken,
          authenticateClient,
          revokeToken,
          introspectToken,
          limit: limits.token,
          failures: limits.authFailures,
        }),
      [TOKENS.IssueMachineToken, TOKENS.AuthenticateClient, TOKENS.RevokeToken, TOKENS.IntrospectToken, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth, issueDelegatedToken, logIn, logOut, limits) => authRoutes({ auth, issueDelegatedToken, logIn, logOut, limits }),
      [TOKENS.WalletAuth, TOKENS.IssueDelegatedToken, TOKENS.LogIn, TOKENS.LogOut, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue<
      [
        (rule: 'machine' | 'user' | 'either') => RequestHandler,
        CreateWalletUser,
        ListWalletUsers,
        GetWalletUser,
        GetCurrentWalletUser,
        GetUserBalances | undefined,
      ]
    >(
      (auth, createUser, listUsers, getUser, getCurrentUser, balances) =>
        usersRoutes({ auth, createUser, listUsers, getUser, getCurrentUser, balances }),
      [
        TOKENS.WalletAuth,
        TOKENS.CreateWalletUser,
        TOKENS.ListWalletUsers,
        TOKENS.GetWalletUser,
        TOKENS.GetCurrentWalletUser,
        { serviceIdentifier: TOKENS.GetUserBalances, optional: true },
      ],
    );
  });

/**
 * Binds the login-attempt store with its purge. Anyone can add a key by trying a made-up email,
 * so expired keys are deleted every few minutes: the store stays bounded by the attempts of the
 * last window.
 */
function bindLoginThrottle(bind: ContainerModuleLoadOptions['bind'], store: LoginThrottleStore): void {
  bind(TOKENS.LoginThrottle).toResolvedValue(
    (lifecycle: Lifecycle, clock: Clock, log: Logger) => {
      let timer: NodeJS.Timeout | null = null;
      lifecycle.onStart(async () => {
        timer = setInterval(() => {
          store
            .purgeExpired(clock.now(), LOGIN_THROTTLE_WINDOW_SECONDS)
            .catch((err: unknown) => log.warn({ err: { message: (err as Error).message } }, 'login-attempt purge failed'));
        }, LOGIN_THROTTLE_PURGE_EVERY_MS);
        timer.unref();
      });
      lifecycle.onStop(async () => {
        if (timer !== null) clearInterval(timer);
      });
      return store;
    },
    [TOKENS.Lifecycle, TOKENS.Clock, TOKENS.Logger],
  );
}
