import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretSealer } from '../../domain/webhooks/webhook-ports.port.js';

/**
 * What seals stored secrets with the operator's key (`SECRETS_KEY`): webhook endpoint secrets,
 * and the token signing keys bound to their kid (`context`, authenticated but not stored), so a
 * sealed value copied onto another row does not open there.
 */
export interface KeySealer extends SecretSealer {
  /** 8 hex characters of the key's SHA-256: names the key in sealed values and messages, never reveals it. */
  readonly keyId: string;
  seal(secret: string, context?: string): string;
  open(sealed: string, context?: string): string;
}

/** The id of the key `sealed` was sealed with (see `KeySealer.keyId`), or null when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  const [version, keyId] = sealed.split('.');
  return version === 'v1' && keyId !== undefined && /^[0-9a-f]{8}$/.test(keyId) ? keyId : null;
}

/** The id of a 32-byte sealing key. */
export const sealingKeyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** A value sealed under another key than this process's: the operator must configure that key. */
export class SealedWithAnotherKey extends Error {
  override readonly name = 'SealedWithAnotherKey';
}

/**
 * AES-256-GCM with one 32-byte key: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url). The key
 * id (8 hex chars of the key's SHA-256) tells a secret sealed under another key from a tampered
 * one. The key never leaves the process and appears in no message.
 */
export class AesGcmSecretSealer implements KeySealer {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
    this.keyId = sealingKeyId(key);
  }

  seal(secret: string, context?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', this.keyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string, context?: string): string {
    const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) throw new Error('not a sealed secret');
    if (keyId !== this.keyId) {
      throw new SealedWithAnotherKey(
        `a stored secret is sealed with another key (id ${keyId}) than this instance's (id ${this.keyId}); set SECRETS_KEY to the key it was sealed with`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a sealed secret does not open: it was altered or belongs to another record');
    }
  }
}

/** A 32-byte key from its text form: 64 hex digits or base64 (standard or url-safe). Null otherwise. */
export function parseSecretKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return null;
  const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

/**
 * A sealer whose key arrives after composition (read at start: from the embedded folder's key
 * file, or from the database when nothing else holds one).
 */
export class DeferredSecretSealer implements KeySealer {
  private inner: AesGcmSecretSealer | null = null;

  setKey(key: Buffer): void {
    this.inner = new AesGcmSecretSealer(key);
  }

  get keyId(): string {
    return this.ready().keyId;
  }

  seal(secret: string, context?: string): string {
    return this.ready().seal(secret, context);
  }

  open(sealed: string, context?: string): string {
    return this.ready().open(sealed, context);
  }

  private ready(): AesGcmSecretSealer {
    if (this.inner === null) throw new Error('the secrets key is not loaded yet');
    return this.inner;
  }
}
