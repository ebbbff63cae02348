import type { Knex } from 'knex';
import type { SigningKeyStore, StoredSigningKey } from '../../domain/identity/signing-key-store.port.js';
import { isUniqueViolation } from './pg-errors.js';

interface KeyRow {
  kid: string;
  ring: string;
  alg: string;
  private_jwk: Record<string, unknown> | string;
  public_jwk: Record<string, unknown> | string;
  status: 'ACTIVE' | 'RETIRED';
  created_at: Date;
  retired_at: Date | null;
}

const json = (v: Record<string, unknown> | string): Record<string, unknown> =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : v;

const toKey = (r: KeyRow): StoredSigningKey => ({
  kid: r.kid,
  alg: r.alg,
  privateJwk: json(r.private_jwk),
  publicJwk: json(r.public_jwk),
  createdAt: new Date(r.created_at),
  retiredAt: r.retired_at === null ? null : new Date(r.retired_at),
});

const row = (ring: string, k: StoredSigningKey): Omit<KeyRow, 'status' | 'retired_at'> & { status: 'ACTIVE' } => ({
  kid: k.kid,
  ring,
  alg: k.alg,
  private_jwk: JSON.stringify(k.privateJwk),
  public_jwk: JSON.stringify(k.publicJwk),
  status: 'ACTIVE',
  created_at: k.createdAt,
});

/**
 * Signing keys in PostgreSQL. A partial unique index allows one ACTIVE key per ring, so
 * instances that start together insert-or-ignore their candidates and all read the one winner.
 */
export class KnexSigningKeyStore implements SigningKeyStore {
  constructor(private readonly knex: Knex) {}

  async ensureActive(ring: string, candidate: StoredSigningKey): Promise<StoredSigningKey> {
    const existing = await this.active(this.knex, ring);
    if (existing !== null) return existing;
    await this.knex('token_signing_keys').insert(row(ring, candidate)).onConflict().ignore();
    const winner = await this.active(this.knex, ring);
    if (winner === null) throw new Error(`no active signing key in ring ${ring}`);
    return winner;
  }

  async rotate(ring: string, next: StoredSigningKey, at: Date): Promise<{ active: StoredSigningKey; retired: StoredSigningKey | null }> {
    try {
      return await this.knex.transaction(async (trx) => {
        const [old] = await trx<KeyRow>('token_signing_keys')
          .where({ ring, status: 'ACTIVE' })
          .update({ status: 'RETIRED', retired_at: at })
          .returning('*');
        await trx('token_signing_keys').insert(row(ring, next));
        return { active: { ...next, retiredAt: null }, retired: old === undefined ? null : toKey(old as KeyRow) };
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // A concurrent rotation committed first: its key is the active one now.
      const active = await this.active(this.knex, ring);
      if (active === null) throw err;
      return { active, retired: null };
    }
  }

  async listUsable(ring: string, retiredAfter: Date): Promise<StoredSigningKey[]> {
    const rows = await this.knex<KeyRow>('token_signing_keys')
      .where({ ring })
      .andWhere((q) => q.where({ status: 'ACTIVE' }).orWhere('retired_at', '>', retiredAfter))
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'kid', order: 'desc' },
      ]);
    return rows.map(toKey);
  }

  private async active(knex: Knex, ring: string): Promise<StoredSigningKey | null> {
    const r = await knex<KeyRow>('token_signing_keys').where({ ring, status: 'ACTIVE' }).first();
    return r === undefined ? null : toKey(r);
  }
}
