import type { Tenant } from '../../domain/identity/tenant.js';
import { TOKEN_USE } from '../../domain/identity/wallet-token.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { VerifyWalletToken } from './wallet-caller.js';

/** RFC 7662: what a resource server learns about a token. */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly sub: string;
      readonly tid: string;
      readonly client_id: string;
      /** RFC 7662 / RFC 6749 §5.1: how the token is presented. */
      readonly token_type: 'Bearer' | 'DPoP';
      /** Which kind of wallet token it is (the signed `token_use` claim). */
      readonly token_use: string;
      readonly amr?: readonly string[];
      readonly act?: { readonly sub: string };
      readonly iat: number;
      readonly exp: number;
      readonly jti: string;
      /** RFC 9449 §6.2: the key a DPoP-bound token is bound to. */
      readonly cnf?: { readonly jkt: string };
    };

const INACTIVE = { active: false } as const;

/**
 * RFC 7662 introspection by an authenticated client: the claims of a live token of the client's
 * own tenant (valid, not revoked, its user or tenant still there and not disabled); one and the
 * same `{ active: false }` for every other token, so nothing tells another tenant's token from a
 * forged, expired or revoked one.
 */
export class IntrospectToken {
  constructor(private readonly verify: VerifyWalletToken) {}

  async execute(client: Tenant, token: string): Promise<Introspection> {
    let checked: Awaited<ReturnType<VerifyWalletToken['check']>>;
    try {
      checked = await this.verify.check(token);
    } catch (err) {
      if (err instanceof DomainError && err.reason === 'invalid-token') return INACTIVE;
      throw err;
    }
    const { principal, token: t } = checked;
    if (principal.tenantId !== client.id) return INACTIVE;
    const jkt = t.jkt ?? null;
    const base = {
      active: true as const,
      tid: principal.tenantId,
      client_id: principal.clientId,
      token_type: jkt === null ? ('Bearer' as const) : ('DPoP' as const),
      iat: t.iat,
      exp: t.exp,
      jti: t.jti,
      ...(jkt === null ? {} : { cnf: { jkt } }),
    };
    if (principal.kind === 'machine') return { ...base, sub: principal.clientId, token_use: TOKEN_USE.machine };
    return {
      ...base,
      sub: principal.userId,
      token_use: TOKEN_USE.user,
      amr: [...principal.amr],
      ...(principal.act === null ? {} : { act: { sub: principal.act.sub } }),
    };
  }
}
