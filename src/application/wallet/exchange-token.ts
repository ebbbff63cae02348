import { REPLAY_NAMESPACE, type ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import { isExternalUserRef, type Tenant } from '../../domain/identity/tenant.js';
import { acceptTenantJwtClaims, TOKEN_EXCHANGE, tenantJwtTypeFits, type TenantJwtVerifier } from '../../domain/identity/tenant-jwt.js';
import type { IssuedToken } from '../../domain/identity/token-issuer.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { DpopRequestContext } from './check-dpop-proof.js';
import type { IssueDelegatedToken } from './issue-delegated-token.js';

/** The token-exchange form fields (RFC 8693 §2.1) the use case reads. */
export interface TokenExchangeRequest {
  readonly subjectToken: string | undefined;
  readonly subjectTokenType: string | undefined;
  /** Every `audience` value sent (the parameter may be repeated). */
  readonly audiences?: readonly string[];
  /** Every `resource` value sent (the parameter may be repeated). */
  readonly resources?: readonly string[];
  readonly requestedTokenType?: string | undefined;
  readonly actorToken?: string | undefined;
  readonly actorTokenType?: string | undefined;
}

/** The answer: the delegated user token, and the RFC 8693 `issued_token_type`. */
export type ExchangedToken = IssuedToken & { readonly userId: string; readonly issuedTokenType: typeof TOKEN_EXCHANGE.accessTokenType };

const invalidGrant = (message?: string): DomainError => new DomainError('invalid-grant', message === undefined ? {} : { message });

/**
 * RFC 8693 token exchange, the standard way to get a delegated user token: an authenticated
 * client presents a JWT it signed with a key of its registered JWK Set (`iss` = its client id,
 * `sub` = the person's externalUserRef, `aud` = the issuer, `exp` at most 5 minutes ahead, a
 * `jti` used once) and gets exactly what `IssueDelegatedToken` mints for that person
 * (`amr: tenant_delegated`, `act.sub` = the client id; the user found or created the same way),
 * DPoP-bound when a proof is sent. The subject token is untyped or `typ: JWT` (a client
 * assertion typed `client-authentication+jwt`, a DPoP proof or any other kind is refused) and
 * its `jti` shares one namespace with the tenant's client assertions, so one JWT never serves
 * as both, not even in one request. A missing field, another subject token type, an
 * `actor_token` (no delegation chains are minted) or a `requested_token_type` other than an
 * access token is `invalid-request` (RFC 8693 §2.2.2); an `audience` or `resource` other than
 * the one the user token is for is `invalid-target`; a subject token that fails any check is
 * `invalid-grant`.
 */
export class ExchangeToken {
  constructor(
    private readonly verifier: TenantJwtVerifier,
    private readonly replay: ReplayGuard,
    private readonly delegated: IssueDelegatedToken,
    private readonly clock: Clock,
    /** The value the subject token's `aud` must name: the issuer. */
    private readonly audience: string,
    /** What an `audience` or `resource` may name: the audience of the user tokens issued (`TOKEN_AUDIENCE`). */
    private readonly targets: readonly string[] = [],
  ) {}

  async execute(client: Tenant, request: TokenExchangeRequest, dpop?: DpopRequestContext): Promise<ExchangedToken> {
    const { subjectToken, subjectTokenType } = request;
    if (subjectToken === undefined || subjectToken.length === 0 || subjectTokenType === undefined) {
      throw new DomainError('invalid-request', { message: 'subject_token and subject_token_type are required.' });
    }
    if (subjectTokenType !== TOKEN_EXCHANGE.jwtTokenType) {
      throw new DomainError('invalid-request', { message: `subject_token_type must be ${TOKEN_EXCHANGE.jwtTokenType}.` });
    }
    this.requireHonourable(request);
    const jwks = client.clientJwks ?? null;
    if (jwks === null) throw invalidGrant('The client has no registered JWK Set to verify the subject token with.');
    const now = this.clock.now();
    const verified = await this.verifier.verify(subjectToken, jwks, now);
    const accepted =
      verified === null || !tenantJwtTypeFits(verified.header, 'subject-token')
        ? null
        : acceptTenantJwtClaims(verified.claims, {
            issuer: client.clientId,
            subject: isExternalUserRef,
            audiences: [this.audience],
            nowSeconds: now.getTime() / 1000,
          });
    if (accepted === null) throw invalidGrant();
    // The namespace of client assertions too: the JWT that authenticated this request is refused here.
    const once = await this.replay.useOnce(
      REPLAY_NAMESPACE.tenantJwt,
      `${client.id}:${accepted.jti}`,
      new Date(accepted.exp * 1000 + 60_000),
    );
    if (!once) throw invalidGrant('The subject token was already used.');
    const token = await this.delegated.execute({ kind: 'machine', tenantId: client.id, clientId: client.clientId }, accepted.sub, dpop);
    return { ...token, issuedTokenType: TOKEN_EXCHANGE.accessTokenType };
  }

  /** The parameters of RFC 8693 §2.1 beyond the subject token: what is asked must be what is minted. */
  private requireHonourable(request: TokenExchangeRequest): void {
    const { actorToken, actorTokenType, requestedTokenType } = request;
    if (actorToken !== undefined || actorTokenType !== undefined) {
      throw new DomainError('invalid-request', {
        message: 'actor_token is not supported: the user token names the authenticated client as its actor.',
      });
    }
    if (requestedTokenType !== undefined && requestedTokenType !== TOKEN_EXCHANGE.accessTokenType) {
      throw new DomainError('invalid-request', { message: `requested_token_type must be ${TOKEN_EXCHANGE.accessTokenType}.` });
    }
    const asked = [...(request.audiences ?? []), ...(request.resources ?? [])];
    const foreign = asked.find((target) => !this.targets.includes(target));
    if (foreign !== undefined) {
      throw new DomainError('invalid-target', {
        message: `The user token is only for ${this.targets.join(', ') || 'this service'}; audience and resource may name nothing else.`,
      });
    }
  }
}
