import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretSealer } from '../../domain/webhooks/webhook-ports.port.js';

/**
 * AES-256-GCM with one 32-byte key: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url). The key
 * id (8 hex chars of the key's SHA-256) tells a secret sealed under another key from a tampered
 * one. The key never leaves the process and appears in no message.
 */
export class AesGcmSecretSealer implements SecretSealer {
  private readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', this.keyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string): string {
    const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined)
      throw new Error('not a sealed webhook secret');
    if (keyId !== this.keyId) throw new Error(`webhook secret sealed with another key (${keyId}); set WEBHOOK_SECRET_KEY to that key`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
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
 * A sealer whose key arrives after composition (read from the database at start). Used when
 * `WEBHOOK_SECRET_KEY` is not configured.
 */
export class DeferredSecretSealer implements SecretSealer {
  private inner: AesGcmSecretSealer | null = null;

  setKey(key: Buffer): void {
    this.inner = new AesGcmSecretSealer(key);
  }

  seal(secret: string): string {
    return this.ready().seal(secret);
  }

  open(sealed: string): string {
    return this.ready().open(sealed);
  }

  private ready(): AesGcmSecretSealer {
    if (this.inner === null) throw new Error('the webhook secret key is not loaded yet');
    return this.inner;
  }
}
