import { DomainError } from '../shared/errors.js';

/**
 * How a tenant's backend authenticates at the token, revocation and introspection endpoints:
 * with its client secret (the default), or with a JWT signed by one of its registered keys
 * (`private_key_jwt`, RFC 7523 §2.2). A tenant uses exactly one of them.
 */
export const CLIENT_AUTH_METHODS = ['client_secret', 'private_key_jwt'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];
export const DEFAULT_CLIENT_AUTH_METHOD: ClientAuthMethod = 'client_secret';

export const isClientAuthMethod = (value: string): value is ClientAuthMethod => (CLIENT_AUTH_METHODS as readonly string[]).includes(value);

/** A public JSON Web Key as registered (only public members are kept). */
export type PublicJwk = Readonly<Record<string, string>>;

/** A tenant's registered JWK Set: the public keys its client assertions and subject tokens are signed with. */
export interface ClientJwkSet {
  readonly keys: readonly PublicJwk[];
}

/**
 * The algorithms a tenant's keys may sign with. An Ed25519 signature goes by two names: `EdDSA`
 * (RFC 8037) and the fully-specified `Ed25519` (RFC 9864); an Ed25519 key verifies either.
 */
export const CLIENT_KEY_ALGORITHMS = ['ES256', 'RS256', 'EdDSA', 'Ed25519'] as const;
export type ClientKeyAlgorithm = (typeof CLIENT_KEY_ALGORITHMS)[number];

/** The names of an Ed25519 signature; a key registered without `alg` is labelled with the first. */
export const ED25519_ALGORITHMS = ['EdDSA', 'Ed25519'] as const satisfies readonly ClientKeyAlgorithm[];

/** Limits on a registered JWK Set: enough for a rotation overlap, small enough to try every key. */
export const CLIENT_JWKS_LIMITS = { maxKeys: 10, maxBytes: 32 * 1024, minRsaBits: 2048, maxRsaBits: 8192 } as const;

/** JWK members that hold private or symmetric key material (RFC 7518 §6). */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** Whether a JWK (any object) carries private or symmetric key material. */
export const hasPrivateMembers = (jwk: Readonly<Record<string, unknown>>): boolean => PRIVATE_JWK_MEMBERS.some((m) => jwk[m] !== undefined);

const B64URL = /^[A-Za-z0-9_-]+$/;
const refuse = (message: string): DomainError => new DomainError('invalid-request', { message });

const b64Member = (jwk: Record<string, unknown>, name: string, at: string): string => {
  const v = jwk[name];
  if (typeof v !== 'string' || v.length === 0 || !B64URL.test(v)) throw refuse(`${at}: "${name}" must be a base64url string.`);
  return v;
};

/** The algorithm of a public key, from its type and curve (`EdDSA` for Ed25519); null when it is not one a tenant may use. */
export const algorithmOfJwk = (jwk: Readonly<Record<string, unknown>>): ClientKeyAlgorithm | null => {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  return null;
};

/** Every name of the algorithm a public key signs with: both names for an Ed25519 key; none when the key is not one a tenant may use. */
export const algorithmsOfJwk = (jwk: Readonly<Record<string, unknown>>): readonly ClientKeyAlgorithm[] => {
  const alg = algorithmOfJwk(jwk);
  if (alg === null) return [];
  return alg === 'EdDSA' ? ED25519_ALGORITHMS : [alg];
};

/** Whether `alg` names the algorithm of a key (an Ed25519 key takes `EdDSA` and `Ed25519`). */
const isAlgorithmOfJwk = (alg: unknown, jwk: Readonly<Record<string, unknown>>): alg is ClientKeyAlgorithm =>
  (algorithmsOfJwk(jwk) as readonly unknown[]).includes(alg);

/** Bits of an RSA modulus given in base64url (leading zero bytes not counted). */
const rsaBits = (n: string): number => {
  const bytes = Buffer.from(n, 'base64url');
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i += 1;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]!));
};

