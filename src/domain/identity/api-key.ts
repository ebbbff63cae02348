import { DomainError } from '../shared/errors.js';
import { FULL_KEY_SCOPES } from './key-policy.js';
import type { RandomSource, SecretHasher } from '../shared/secrets.port.js';

/**
 * API keys look like `pbk_<43 base62 chars of 32 random bytes><6 base62 chars of CRC-32>`.
 * The fixed prefix and the checksum let secret scanners recognise a leaked key and let the
 * service reject a mistyped or invented key without touching storage.
 */
const API_KEY_PREFIX = 'pbk_';
/** What follows the prefix in the keys of a sandbox owner (`pbk_test_…`, `pbo_test_…`: CONTRACT §6.7). */
export const TEST_KEY_INFIX = 'test_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;

/** The prefix of a key of this family (`pbk_`, `pbo_`) for a live or a sandbox owner. */
export const keyPrefixFor = (family: string, livemode: boolean): string => (livemode ? family : `${family}${TEST_KEY_INFIX}`);

/** Whether a key is live, read from its display prefix: a sandbox key's is `pbk_test_…` or `pbo_test_…`. */
export const keyLivemode = (displayPrefix: string): boolean =>
  !displayPrefix.slice(displayPrefix.indexOf('_') + 1).startsWith(TEST_KEY_INFIX);

/** What may be shown of a key to identify it: its prefix (with `test_` for a sandbox key) and four characters. */
export const keyDisplayPrefix = (apiKey: string, prefix: string): string => apiKey.slice(0, prefix.length + 4);

export type KeyStatus = 'ACTIVE' | 'REVOKED';
/**
 * Why a key was revoked: `rotated` by a roll, `leaked` by a leak report, `operator` by the
 * operator, `revoked` by the agent (a key that one of its keys created).
 */
export type RevokedReason = 'rotated' | 'leaked' | 'operator' | 'revoked';
/** The reasons the operator may name. */
export const REVOKED_REASONS: readonly RevokedReason[] = ['rotated', 'leaked', 'operator'];

/** An issued key as stored: never the plaintext, only its hash and display prefix. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly agentId: string;
  readonly hash: string;
  readonly prefix: string;
  readonly status: KeyStatus;
  readonly revokedReason: RevokedReason | null;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  /**
   * When the revocation takes effect. A rolled key is revoked as `rotated` at the end of its
   * overlap, which may still lie ahead: until then the key authenticates.
   */
  readonly revokedAt: Date | null;
  /** The key this one was rolled from, or null for a key the operator issued. */
  readonly rolledFromKeyId: string | null;
  /** A label the issuer chose, or null. */
  readonly name: string | null;
  /** What the key may call (`key-policy.ts`); `["*"]` for a full key. */
  readonly scopes: readonly string[];
  /** The CIDRs the key may be used from; empty for anywhere. */
  readonly allowedIps: readonly string[];
  /** The key that created this one through the API (its lineage for a leak), or null. */
  readonly createdByKeyId: string | null;
}

/** The policy a new key is given; absent fields make a full key usable from anywhere. */
export interface NewKeyPolicy {
  readonly name?: string | null;
  readonly scopes?: readonly string[];
  readonly allowedIps?: readonly string[];
  readonly createdByKeyId?: string | null;
  /** False for a sandbox agent's key (`pbk_test_…`); live when absent. */
  readonly livemode?: boolean;
}

/** Makes a new plaintext key from the random source (`pbk_`, or another prefix of the same format: `pbo_` for operators). */
export const generateApiKey = (random: RandomSource, prefix: string = API_KEY_PREFIX): string => {
  const body = toBase62(random.bytes(32), BODY_LENGTH);
  return `${prefix}${body}${checksum(body)}`;
};

/**
 * A new ACTIVE key: the plaintext (shown once, stored nowhere) and the record that stores only
 * its hash and display prefix. Issued by the operator or rolled by the key's own holder.
 */
