import { DomainError } from '../shared/errors.js';
import type { MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from './principal.js';

/**
 * The JOSE `typ` of each token kind. Machine tokens are RFC 9068 access tokens; user tokens have
 * their own type so that neither can pass for the other, whatever claims a forger adds.
 */
const TOKEN_TYP = { machine: 'at+jwt', user: 'wallet-user+jwt' } as const;

/** The signed `token_use` claim, repeating the kind inside the payload. */
export const TOKEN_USE = { machine: 'wallet-machine', user: 'wallet-user' } as const;

/** How wallet holders are authenticated (`amr` values). */
export const AMR = { password: 'pwd', delegated: 'tenant_delegated' } as const;

/** The claims a wallet token carries besides the registered ones (iss, aud, iat, exp, jti). */
export interface WalletClaims {
  readonly sub: string;
  readonly tid: string;
  readonly client_id: string;
  readonly token_use: string;
  readonly amr?: readonly string[];
  readonly act?: { readonly sub: string };
  readonly cnf?: { readonly jkt: string };
}

/** A JWK SHA-256 thumbprint (RFC 7638): 43 base64url characters. */
const JKT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The `cnf.jkt` of verified claims: the thumbprint, null when the token is unbound, undefined
 * when `cnf` is there but malformed (then the token is not one of ours).
 */
export const jktFromClaims = (claims: Readonly<Record<string, unknown>>): string | null | undefined => {
  const { cnf } = claims;
  if (cnf === undefined) return null;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return undefined;
  const { jkt } = cnf as { jkt?: unknown };
  return typeof jkt === 'string' && JKT.test(jkt) && Object.keys(cnf).length === 1 ? jkt : undefined;
};

/** Whether a string can be a JWK SHA-256 thumbprint. */
export const isJkt = (value: string): boolean => JKT.test(value);

/** The `typ` and claims to sign for a principal. */
export const claimsFor = (principal: WalletPrincipal): { typ: string; claims: WalletClaims } => {
  if (principal.kind === 'machine') {
    return {
      typ: TOKEN_TYP.machine,
      claims: { sub: principal.clientId, tid: principal.tenantId, client_id: principal.clientId, token_use: TOKEN_USE.machine },
    };
  }
  return {
    typ: TOKEN_TYP.user,
    claims: {
      sub: principal.userId,
      tid: principal.tenantId,
      client_id: principal.clientId,
      token_use: TOKEN_USE.user,
      amr: [...principal.amr],
      ...(principal.act === null ? {} : { act: { sub: principal.act.sub } }),
    },
  };
};

const normalizeTyp = (typ: unknown): string | null => (typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : null);

const isId = (value: unknown, prefix: string): value is string =>
  typeof value === 'string' && value.startsWith(`${prefix}_`) && value.length <= 128;

/**
 * Reads the principal from the protected `typ` and the claims of a token whose signature, issuer,
 * audience and lifetime were already verified. The header type, `token_use` and the claim shapes
 * must all agree; anything else is `null` (not a token of ours).
 */
export const principalFromToken = (typ: unknown, claims: Readonly<Record<string, unknown>>): WalletPrincipal | null => {
  const t = normalizeTyp(typ);
  const { sub, tid, client_id: clientId, token_use: use, amr, act } = claims;
  if (!isId(tid, 'tnt') || !isId(clientId, 'cli')) return null;
  if (t === TOKEN_TYP.machine) {
    if (use !== TOKEN_USE.machine || sub !== clientId || amr !== undefined || act !== undefined) return null;
    const machine: MachinePrincipal = { kind: 'machine', tenantId: tid, clientId };
    return machine;
  }
  if (t === TOKEN_TYP.user) {
    if (use !== TOKEN_USE.user || !isId(sub, 'usr')) return null;
    if (!Array.isArray(amr) || amr.length === 0 || !amr.every((v) => typeof v === 'string')) return null;
    let actor: { sub: string } | null = null;
    if (act !== undefined) {
      if (typeof act !== 'object' || act === null || !isId((act as { sub?: unknown }).sub, 'cli')) return null;
      actor = { sub: (act as { sub: string }).sub };
    }
    const user: WalletUserPrincipal = { kind: 'user', tenantId: tid, userId: sub, amr: amr as string[], act: actor, clientId };
    return user;
  }
  return null;
};

/** The one refusal for every token problem; no hint which check failed. */
export const invalidToken = (): DomainError => new DomainError('invalid-token');

/** Extracts the token of an `Authorization: Bearer <token>` header, or refuses. */
export const bearerToken = (authorization: string | undefined): string => {
  if (authorization === undefined) throw invalidToken();
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (match === null || match[1]!.length > 8192) throw invalidToken();
  return match[1]!;
};

/** Which token a wallet operation takes. */
export type WalletTokenRule = 'machine' | 'user' | 'either';

/**
 * The one rule for token kinds. A machine token on a user operation is structurally not a wallet
 * user (401); a user token on a machine operation lacks the tenant's authority (403).
 */
export const requireTokenKind = (principal: WalletPrincipal, rule: WalletTokenRule): WalletPrincipal => {
  if (rule === 'user' && principal.kind !== 'user') throw notAWalletUser();
  if (rule === 'machine' && principal.kind !== 'machine') {
    throw new DomainError('machine-token-required');
  }
  return principal;
};

/** Narrows to a machine principal or refuses as `requireTokenKind` would. */
export const asMachine = (principal: WalletPrincipal): MachinePrincipal => requireTokenKind(principal, 'machine') as MachinePrincipal;

/** Narrows to a wallet user or refuses as `requireTokenKind` would. */
export const asWalletUser = (principal: WalletPrincipal): WalletUserPrincipal => requireTokenKind(principal, 'user') as WalletUserPrincipal;

const notAWalletUser = (): DomainError => new DomainError('not-a-wallet-user');