/** Checks one key of a set and returns its public members only. */
const publicKeyOf = (value: unknown, index: number): PublicJwk => {
  const at = `key ${index + 1}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse(`${at} is not a JSON object.`);
  const jwk = value as Record<string, unknown>;
  if (hasPrivateMembers(jwk)) throw refuse(`${at} holds private or symmetric key material; register public keys only.`);
  const derived = algorithmOfJwk(jwk);
  if (derived === null) throw refuse(`${at}: only EC P-256 (ES256), RSA (RS256) and OKP Ed25519 (EdDSA or Ed25519) keys are accepted.`);
  const given = jwk.alg;
  if (given !== undefined && !isAlgorithmOfJwk(given, jwk))
    throw refuse(`${at}: "alg" must be ${algorithmsOfJwk(jwk).join(' or ')} for this key type.`);
  // The name the operator gave is kept; a key without one is labelled by its type.
  const alg: ClientKeyAlgorithm = given ?? derived;
  if (jwk.use !== undefined && jwk.use !== 'sig') throw refuse(`${at}: "use" must be "sig".`);
  if (jwk.key_ops !== undefined) {
    if (!Array.isArray(jwk.key_ops) || !jwk.key_ops.every((op) => op === 'verify'))
      throw refuse(`${at}: "key_ops" may only hold "verify".`);
  }
  const out: Record<string, string> = { kty: jwk.kty as string, alg };
  if (jwk.kid !== undefined) {
    if (typeof jwk.kid !== 'string' || jwk.kid.length === 0 || jwk.kid.length > 128) throw refuse(`${at}: "kid" must be 1-128 characters.`);
    out.kid = jwk.kid;
  }
  if (alg === 'RS256') {
    out.n = b64Member(jwk, 'n', at);
    out.e = b64Member(jwk, 'e', at);
    const bits = rsaBits(out.n);
    if (bits < CLIENT_JWKS_LIMITS.minRsaBits || bits > CLIENT_JWKS_LIMITS.maxRsaBits) {
      throw refuse(`${at}: RSA keys must have ${CLIENT_JWKS_LIMITS.minRsaBits}-${CLIENT_JWKS_LIMITS.maxRsaBits} bits.`);
    }
  } else {
    out.crv = jwk.crv as string;
    out.x = b64Member(jwk, 'x', at);
    if (alg === 'ES256') out.y = b64Member(jwk, 'y', at);
    // P-256 coordinates and Ed25519 public keys are all 32 bytes.
    if (Buffer.from(out.x, 'base64url').length !== 32 || (out.y !== undefined && Buffer.from(out.y, 'base64url').length !== 32)) {
      throw refuse(`${at}: the public key coordinates have the wrong length.`);
    }
  }
  return out;
};

/**
 * Reads a JWK Set an operator registers for a tenant: a JSON object `{ "keys": [...] }` of 1 to
 * `maxKeys` public ES256, RS256 or Ed25519 signing keys, at most `maxBytes` long, with distinct
 * `kid`s when given. A private or symmetric key anywhere refuses the whole set. Returns the keys
 * with their public members only. Throws DomainError `invalid-request` saying what is wrong.
 */
export const parseClientJwks = (text: string): ClientJwkSet => {
  if (Buffer.byteLength(text, 'utf8') > CLIENT_JWKS_LIMITS.maxBytes)
    throw refuse(`The JWK Set is larger than ${CLIENT_JWKS_LIMITS.maxBytes} bytes.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('The JWK Set is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw refuse('A JWK Set is a JSON object with a "keys" array.');
  }
  const list = (parsed as { keys: unknown[] }).keys;
  if (list.length === 0 || list.length > CLIENT_JWKS_LIMITS.maxKeys) throw refuse(`A JWK Set holds 1-${CLIENT_JWKS_LIMITS.maxKeys} keys.`);
  const keys = list.map(publicKeyOf);
  const kids = kidsOf({ keys });
  if (new Set(kids).size !== kids.length) throw refuse('Two keys of the set have the same "kid".');
  return { keys };
};

/** The `kid`s a JWK Set names (a key without one names none); none for no set. */
export const kidsOf = (jwks: ClientJwkSet | null | undefined): string[] =>
  (jwks?.keys ?? []).map((k) => k.kid).filter((k): k is string => k !== undefined);

/** A tenant's OAuth client settings an operator may change (each left as it is when absent). */
export interface ClientSettingsChange {
  readonly jwks?: ClientJwkSet | null;
  readonly authMethod?: ClientAuthMethod;
  readonly dpopRequired?: boolean;
}