export const mintApiKey = (
  random: RandomSource,
  hasher: SecretHasher,
  fields: { id: string; agentId: string; createdAt: Date; expiresAt: Date | null; rolledFromKeyId: string | null } & NewKeyPolicy,
): { apiKey: string; record: ApiKeyRecord } => {
  const prefix = keyPrefixFor(API_KEY_PREFIX, fields.livemode ?? true);
  const apiKey = generateApiKey(random, prefix);
  return {
    apiKey,
    record: {
      id: fields.id,
      agentId: fields.agentId,
      createdAt: fields.createdAt,
      expiresAt: fields.expiresAt,
      rolledFromKeyId: fields.rolledFromKeyId,
      name: fields.name ?? null,
      scopes: [...(fields.scopes ?? FULL_KEY_SCOPES)],
      allowedIps: [...(fields.allowedIps ?? [])],
      createdByKeyId: fields.createdByKeyId ?? null,
      hash: hasher.hash(apiKey),
      prefix: keyDisplayPrefix(apiKey, prefix),
      status: 'ACTIVE',
      revokedReason: null,
      revokedAt: null,
    },
  };
};

/**
 * True when the text has the shape of a key of this family (default `pbk_`), live or sandbox
 * (`pbk_test_…`), and its checksum matches.
 */
export const isWellFormedApiKey = (text: string, family: string = API_KEY_PREFIX): boolean =>
  hasKeyShape(text, family) || hasKeyShape(text, keyPrefixFor(family, false));

const hasKeyShape = (text: string, prefix: string): boolean => {
  if (text.length !== prefix.length + BODY_LENGTH + CHECKSUM_LENGTH || !text.startsWith(prefix)) return false;
  const rest = text.slice(prefix.length);
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false;
  const body = rest.slice(0, BODY_LENGTH);
  return rest.slice(BODY_LENGTH) === checksum(body);
};

/** Whether the key's revocation has taken effect at `now` (a rolled key's lies ahead during its overlap). */
const isRevokedAt = (key: ApiKeyRecord, now: Date): boolean =>
  key.status === 'REVOKED' && (key.revokedAt === null || key.revokedAt.getTime() <= now.getTime());

/**
 * Whether a stored key may still authenticate at `now`. Evaluated on every request from the
 * (possibly cached) record, so a rolled key stops at the end of its overlap with no change made
 * to storage at that moment.
 */
export const isKeyUsable = (key: ApiKeyRecord, now: Date): boolean =>
  !isRevokedAt(key, now) && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());

/**
 * The key a write on its own lineage is made with (a create, a roll, a delete of a key it made),
 * as read again by the store under the lock a leak report takes on it, at the write's time `now`.
 * The write goes ahead only while the key may still authenticate and no revocation but a roll's
 * is stored on it (any other revocation takes effect at once, whatever the clocks say). Otherwise
 * it is refused as a revoked key's request is: DomainError `invalid-api-key`. So of a write and a
 * leak report of its key, one happens entirely before the other: what the write made is found by
 * the report's walk of the lineage, or the write is refused.
 */
export const requireLineageWriter = (key: ApiKeyRecord | null, now: Date): ApiKeyRecord => {
  if (key === null || !isKeyUsable(key, now) || (key.status === 'REVOKED' && key.revokedReason !== 'rotated')) {
    throw new DomainError('invalid-api-key');
  }
  return key;
};

/** Whether the key was revoked as leaked (which freezes what was done with it). */
export const isLeaked = (key: ApiKeyRecord): boolean => key.status === 'REVOKED' && key.revokedReason === 'leaked';

/**
 * A revocation applied to a stored key at `at`. A key not yet revoked, or whose rotation still
 * lies ahead, is revoked at `at` for `reason`; a key already revoked keeps its first revocation,
 * except that `leaked` always wins (a rotated key found leaked later becomes leaked). Both stores
 * apply this same rule.
 */
export const revokedKey = (key: ApiKeyRecord, reason: RevokedReason, at: Date): ApiKeyRecord => {
  if (!isRevokedAt(key, at)) return { ...key, status: 'REVOKED', revokedReason: reason, revokedAt: at };
  return reason === 'leaked' ? { ...key, revokedReason: 'leaked' } : key;
};

