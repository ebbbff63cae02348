import type { Knex } from 'knex';
import { SealedWithAnotherKey, sealedKeyId, type KeySealer } from '../crypto/secret-sealer.js';
import type { SigningKeyStore, StoredSigningKey } from '../../domain/identity/signing-key-store.port.js';
import { isUniqueViolation } from './pg-errors.js';

interface KeyRow {
  kid: string;
  ring: string;
  alg: string;
  /** Only in a row written before private parts were sealed, until the next start seals it. */
  private_jwk: Record<string, unknown> | string | null;
  sealed_private_jwk: string | null;
  public_jwk: Record<string, unknown> | string;
  status: 'ACTIVE' | 'RETIRED';
  created_at: Date;
  retired_at: Date | null;
}

const json = (v: Record<string, unknown> | string): Record<string, unknown> =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : v;

/** What a signing key's sealed private part is bound to: its kid (the row's key), so it opens on its own row only. */
export const signingKeyContext = (kid: string): string => `token_signing_keys:${kid}`;

/**
 * Signing keys in PostgreSQL. A partial unique index allows one ACTIVE key per ring, so
 * instances that start together insert-or-ignore their candidates and all read the one winner.
 * The private JWK is stored sealed by `sealer` (bound to the kid), never in clear: a copy of the
 * database or a backup holds no key that signs tokens.
 */
export class KnexSigningKeyStore implements SigningKeyStore {
  constructor(
    private readonly knex: Knex,
    private readonly sealer: KeySealer,
  ) {}

  private toKey(r: KeyRow): StoredSigningKey {
    const privateJwk =
      r.sealed_private_jwk !== null ? this.open(r.kid, r.sealed_private_jwk) : json(r.private_jwk as Record<string, unknown> | string);
    return {
      kid: r.kid,
      alg: r.alg,
      privateJwk,
      publicJwk: json(r.public_jwk),
      createdAt: new Date(r.created_at),
      retiredAt: r.retired_at === null ? null : new Date(r.retired_at),
    };
  }

  private open(kid: string, sealed: string): Record<string, unknown> {
    try {
      return JSON.parse(this.sealer.open(sealed, signingKeyContext(kid))) as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof SealedWithAnotherKey)) throw err;
      throw new SealedWithAnotherKey(
        `the token signing keys in the database are sealed with another key (id ${sealedKeyId(sealed) ?? '?'}) than this instance's SECRETS_KEY (id ${this.sealer.keyId}); ` +
          'start with the key they were sealed with (no new signing key is made: every token issued would stop verifying)',
      );
    }
  }

  private row(ring: string, k: StoredSigningKey): Omit<KeyRow, 'status' | 'retired_at'> & { status: 'ACTIVE' } {
    return {
      kid: k.kid,
      ring,
      alg: k.alg,
      private_jwk: null,
      sealed_private_jwk: this.sealer.seal(JSON.stringify(k.privateJwk), signingKeyContext(k.kid)),
      public_jwk: JSON.stringify(k.publicJwk),
      status: 'ACTIVE',
      created_at: k.createdAt,
    };
  }

  async ensureActive(ring: string, candidate: StoredSigningKey): Promise<StoredSigningKey> {
    const existing = await this.active(this.knex, ring);
    if (existing !== null) return existing;
    await this.knex('token_signing_keys').insert(this.row(ring, candidate)).onConflict().ignore();
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
        await trx('token_signing_keys').insert(this.row(ring, next));
        return { active: { ...next, retiredAt: null }, retired: old === undefined ? null : this.toKey(old as KeyRow) };
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
    return rows.map((r) => this.toKey(r));
  }

  private async active(knex: Knex, ring: string): Promise<StoredSigningKey | null> {
    const r = await knex<KeyRow>('token_signing_keys').where({ ring, status: 'ACTIVE' }).first();
    return r === undefined ? null : this.toKey(r);
  }
}
