import { DomainError } from '../shared/errors.js';
import { rangeWithin, type IpRange, type IpRangeParser } from './ip-range.js';

/**
 * What a booking key may do. Every key has scopes; `*` holds every scope. A scope never widens
 * the agent's entitlements: it only narrows what one key of the agent may call.
 */
export const SCOPES = [
  'account:read',
  'trips:read',
  'quotes:write',
  'orders:read',
  'orders:write',
  'orders:cancel',
  'webhooks:manage',
  'keys:manage',
  'events:read',
  'billing:read',
] as const;
export type Scope = (typeof SCOPES)[number];
/** The scope that holds every other: every key issued without scopes, and every key from before scopes. */
export const ALL_SCOPES = '*';
export type KeyScope = Scope | typeof ALL_SCOPES;
export const FULL_KEY_SCOPES: readonly KeyScope[] = [ALL_SCOPES];

/** Whether a key with `held` scopes holds `scope`. */
export const holdsScope = (held: readonly string[], scope: string): boolean => held.includes(ALL_SCOPES) || held.includes(scope);

/**
 * Validates the scopes asked for a new key: a non-empty list of catalogue scopes (or `*`),
 * duplicates removed, `*` alone when present. Throws `invalid-request` otherwise.
 */
export const parseScopes = (scopes: readonly string[]): KeyScope[] => {
  const unknown = scopes.filter((s) => s !== ALL_SCOPES && !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new DomainError('invalid-request', {
      message:
        scopes.length === 0
          ? 'A key needs at least one scope.'
          : `Unknown scope ${unknown.map((s) => JSON.stringify(s)).join(', ')}; known: ${[...SCOPES, ALL_SCOPES].join(', ')}.`,
      details: { errors: [{ path: 'scopes', message: scopes.length === 0 ? 'must not be empty' : 'holds an unknown scope' }] },
    });
  }
  if (scopes.includes(ALL_SCOPES)) return [ALL_SCOPES];
  return SCOPES.filter((s) => scopes.includes(s));
};

/** A key may only make keys with scopes it holds itself (`*` holds them all). Throws `scope-not-held`. */
export const checkScopesHeld = (callerScopes: readonly string[], requested: readonly string[]): void => {
  const missing = requested.filter((s) => !(s === ALL_SCOPES ? callerScopes.includes(ALL_SCOPES) : holdsScope(callerScopes, s)));
  if (missing.length > 0) {
    throw new DomainError('scope-not-held', {
      message: `The calling key does not hold ${missing.join(', ')}; a key can only give the scopes it holds.`,
      details: { missingScopes: missing },
    });
  }
};

/** The most CIDRs one key's allowlist may hold. */
export const MAX_ALLOWED_IPS = 20;

/**
 * An allowlist as the rules read it: the key's ranges, parsed at the edge. A null is a stored
 * text that did not parse (none should: each was parsed on its way in); it allows nothing, and
 * the list still restricts. An empty list allows every address.
 */
export type Allowlist = ReadonlyArray<IpRange | null>;

/**
 * Validates a key's allowlist as asked for: at most MAX_ALLOWED_IPS IPv4 or IPv6 CIDRs (a bare
 * address is a single-address CIDR), host bits zero, read by the edge's `parser`. Returns the
 * ranges, duplicates removed (their `text` is what is stored); throws `invalid-request`.
 */
export const parseAllowedIps = (cidrs: readonly string[], parser: IpRangeParser): IpRange[] => {
  if (cidrs.length > MAX_ALLOWED_IPS) {
    throw new DomainError('invalid-request', {
      message: `A key allows at most ${MAX_ALLOWED_IPS} address ranges.`,
      details: { errors: [{ path: 'allowedIps', message: `must hold at most ${MAX_ALLOWED_IPS} CIDRs` }] },
    });
  }
  const out: IpRange[] = [];
  cidrs.forEach((text, i) => {
    const range = parser.parseRange(text.trim());
    if (range === null) {
      throw new DomainError('invalid-request', {
        message: `${JSON.stringify(text)} is not an IPv4 or IPv6 CIDR with its host bits zero.`,
        details: { errors: [{ path: `allowedIps.${i}`, message: 'must be an IPv4 or IPv6 CIDR' }] },
      });
    }
    if (!out.some((r) => r.text === range.text)) out.push(range);
  });
  return out;
};

