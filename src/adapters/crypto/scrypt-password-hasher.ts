import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../domain/identity/password-hasher.port.js';

const scryptAsync = (password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

/** scrypt cost parameters; N = 2^15, r = 8, p = 1 takes 32 MiB and tens of milliseconds per hash. */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/**
 * Passwords hashed with node's scrypt (memory-hard). The stored form
 * `scrypt$N$r$p$<salt>$<hash>` carries its own cost, so the cost can rise without breaking
 * existing hashes. Verifying for an unknown account runs scrypt against a dummy hash of the
 * same cost, so the answer takes as long as a real one.
 */
export class ScryptPasswordHasher implements PasswordHasher {
  private dummy: Promise<string> | null = null;

  constructor(private readonly cost: ScryptCost = DEFAULT_SCRYPT_COST) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    const { N, r, p } = this.cost;
    const key = await scryptAsync(password, salt, KEY_LENGTH, this.options(this.cost));
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  async verify(password: string, stored: string | null): Promise<boolean> {
    const parsed = stored === null ? null : parse(stored);
    if (parsed === null) {
      this.dummy ??= this.hash(randomBytes(16).toString('hex'));
      const fake = parse(await this.dummy)!;
      await scryptAsync(password, fake.salt, fake.key.length, this.options(fake.cost));
      return false;
    }
    const key = await scryptAsync(password, parsed.salt, parsed.key.length, this.options(parsed.cost));
    return timingSafeEqual(key, parsed.key);
  }

  private options(cost: ScryptCost): ScryptOptions {
    return { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  }
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((v) => Number.parseInt(v!, 10)) as [number, number, number];
  if (![N, r, p].every((v) => Number.isInteger(v) && v > 0) || N > 2 ** 20 || r > 32 || p > 16) return null;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || key.length < 16) return null;
  return { cost: { N, r, p }, salt, key };
}
