import type { RandomSource } from '../shared/secrets.port.js';

/**
 * API keys look like `pbk_<43 base62 chars of 32 random bytes><6 base62 chars of CRC-32>`.
 * The fixed prefix and the checksum let secret scanners recognise a leaked key and let the
 * service reject a mistyped or invented key without touching storage.
 */
export const API_KEY_PREFIX = 'pbk_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
/** How many leading characters of a key may be shown to identify it (prefix + 4). */
export const API_KEY_DISPLAY_LENGTH = API_KEY_PREFIX.length + 4;

export type KeyStatus = 'ACTIVE' | 'REVOKED';
export type RevokedReason = 'rotated' | 'leaked' | 'operator';
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
  readonly revokedAt: Date | null;
}

/** Makes a new plaintext key from the random source. */
export const generateApiKey = (random: RandomSource): string => {
  const body = toBase62(random.bytes(32), BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
};

/** True when the text has the shape of a key and its checksum matches. */
export const isWellFormedApiKey = (text: string): boolean => {
  if (text.length !== API_KEY_LENGTH || !text.startsWith(API_KEY_PREFIX)) return false;
  const rest = text.slice(API_KEY_PREFIX.length);
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false;
  const body = rest.slice(0, BODY_LENGTH);
  return rest.slice(BODY_LENGTH) === checksum(body);
};

/** Whether a stored key may still authenticate at `now`. */
export const isKeyUsable = (key: ApiKeyRecord, now: Date): boolean =>
  key.status === 'ACTIVE' && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());

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
