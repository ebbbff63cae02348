import { acceptDpopClaims, DpopRefusal, type DpopProofVerifier } from '../../domain/identity/dpop.js';
import { REPLAY_NAMESPACE, type ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import { dpopRequiredOf, type Tenant } from '../../domain/identity/tenant.js';
import type { TokenBinding } from '../../domain/identity/token-issuer.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * What a request says about DPoP: the `DPoP` header's value(s) as received (undefined when there
 * is none; more than one is refused), the HTTP method and the absolute URL the client sent it
 * to (the service's public origin and base path, plus the path; query and fragment are ignored).
 */
export interface DpopRequestContext {
  readonly proof: string | readonly string[] | undefined;
  readonly method: string;
  readonly url: string;
}

/**
 * A key the caller has already proven it holds for this very request: the key of the DPoP-bound
 * token it called with, whose proof was checked (and spent) when the token was. A token issued
 * on that call may be bound to it without a second proof.
 */
export interface ProvenKey {
  readonly jkt: string;
}

/**
 * DPoP proof checks (RFC 9449 §4.3) for the token endpoints and for requests with a bound token:
 * the proof's signature by its embedded public key, `typ`, algorithm, `htm`, `htu`, `iat` within
 * 60 s, `ath` when a token is presented, and a `jti` accepted once on every instance. Every
 * refusal is a `DpopRefusal` (problem reason `invalid-dpop-proof`) with the OAuth error code.
 */
export class CheckDpopProof {
  constructor(
    private readonly verifier: DpopProofVerifier,
    private readonly replay: ReplayGuard,
    private readonly clock: Clock,
  ) {}

  /**
   * At a token endpoint, once the client (or person) is authenticated: the key the new token is
   * bound to, or null when no proof was sent and the tenant does not require one. A tenant that
   * requires DPoP gets `invalid_dpop_proof` without a proof.
   */
  async bindingFor(tenant: Tenant, request: DpopRequestContext | undefined): Promise<TokenBinding | null> {
    if (request === undefined || request.proof === undefined) {
      if (dpopRequiredOf(tenant))
        throw new DpopRefusal('invalid_dpop_proof', 'This client’s tokens must be DPoP-bound: send a DPoP proof.');
      return null;
    }
    return { jkt: await this.check(request, null) };
  }

  /**
   * For a request with a bound token: the proof must be for this request and this token
   * (`ath`), and signed by the key the token is bound to.
   */
  async forBoundToken(request: DpopRequestContext, accessToken: string, jkt: string): Promise<void> {
    if (request.proof === undefined) throw new DpopRefusal('invalid_dpop_proof', 'A DPoP-bound token needs a DPoP proof.');
    const proofJkt = await this.check(request, this.verifier.accessTokenHash(accessToken));
    if (proofJkt !== jkt) throw new DpopRefusal('invalid_dpop_proof', 'The DPoP proof is not signed by the key the token is bound to.');
  }

  /** Verifies one proof for the request; returns its key's thumbprint. */
  private async check(request: DpopRequestContext, accessTokenHash: string | null): Promise<string> {
    const proofs = typeof request.proof === 'string' ? [request.proof] : (request.proof ?? []);
    if (proofs.length !== 1) throw new DpopRefusal('invalid_dpop_proof', 'Send exactly one DPoP header.');
    const verified = await this.verifier.verify(proofs[0]!);
    if (verified === null)
      throw new DpopRefusal('invalid_dpop_proof', 'The DPoP proof is not a valid dpop+jwt signed by its embedded public key.');
    const now = this.clock.now();
    const { jti } = acceptDpopClaims(verified.claims, {
      method: request.method,
      url: request.url,
      nowSeconds: now.getTime() / 1000,
      accessTokenHash,
    });
    // Remembered past the longest time the proof could still be accepted (iat + 60 s, either way).
    const until = new Date(now.getTime() + 2 * 60_000 + 10_000);
    if (!(await this.replay.useOnce(REPLAY_NAMESPACE.dpopProof, `${verified.jkt}:${jti}`, until))) {
      throw new DpopRefusal('invalid_dpop_proof', 'This DPoP proof was already used.');
    }
    return verified.jkt;
  }
}

/**
 * The binding for a token request: the proof's key, or null without a proof. Without the DPoP
 * checks wired (an embedding without them), a proof or a tenant requiring one cannot be honoured
 * and is refused rather than ignored.
 */
export function bindingOrRefuse(
  checks: CheckDpopProof | null,
  tenant: Tenant,
  dpop: DpopRequestContext | ProvenKey | undefined,
): Promise<TokenBinding | null> {
  if (dpop !== undefined && 'jkt' in dpop) return Promise.resolve({ jkt: dpop.jkt });
  if (checks !== null) return checks.bindingFor(tenant, dpop);
  if (dpop?.proof !== undefined || dpopRequiredOf(tenant)) {
    return Promise.reject(new DpopRefusal('invalid_dpop_proof', 'DPoP proofs are not accepted here.'));
  }
  return Promise.resolve(null);
}
