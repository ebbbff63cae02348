import { REPLAY_NAMESPACE, type ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import { authMethodOf, clientSecretMatches, type Tenant } from '../../domain/identity/tenant.js';
import {
  acceptTenantJwtClaims,
  JWT_BEARER_ASSERTION_TYPE,
  tenantJwtTypeFits,
  type TenantJwtVerifier,
} from '../../domain/identity/tenant-jwt.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/** The OAuth client credentials a tenant's backend presents (HTTP Basic or form body). */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * A JWT client assertion (RFC 7523 §2.2): the form's `client_assertion_type` and
 * `client_assertion`, and its `client_id` when one was sent (it must then be the assertion's).
 */
export interface ClientAssertion {
  readonly clientAssertionType: string;
  readonly clientAssertion: string;
  readonly clientId?: string;
}

/** How a client authenticates at the token, revocation and introspection endpoints. */
export type ClientAuthentication = ClientCredentials | ClientAssertion;

/** What `private_key_jwt` needs: the verifier of tenant-signed JWTs, the replay guard and our audiences. */
export interface ClientAssertionSettings {
  readonly verifier: TenantJwtVerifier;
  readonly replay: ReplayGuard;
  /** The values a client assertion's `aud` may name: the issuer and the token endpoint's URL. */
  readonly audiences: readonly string[];
}

const isAssertion = (input: ClientAuthentication): input is ClientAssertion => 'clientAssertion' in input;

/**
 * OAuth 2.0 client authentication for the token, revocation and introspection endpoints: the
 * tenant whose client id this is, authenticated the way the tenant is set up for. With
 * `client_secret`: the secret is its current one or the one a rotation still honours. With
 * `private_key_jwt`: a client assertion signed by a key of the tenant's JWK Set, untyped or typed
 * `JWT` or `client-authentication+jwt` (never another kind, such as a DPoP proof), `iss` = `sub`
 * = the client id, `aud` the issuer or the token endpoint (an array naming anyone else is
 * refused), `exp` at most 5 minutes ahead, a `jti` never used before on any instance by any JWT
 * of the tenant (a subject token included). A secret for a `private_key_jwt` tenant, an
 * assertion for a `client_secret` tenant and everything else are `invalid-client`, without
 * saying which part was wrong; an unknown `client_assertion_type` is `invalid-request`.
 */
export class AuthenticateClient {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly assertions: ClientAssertionSettings | null = null,
  ) {}

  async execute(input: ClientAuthentication): Promise<Tenant> {
    return isAssertion(input) ? this.byAssertion(input) : this.bySecret(input);
  }

  private async bySecret(input: ClientCredentials): Promise<Tenant> {
    const presented = this.hasher.hash(input.clientSecret);
    const tenant = input.clientId.length <= 128 ? await this.tenants.findTenantByClientId(input.clientId) : null;
    if (tenant === null || !clientSecretMatches(tenant, presented, this.clock.now()) || authMethodOf(tenant) !== 'client_secret') {
      throw new DomainError('invalid-client');
    }
    return tenant;
  }

  private async byAssertion(input: ClientAssertion): Promise<Tenant> {
    if (input.clientAssertionType !== JWT_BEARER_ASSERTION_TYPE) {
      throw new DomainError('invalid-request', { message: `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}.` });
    }
    const settings = this.assertions;
    if (settings === null) throw new DomainError('invalid-client');
    const unverified = settings.verifier.readUnverified(input.clientAssertion);
    const clientId = unverified?.iss;
    if (typeof clientId !== 'string' || clientId.length > 128) throw new DomainError('invalid-client');
    if (input.clientId !== undefined && input.clientId !== clientId) throw new DomainError('invalid-client');
    const tenant = await this.tenants.findTenantByClientId(clientId);
    const jwks = tenant?.clientJwks ?? null;
    if (tenant === null || authMethodOf(tenant) !== 'private_key_jwt' || jwks === null) throw new DomainError('invalid-client');
    const now = this.clock.now();
    const verified = await settings.verifier.verify(input.clientAssertion, jwks, now);
    const accepted =
      verified === null || !tenantJwtTypeFits(verified.header, 'client-assertion')
        ? null
        : acceptTenantJwtClaims(verified.claims, {
            issuer: tenant.clientId,
            subject: tenant.clientId,
            audiences: settings.audiences,
            nowSeconds: now.getTime() / 1000,
          });
    if (accepted === null) throw new DomainError('invalid-client');
    // One namespace for every JWT the tenant signs: this one cannot serve again as a subject token.
    const once = await settings.replay.useOnce(
      REPLAY_NAMESPACE.tenantJwt,
      `${tenant.id}:${accepted.jti}`,
      new Date(accepted.exp * 1000 + 60_000),
    );
    // A replay answers like any other failure.
    if (!once) throw new DomainError('invalid-client');
    return tenant;
  }
}
