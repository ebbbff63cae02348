import type { OperatorKeyRecord, ResolvedOperatorKey } from '../../domain/catalogue/operator-key.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** Operator keys in process memory; every write calls `changed` (the resolver cache's clear). */
export class MemoryOperatorKeyStore implements OperatorKeyStore {
  private readonly byId = new Map<string, OperatorKeyRecord>();
  private readonly idByHash = new Map<string, string>();

  constructor(
    private readonly operators: OperatorDirectory,
    private readonly changed: () => void = () => undefined,
  ) {}

  async issue(record: OperatorKeyRecord): Promise<OperatorKeyRecord> {
    if ((await this.operators.find(record.operatorCode)) === null) throw new DomainError('operator-not-found');
    this.byId.set(record.id, record);
    this.idByHash.set(record.hash, record.id);
    this.changed();
    return record;
  }

  async revoke(keyId: string, at: Date): Promise<OperatorKeyRecord> {
    const key = this.byId.get(keyId);
    if (key === undefined) throw new DomainError('key-not-found');
    if (key.revokedAt !== null) return key;
    const revoked = { ...key, revokedAt: at };
    this.byId.set(keyId, revoked);
    this.changed();
    return revoked;
  }

  async findByKeyHash(keyHash: string): Promise<ResolvedOperatorKey | null> {
    const id = this.idByHash.get(keyHash);
    const key = id === undefined ? undefined : this.byId.get(id);
    if (key === undefined) return null;
    const operator = await this.operators.find(key.operatorCode);
    return operator === null ? null : { key, operator };
  }
}
