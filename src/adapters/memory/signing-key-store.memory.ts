import type { SigningKeyStore, StoredSigningKey } from '../../domain/identity/signing-key-store.port.js';

/** Signing keys in process memory (a single instance has nothing to share them with). */
export class MemorySigningKeyStore implements SigningKeyStore {
  private readonly rings = new Map<string, StoredSigningKey[]>();

  async ensureActive(ring: string, candidate: StoredSigningKey): Promise<StoredSigningKey> {
    const keys = this.ring(ring);
    const active = keys.find((k) => k.retiredAt === null);
    if (active !== undefined) return active;
    const stored = { ...candidate, retiredAt: null };
    keys.push(stored);
    return stored;
  }

  async rotate(ring: string, next: StoredSigningKey, at: Date): Promise<{ active: StoredSigningKey; retired: StoredSigningKey | null }> {
    const keys = this.ring(ring);
    const index = keys.findIndex((k) => k.retiredAt === null);
    let retired: StoredSigningKey | null = null;
    if (index >= 0) {
      retired = { ...keys[index]!, retiredAt: at };
      keys[index] = retired;
    }
    const active = { ...next, retiredAt: null };
    keys.push(active);
    return { active, retired };
  }

  async listUsable(ring: string, retiredAfter: Date): Promise<StoredSigningKey[]> {
    return this.ring(ring)
      .filter((k) => k.retiredAt === null || k.retiredAt.getTime() > retiredAfter.getTime())
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.kid < b.kid ? 1 : -1));
  }

  private ring(name: string): StoredSigningKey[] {
    let keys = this.rings.get(name);
    if (keys === undefined) {
      keys = [];
      this.rings.set(name, keys);
    }
    return keys;
  }
}
