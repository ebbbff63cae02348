import type { OperatorKeyRecord, ResolvedOperatorKey } from '../../domain/catalogue/operator-key.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { operatorOf, type OperatorRow } from './operator-directory.knex.js';
import { isForeignKeyViolation } from './pg-errors.js';
import { KnexStore } from './knex-store.js';

interface OperatorKeyRow {
  id: string;
  operator_code: string;
  key_hash: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = ['id', 'operator_code', 'key_hash', 'prefix', 'created_at', 'revoked_at'] as const;

const toRow = (k: OperatorKeyRecord): OperatorKeyRow => ({
  id: k.id,
  operator_code: k.operatorCode,
  key_hash: k.hash,
  prefix: k.prefix,
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
});

const toKey = (r: OperatorKeyRow): OperatorKeyRecord => ({
  id: r.id,
  operatorCode: r.operator_code,
  hash: r.key_hash,
  prefix: r.prefix,
  createdAt: new Date(r.created_at),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
});

/**
 * Operator keys on PostgreSQL: the operator checked by a foreign key, a revocation set once (a
 * revoked key keeps its first `revoked_at`), a lookup one indexed join on the hash.
 */
export class KnexOperatorKeyStore extends KnexStore implements OperatorKeyStore {
  async issue(record: OperatorKeyRecord): Promise<OperatorKeyRecord> {
    try {
      await this.knex('operator_keys').insert(toRow(record));
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new DomainError('operator-not-found');
      throw err;
    }
    return record;
  }

  async revoke(keyId: string, at: Date): Promise<OperatorKeyRecord> {
    const [revoked] = (await this.knex('operator_keys')
      .where({ id: keyId })
      .whereNull('revoked_at')
      .update({ revoked_at: at })
      .returning([...COLUMNS])) as OperatorKeyRow[];
    if (revoked !== undefined) return toKey(revoked);
    const existing = (await this.knex('operator_keys')
      .where({ id: keyId })
      .first([...COLUMNS])) as OperatorKeyRow | undefined;
    if (existing === undefined) throw new DomainError('key-not-found');
    return toKey(existing);
  }

  async findByKeyHash(keyHash: string): Promise<ResolvedOperatorKey | null> {
    const row = (await this.knex('operator_keys as k')
      .join('operators as o', 'o.code', 'k.operator_code')
      .where('k.key_hash', keyHash)
      .first(
        ...COLUMNS.map((c) => `k.${c}`),
        'o.code',
        'o.name',
        'o.timezone',
        'o.confirmation',
        'o.confirmation_window_minutes',
        'o.livemode',
      )) as (OperatorKeyRow & OperatorRow) | undefined;
    if (row === undefined) return null;
    return { key: toKey(row), operator: operatorOf(row) };
  }
}
