import { DpopRefusal, dpopSchemeToken } from '../../domain/identity/dpop.js';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { livemodeOf, userTokenCounts, type WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { TokenVerifier, VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { bearerToken, invalidToken } from '../../domain/identity/wallet-token.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import type { CheckDpopProof, DpopRequestContext } from './check-dpop-proof.js';

/** A wallet caller that passed every check, with what the checks read. */
export interface AuthenticatedWalletCaller {
  readonly principal: WalletPrincipal;
  /** The wallet user of a user token (null for a machine token). */
  readonly user: WalletUser | null;
  readonly token: VerifiedToken;
  /** The tenant's mode: false for a sandbox tenant, whose answers all say so. */
  readonly livemode: boolean;
}

/**
 * Resolves an `Authorization` header to the wallet caller: a valid token of ours, not revoked,
 * whose tenant (and, for a user token, whose user) still exists, and whose user is not disabled
 * and was not cut off after the token was issued. Everything else is `invalid-token`.
 */
export class VerifyWalletToken {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly tenants: TenantDirectory,
    private readonly revocations: TokenRevocationList,
    private readonly dpop: CheckDpopProof | null = null,
  ) {}

  async execute(authorization: string | undefined): Promise<WalletPrincipal> {
    return (await this.authenticate(authorization)).principal;
  }

  /**
   * The same check, also returning the wallet user that it read for a user token (null for a
   * machine token), so a route about that person need not read it again in the same request.
   */
  async authenticate(authorization: string | undefined): Promise<AuthenticatedWalletCaller> {
    const caller = await this.check(bearerToken(authorization));
    if ((caller.token.jkt ?? null) !== null) throw boundAsBearer();
    return caller;
  }

  /**
   * The check of a resource request, bearer or DPoP (RFC 9449 §7): `Authorization: Bearer` with
   * an unbound token; `Authorization: DPoP` with a bound token and a proof for this very request
   * (method, URL, the token's hash) signed by the key the token is bound to. A bad or missing
   * token is `invalid-token`; a bound token sent as Bearer, an unbound one sent as DPoP, or a
   * missing or failed proof is a `DpopRefusal` (reason `invalid-dpop-proof`, with
   * `oauthError` `invalid_token` or `invalid_dpop_proof` for `WWW-Authenticate`).
   */
  async authenticateRequest(authorization: string | undefined, request: DpopRequestContext): Promise<AuthenticatedWalletCaller> {
    const dpopToken = dpopSchemeToken(authorization);
    if (dpopToken === null) return this.authenticate(authorization);
    const caller = await this.check(dpopToken);
    const jkt = caller.token.jkt ?? null;
    if (jkt === null) throw new DpopRefusal('invalid_token', 'This token is not DPoP-bound: send it with the Bearer scheme.');
    if (this.dpop === null) throw new DpopRefusal('invalid_dpop_proof', 'DPoP proofs are not accepted here.');
    await this.dpop.forBoundToken(request, dpopToken, jkt);
    return caller;
  }

  /** The same check on a bare token (introspection). */
  async check(token: string): Promise<AuthenticatedWalletCaller> {
    const verified = await this.verifier.inspect(token);
    const revoked = this.revocations.isRevoked(verified.jti);
    // Never-revoked tokens answer from memory; only a feed outage costs a read here.
    if (revoked === true || (revoked !== false && (await revoked))) throw invalidToken();
    const { principal } = verified;
    if (principal.kind === 'user') {
      const [user, tenant] = await Promise.all([
        this.tenants.findUser(principal.tenantId, principal.userId),
        this.tenants.findTenant(principal.tenantId),
      ]);
      if (user === null || tenant === null || !userTokenCounts(user, verified.iat)) throw invalidToken();
      return { principal, user, token: verified, livemode: livemodeOf(tenant) };
    }
    const tenant = await this.tenants.findTenant(principal.tenantId);
    if (tenant === null || tenant.clientId !== principal.clientId) throw invalidToken();
    return { principal, user: null, token: verified, livemode: livemodeOf(tenant) };
  }
}

/** A DPoP-bound token presented as a plain bearer token. */
const boundAsBearer = (): DpopRefusal =>
  new DpopRefusal('invalid_token', 'This token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof.');

/** The tenant's currency; `tenant-not-found` when the tenant is gone (its tokens are then stale). */
export async function tenantCurrency(holders: WalletHolders, tenantId: string): Promise<string> {
  const currency = await holders.currencyOf(tenantId);
  if (currency === null) throw new DomainError('tenant-not-found');
  return currency;
}

/** Refuses a user id that is not a wallet user of this tenant, with the same answer as an unknown one. */
export async function requireHolder(holders: WalletHolders, tenantId: string, userId: string): Promise<void> {
  if (!(await holders.isHolder(tenantId, userId))) throw new DomainError('user-not-found');
}

/** How many tenants' currencies each instance remembers. */
const CURRENCY_CACHE_ENTRIES = 10_000;

/**
 * Tenants' currencies and users, as the identity side's directory knows them. A tenant's currency
 * never changes once its wallets hold money, so it is remembered per instance (bounded) and every
 * write saves a round trip; user membership is always asked.
 */
export class DirectoryWalletHolders implements WalletHolders {
  private readonly currencies = new Map<string, string>();

  constructor(private readonly tenants: TenantDirectory) {}

  async currencyOf(tenantId: string): Promise<string | null> {
    const known = this.currencies.get(tenantId);
    if (known !== undefined) return known;
    const currency = (await this.tenants.findTenant(tenantId))?.currency ?? null;
    if (currency !== null) {
      if (this.currencies.size >= CURRENCY_CACHE_ENTRIES) this.currencies.clear();
      this.currencies.set(tenantId, currency);
    }
    return currency;
  }

  async isHolder(tenantId: string, userId: string): Promise<boolean> {
    return (await this.tenants.findUser(tenantId, userId)) !== null;
  }
}
