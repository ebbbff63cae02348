import { DomainError } from '../shared/errors.js';

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

/** An address as 16 bytes (IPv4 as its IPv4-mapped IPv6 form), so one comparison serves both. */
type Address = { readonly bytes: Uint8Array; readonly v4: boolean };

const parseIpv4 = (text: string): Uint8Array | null => {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return null;
    out[i] = Number(p);
  }
  return out;
};

const parseIpv6 = (text: string): Uint8Array | null => {
  if (text.includes('%')) return null;
  let head = text;
  let tail4: Uint8Array | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail4 = parseIpv4(text.slice(lastColon + 1));
    if (tail4 === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (s: string): string[] | null => (s === '' ? [] : s.split(':'));
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (left === null || right === null) return null;
  const total = left.length + right.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return null;
  const groups = [...left, ...new Array<string>(8 - total).fill('0'), ...right];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  }
  if (tail4 !== null) out.set(tail4, 12);
  return out;
};

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

const parseAddress = (text: string): Address | null => {
  const v4 = parseIpv4(text);
  if (v4 !== null) {
    const bytes = new Uint8Array(16);
    bytes.set(MAPPED_PREFIX, 0);
    bytes.set(v4, 12);
    return { bytes, v4: true };
  }
  const v6 = parseIpv6(text);
  if (v6 === null) return null;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 address.
  return { bytes: v6, v4: MAPPED_PREFIX.every((b, i) => v6[i] === b) };
};

/** A parsed CIDR: the network's bytes (as 16) and the prefix length counted over the 16 bytes. */
interface Cidr {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/**
 * Parses `a.b.c.d/n`, `x:…/n`, or a bare address (a /32 or /128). Host bits must be zero so that
 * what is stored says exactly which addresses it allows. Returns the canonical text, or null.
 */
export const normaliseCidr = (text: string): string | null => {
  const cidr = parseCidr(text);
  if (cidr === null) return null;
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const isV4 = parseIpv4(address) !== null;
  return isV4 ? `${address}/${cidr.bits - 96}` : `${address.toLowerCase()}/${cidr.bits}`;
};

const parseCidr = (text: string): Cidr | null => {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const lengthText = slash < 0 ? null : text.slice(slash + 1);
  const v4 = parseIpv4(address);
  const parsed = parseAddress(address);
  if (parsed === null) return null;
  const max = v4 !== null ? 32 : 128;
  if (lengthText !== null && !/^(0|[1-9][0-9]{0,2})$/.test(lengthText)) return null;
  const length = lengthText === null ? max : Number(lengthText);
  if (length > max) return null;
  const bits = v4 !== null ? 96 + length : length;
  for (let i = bits; i < 128; i++) {
    if ((parsed.bytes[i >> 3]! >> (7 - (i & 7))) & 1) return null;
  }
  return { bytes: parsed.bytes, bits };
};

/**
 * Validates a key's allowlist: at most MAX_ALLOWED_IPS IPv4 or IPv6 CIDRs (a bare address is a
 * single-address CIDR), host bits zero. Returns them normalised; throws `invalid-request`.
 */
export const parseAllowedIps = (cidrs: readonly string[]): string[] => {
  if (cidrs.length > MAX_ALLOWED_IPS) {
    throw new DomainError('invalid-request', {
      message: `A key allows at most ${MAX_ALLOWED_IPS} address ranges.`,
      details: { errors: [{ path: 'allowedIps', message: `must hold at most ${MAX_ALLOWED_IPS} CIDRs` }] },
    });
  }
  const out: string[] = [];
  cidrs.forEach((text, i) => {
    const normal = normaliseCidr(text.trim());
    if (normal === null) {
      throw new DomainError('invalid-request', {
        message: `${JSON.stringify(text)} is not an IPv4 or IPv6 CIDR with its host bits zero.`,
        details: { errors: [{ path: `allowedIps.${i}`, message: 'must be an IPv4 or IPv6 CIDR' }] },
      });
    }
    if (!out.includes(normal)) out.push(normal);
  });
  return out;
};

/**
 * The parsed CIDRs of each allowlist seen, by the list itself: a resolved key keeps its list
 * while it is cached, so each request checks its address without parsing the list again.
 */
const parsedAllowlists = new WeakMap<readonly string[], ReadonlyArray<Cidr | null>>();

const parsedAllowlist = (allowedIps: readonly string[]): ReadonlyArray<Cidr | null> => {
  let parsed = parsedAllowlists.get(allowedIps);
  if (parsed === undefined) {
    parsed = allowedIps.map(parseCidr);
    parsedAllowlists.set(allowedIps, parsed);
  }
  return parsed;
};

/** Whether the first `bits` bits of two 16-byte addresses are the same. */
const samePrefix = (a: Uint8Array, b: Uint8Array, bits: number): boolean => {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[whole]! & mask) === (b[whole]! & mask);
};

/**
 * Whether `address` lies in one of the CIDRs. An empty allowlist allows every address; an
 * IPv4-mapped IPv6 address matches IPv4 CIDRs; an unparseable address matches nothing.
 */
export const ipAllowed = (allowedIps: readonly string[], address: string): boolean => {
  if (allowedIps.length === 0) return true;
  const parsed = parseAddress(address.trim());
  if (parsed === null) return false;
  for (const cidr of parsedAllowlist(allowedIps)) if (cidr !== null && samePrefix(cidr.bytes, parsed.bytes, cidr.bits)) return true;
  return false;
};

/** The policy part of a resolved key that every request checks (carried by the cached identity). */
export interface KeyPolicy {
  readonly scopes: readonly string[];
  readonly allowedIps: readonly string[];
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
export const decideKeyPolicy = (key: KeyPolicy, requiredScope: Scope | null, clientAddress: string): KeyPolicyDecision => {
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
