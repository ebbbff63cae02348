import { ContainerModule } from 'inversify';
import type { RequestHandler } from 'express';
import { CreateTenant, ResetClientSecret, RotateSigningKey } from '../../application/admin/manage-tenants.js';
import { SeedWalletDemo } from '../../application/admin/seed-wallet-demo.js';
import { IssueDelegatedToken } from '../../application/wallet/issue-delegated-token.js';
import { IssueMachineToken } from '../../application/wallet/issue-machine-token.js';
import { LogIn } from '../../application/wallet/log-in.js';
import {
  CreateWalletUser,
  GetCurrentWalletUser,
  GetWalletUser,
  ListWalletUsers,
} from '../../application/wallet/manage-wallet-users.js';
import { VerifyWalletToken } from '../../application/wallet/verify-wallet-token.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import { walletAuth } from '../../adapters/http/bearer.middleware.js';
import { jwksRoutes } from '../../adapters/http/jwks.routes.js';
import { authRoutes } from '../../adapters/http/wallet/auth.routes.js';
import { oauthRoutes } from '../../adapters/http/wallet/oauth.routes.js';
import { usersRoutes } from '../../adapters/http/wallet/users.routes.js';
import type { GetUserBalances } from '../../application/wallet/read-balances.js';
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
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

/** The one ring of signing keys the service uses. */
export const WALLET_KEY_RING = 'wallet';
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
      bind(TOKENS.LoginThrottle).toConstantValue(new MemoryLoginThrottle());
      bind(TOKENS.SigningKeyStore).toConstantValue(new MemorySigningKeyStore());
    } else {
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
      bind(TOKENS.LoginThrottle).toConstantValue(new KnexLoginThrottle(db.knex));
      bind(TOKENS.SigningKeyStore).toConstantValue(new KnexSigningKeyStore(db.knex));
    }
    bind(TOKENS.PasswordHasher).toConstantValue(new ScryptPasswordHasher());
    bind(TOKENS.SigningKeys).toResolvedValue(
      (store, clock, lifecycle: Lifecycle) => {
        const ring = new SigningKeyRing(
          config.tokenSigningKey === null ? { kind: 'stored', store, ring: WALLET_KEY_RING } : { kind: 'configured', jwks: config.tokenSigningKey },
          clock,
          { retentionSeconds: Math.max(settings.machineTokenTtlSeconds, settings.userTokenTtlSeconds) + CLOCK_TOLERANCE_SECONDS + 60 },
        );
        lifecycle.onStart(() => ring.start());
        return ring;
      },
      [TOKENS.SigningKeyStore, TOKENS.Clock, TOKENS.Lifecycle],
    );
    bind(TOKENS.TokenIssuer).toResolvedValue((keys, clock) => new JoseTokenIssuer(keys, clock, settings), [TOKENS.SigningKeys, TOKENS.Clock]);
    bind(TOKENS.TokenVerifier).toResolvedValue(
      (keys, clock) => new JoseTokenVerifier(keys, clock, settings, { cacheEntries: VERIFIED_TOKEN_CACHE }),
      [TOKENS.SigningKeys, TOKENS.Clock],
    );
    bind(TOKENS.VerifyWalletToken).toResolvedValue((v, t) => new VerifyWalletToken(v, t), [TOKENS.TokenVerifier, TOKENS.TenantDirectory]);
    bind(TOKENS.WalletAuth).toResolvedValue(
      (verify: VerifyWalletToken): ((rule: 'machine' | 'user' | 'either') => RequestHandler) => walletAuth(verify),
      [TOKENS.VerifyWalletToken],
    );
    bind(TOKENS.IssueMachineToken).toResolvedValue(
      (t, h, i) => new IssueMachineToken(t, h, i),
      [TOKENS.TenantDirectory, TOKENS.SecretHasher, TOKENS.TokenIssuer],
    );
    bind(TOKENS.IssueDelegatedToken).toResolvedValue(
      (t, i, ids, clock) => new IssueDelegatedToken(t, i, ids, clock),
      [TOKENS.TenantDirectory, TOKENS.TokenIssuer, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.LogIn).toResolvedValue(
      (t, p, th, i, clock) => new LogIn(t, p, th, i, clock),
      [TOKENS.TenantDirectory, TOKENS.PasswordHasher, TOKENS.LoginThrottle, TOKENS.TokenIssuer, TOKENS.Clock],
    );
    bind(TOKENS.CreateWalletUser).toResolvedValue(
      (t, p, ids, clock) => new CreateWalletUser(t, p, ids, clock),
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
      [TOKENS.TenantDirectory, TOKENS.CreateTenant, TOKENS.ResetClientSecret, TOKENS.CreateWalletUser, TOKENS.PasswordHasher, TOKENS.Random],
    );
    bind(TOKENS.RootRouters).toResolvedValue((keys) => jwksRoutes(keys), [TOKENS.SigningKeys]);
    bind(TOKENS.WalletRouters).toResolvedValue(
      (issueMachineToken, limits) => oauthRoutes({ issueMachineToken, limit: limits.token }),
      [TOKENS.IssueMachineToken, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth, issueDelegatedToken, logIn, limits) => authRoutes({ auth, issueDelegatedToken, logIn, limits }),
      [TOKENS.WalletAuth, TOKENS.IssueDelegatedToken, TOKENS.LogIn, TOKENS.RateLimits],
    );
    bind(TOKENS.WalletRouters).toResolvedValue<
      [(rule: 'machine' | 'user' | 'either') => RequestHandler, CreateWalletUser, ListWalletUsers, GetWalletUser, GetCurrentWalletUser, GetUserBalances | undefined]
    >(
      (auth, createUser, listUsers, getUser, getCurrentUser, balances) => usersRoutes({ auth, createUser, listUsers, getUser, getCurrentUser, balances }),
      [TOKENS.WalletAuth, TOKENS.CreateWalletUser, TOKENS.ListWalletUsers, TOKENS.GetWalletUser, TOKENS.GetCurrentWalletUser, { serviceIdentifier: TOKENS.GetUserBalances, optional: true }],
    );
  });