/**
 * Whether `address` lies in one of the allowlist's ranges. An empty allowlist allows every
 * address; an IPv4 address and its IPv4-mapped IPv6 form are one address; an address the edge
 * could not read (null) lies in none.
 */
export const ipAllowed = (allowlist: Allowlist, address: IpRange | null): boolean => {
  if (allowlist.length === 0) return true;
  if (address === null) return false;
  for (const range of allowlist) if (range !== null && rangeWithin(address, range)) return true;
  return false;
};

/**
 * Whether an allowlist allows no address that `held` does not: each of its ranges lies inside one
 * of `held`'s. An empty list (anywhere) lies only within an empty one; anything lies within an
 * empty one. An IPv4 range and its IPv4-mapped IPv6 form are the same range, as when addresses
 * are matched.
 */
export const allowlistWithin = (requested: readonly IpRange[], held: Allowlist): boolean => {
  if (held.length === 0) return true;
  if (requested.length === 0) return false;
  return requested.every((inner) => held.some((outer) => outer !== null && rangeWithin(inner, outer)));
};

/** The parts of a key's policy a key it creates must stay within. */
export interface HeldPolicy {
  readonly allowedIps: Allowlist;
  readonly expiresAt: Date | null;
}

/**
 * A key may only make keys at most as wide as itself: `allowedIps` within the creator's, and
 * `expiresAt` no later than the creator's (never expiring only from a key that never expires).
 * A null `requested.allowedIps` is the creator's own list. Throws `policy-not-held` naming the first field that is wider in `field`.
 */
export const checkPolicyHeld = (
  creator: HeldPolicy,
  requested: { readonly allowedIps: readonly IpRange[] | null; readonly expiresAt: Date | null },
): void => {
  if (requested.allowedIps !== null && !allowlistWithin(requested.allowedIps, creator.allowedIps)) {
    const held = creator.allowedIps.map((r) => r?.text ?? '?').join(', ');
    throw new DomainError('policy-not-held', {
      message:
        requested.allowedIps.length === 0
          ? `The calling key may only be used from ${held}; a key it makes must be held to ranges within those.`
          : `allowedIps holds a range outside the calling key’s (${held}).`,
      details: { field: 'allowedIps' },
    });
  }
  if (creator.expiresAt !== null && (requested.expiresAt === null || requested.expiresAt.getTime() > creator.expiresAt.getTime())) {
    throw new DomainError('policy-not-held', {
      message: `The calling key expires at ${creator.expiresAt.toISOString()}; a key it makes must expire by then.`,
      details: { field: 'expiresAt' },
    });
  }
};

/** The policy part of a resolved key that every request checks (carried by the cached identity). */
export interface KeyPolicy {
  readonly scopes: readonly string[];
  readonly allowedIps: Allowlist;
}

/** Why a usable key was refused for one request. */
export type KeyRefusalReason = 'ip-not-allowed' | 'insufficient-scope';

export type KeyPolicyDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'ip-not-allowed' }
  | { readonly allowed: false; readonly reason: 'insufficient-scope'; readonly requiredScope: Scope };

/** The decisions that carry nothing of the request, made once. */
const ALLOWED: KeyPolicyDecision = Object.freeze({ allowed: true });
const IP_NOT_ALLOWED: KeyPolicyDecision = Object.freeze({ allowed: false, reason: 'ip-not-allowed' });

/**
 * Decides whether a key may make a call needing `requiredScope` (null: any key may) from
 * `clientAddress`. The address is checked first: a request from elsewhere learns nothing of the
 * key's scopes. Pure: runs on the cached identity, with no query.
 */
export const decideKeyPolicy = (key: KeyPolicy, requiredScope: Scope | null, clientAddress: IpRange | null): KeyPolicyDecision => {
  if (!ipAllowed(key.allowedIps, clientAddress)) return IP_NOT_ALLOWED;
  if (requiredScope !== null && !holdsScope(key.scopes, requiredScope)) {
    return { allowed: false, reason: 'insufficient-scope', requiredScope };
  }
  return ALLOWED;
};

/** The refusal as the error the transport answers with (403, `requiredScope` in the body). */
export const keyPolicyError = (decision: Exclude<KeyPolicyDecision, { allowed: true }>): DomainError =>
  decision.reason === 'ip-not-allowed'
    ? new DomainError('ip-not-allowed')
    : new DomainError('insufficient-scope', {
        message: `This key does not hold the scope ${decision.requiredScope}.`,
        details: { requiredScope: decision.requiredScope },
      });