/**
 * The key a roll of `from` makes of `next`: it keeps the name and the policy (scopes, allowed IPs)
 * of the key it replaces, so a roll never widens a key. Both stores apply this same rule.
 */
export const rolledKey = (next: ApiKeyRecord, from: ApiKeyRecord): ApiKeyRecord => ({
  ...next,
  rolledFromKeyId: from.id,
  name: from.name,
  scopes: from.scopes,
  allowedIps: from.allowedIps,
});

/** What an agent or operator is shown of a key at `now`: metadata only, never the hash. */
export interface KeyView {
  readonly id: string;
  readonly prefix: string;
  readonly status: KeyStatus;
  readonly createdAt: Date;
  /** When the key stops working: its expiry, or the end of a rolled key's overlap if sooner. */
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revokedReason: RevokedReason | null;
  readonly rolledFromKeyId: string | null;
  readonly name: string | null;
  readonly scopes: readonly string[];
  readonly allowedIps: readonly string[];
  readonly createdByKeyId: string | null;
}

/**
 * The key as it stands at `now`: a rolled key in its overlap is still ACTIVE. A rolled key's
 * `expiresAt` is the end of its overlap (or its own expiry, if sooner), during the overlap and
 * after it, so the listing says when it stopped as well as when it will stop.
 */
export const keyViewAt = (key: ApiKeyRecord, lastUsedAt: Date | null, now: Date): KeyView => {
  const revoked = isRevokedAt(key, now);
  // A revocation still ahead can only be a rotation's (any other revocation takes effect at once).
  const overlapEnd = key.status === 'REVOKED' && (!revoked || key.revokedReason === 'rotated') ? key.revokedAt : null;
  const expiresAt =
    overlapEnd !== null && (key.expiresAt === null || overlapEnd.getTime() < key.expiresAt.getTime()) ? overlapEnd : key.expiresAt;
  return {
    id: key.id,
    prefix: key.prefix,
    status: revoked ? 'REVOKED' : 'ACTIVE',
    createdAt: key.createdAt,
    expiresAt,
    lastUsedAt,
    revokedAt: revoked ? key.revokedAt : null,
    revokedReason: revoked ? key.revokedReason : null,
    rolledFromKeyId: key.rolledFromKeyId,
    name: key.name,
    scopes: key.scopes,
    allowedIps: key.allowedIps,
    createdByKeyId: key.createdByKeyId,
  };
};

/**
 * The most keys an agent may hold that still authenticate: ACTIVE and not expired, a rolled key
 * counting until the end of its overlap. It bounds an agent's credentials and so its rate budgets
 * (counted per key), whichever way a key is added: the operator's issue, a roll, a create.
 */
export const MAX_LIVE_KEYS_PER_AGENT = 50;

/**
 * The bound on an agent's keys, applied by the stores under a lock on the agent, so that adds
 * racing each other cannot pass it together. `keysAfter` are the agent's keys as they would stand
 * once the change is made (the new key included, a rolled key with its overlap's end), `now` the
 * change's time. Throws DomainError `too-many-keys` when more than the bound would authenticate.
 */
export const checkKeyLimit = (keysAfter: readonly ApiKeyRecord[], now: Date): void => {
  const live = keysAfter.filter((k) => isKeyUsable(k, now)).length;
  if (live > MAX_LIVE_KEYS_PER_AGENT) {
    throw new DomainError('too-many-keys', {
      message:
        `An agent holds at most ${MAX_LIVE_KEYS_PER_AGENT} keys that are not revoked (keys in a roll’s overlap count). ` +
        'Revoke one first, wait for a roll’s overlap to end, or roll with overlapSeconds 0.',
    });
  }
};

/** Overlap of a roll when the caller names none, and the most it may name (seconds). */
export const DEFAULT_ROLL_OVERLAP_SECONDS = 3600;
export const MAX_ROLL_OVERLAP_SECONDS = 86_400;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function toBase62(bytes: Uint8Array, width: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}
