import { randomBytes } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { AesGcmSecretSealer, parseSecretKey, sealingKeyId } from '../crypto/secret-sealer.js';
import { signingKeyContext } from './signing-key-store.knex.js';

/** The file in the embedded folder that keeps a generated secrets key (mode 0600). */
export const SECRETS_KEY_FILE = 'secrets.key';

/** Where this instance's secrets key came from. */
export type SecretsKeySource =
  | { readonly kind: 'configured' }
  /** `created`: made by this start (the folder's database held nothing sealed). */
  | { readonly kind: 'file'; readonly file: string; readonly created: boolean }
  /** Generated and kept in the database: PostgreSQL without `SECRETS_KEY`, outside production. */
  | { readonly kind: 'database' };

export interface SecretsKeyOptions {
  /** `SECRETS_KEY` (or its former name `WEBHOOK_SECRET_KEY`); null when unset. */
  readonly configured: Buffer | null;
  /** The embedded database's folder, where a generated key is kept; null on PostgreSQL (or an embedded database in memory). */
  readonly folder: string | null;
}

const GENERATED = 'generated';

/**
 * The key that seals stored secrets (webhook endpoint secrets, token signing keys), and what the
 * database must become under it, done at every start and safe to run on several instances at once:
 *
 * - the key is the configured one; else, on an embedded folder, the one in its `secrets.key`
 *   (made at the first start, mode 0600); else one generated and kept in the database (table
 *   `webhook_secret_keys`, as before this release);
 * - a key generated and kept in the database by an earlier release, when the key now comes from
 *   elsewhere, is taken out of it: what it sealed is sealed again under the key (or, on an embedded
 *   folder without a key file, it becomes the file's key), then it is deleted;
 * - signing keys stored in clear by an earlier release are sealed.
 *
 * An embedded folder whose database already holds sealed secrets but has no key file is refused
 * rather than given a new key that opens none of them.
 */
export async function loadSecretsKey(knex: Knex, options: SecretsKeyOptions): Promise<{ key: Buffer; source: SecretsKeySource }> {
  const kept = await keptInDatabase(knex);
  let key: Buffer;
  let source: SecretsKeySource;
  if (options.configured !== null) {
    key = options.configured;
    source = { kind: 'configured' };
  } else if (options.folder !== null) {
    const file = join(options.folder, SECRETS_KEY_FILE);
    const read = await readKeyFile(file);
    if (read !== null) {
      key = read;
      source = { kind: 'file', file, created: false };
    } else {
      if (kept === null) {
        const sealedWith = await sealedKeyIds(knex);
        if (sealedWith.length > 0) {
          throw new Error(
            `${file} is missing, but the database in this folder holds secrets sealed with key ${sealedWith.join(', ')}: ` +
              `put back the ${SECRETS_KEY_FILE} this folder was used with (or set SECRETS_KEY to that key)`,
          );
        }
      }
      key = kept ?? randomBytes(32);
      await writeKeyFile(file, key);
      source = { kind: 'file', file, created: kept === null };
    }
  } else {
    key = kept ?? (await generateInDatabase(knex));
    source = { kind: 'database' };
  }
  if (source.kind !== 'database' && kept !== null) await moveOutOfDatabase(knex, kept, key);
  await sealClearSigningKeys(knex, new AesGcmSecretSealer(key));
  return { key, source };
}

async function keptInDatabase(knex: Knex): Promise<Buffer | null> {
  const row = (await knex('webhook_secret_keys').where({ id: GENERATED }).first()) as { key: string } | undefined;
  return row === undefined ? null : Buffer.from(row.key, 'base64');
}

/** Made once (the first instance to start wins; the others read it). */
async function generateInDatabase(knex: Knex): Promise<Buffer> {
  await knex.raw(`INSERT INTO webhook_secret_keys (id, key) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, [
    GENERATED,
    randomBytes(32).toString('base64'),
  ]);
  return (await keptInDatabase(knex))!;
}

/** The ids of the keys the database's sealed values were sealed with. */
async function sealedKeyIds(knex: Knex): Promise<string[]> {
  const rows = (
    await knex.raw(`SELECT split_part(sealed_private_jwk, '.', 2) AS id FROM token_signing_keys WHERE sealed_private_jwk IS NOT NULL
      UNION SELECT split_part(sealed_secret, '.', 2) FROM webhook_endpoints ORDER BY 1`)
  ).rows as { id: string }[];
  return rows.map((r) => r.id);
}

async function readKeyFile(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = parseSecretKey(text);
  if (key === null) throw new Error(`${file} does not hold a secrets key (32 bytes as 64 hex digits or base64)`);
  return key;
}

/** Written whole and flushed before anything is sealed under it; never replaces a file. */
async function writeKeyFile(file: string, key: Buffer): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${key.toString('base64')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Seals again under `key` what the database's own key sealed, then deletes that key: one transaction. */
async function moveOutOfDatabase(knex: Knex, kept: Buffer, key: Buffer): Promise<void> {
  await knex.transaction(async (trx) => {
    const locked = await trx('webhook_secret_keys').where({ id: GENERATED }).forUpdate().first();
    if (locked === undefined) return; // another instance moved it first
    const oldId = sealingKeyId(kept);
    if (oldId !== sealingKeyId(key)) {
      const from = new AesGcmSecretSealer(kept);
      const to = new AesGcmSecretSealer(key);
      const endpoints = (
        await trx.raw(`SELECT id, sealed_secret FROM webhook_endpoints WHERE split_part(sealed_secret, '.', 2) = ?`, [oldId])
      ).rows as { id: string; sealed_secret: string }[];
      for (const e of endpoints) {
        await trx('webhook_endpoints')
          .where({ id: e.id })
          .update({ sealed_secret: to.seal(from.open(e.sealed_secret)) });
      }
      const keys = (
        await trx.raw(`SELECT kid, sealed_private_jwk FROM token_signing_keys WHERE split_part(sealed_private_jwk, '.', 2) = ?`, [oldId])
      ).rows as { kid: string; sealed_private_jwk: string }[];
      for (const k of keys) {
        const context = signingKeyContext(k.kid);
        await trx('token_signing_keys')
          .where({ kid: k.kid })
          .update({ sealed_private_jwk: to.seal(from.open(k.sealed_private_jwk, context), context) });
      }
    }
    await trx('webhook_secret_keys').where({ id: GENERATED }).delete();
  });
}

/** Signing keys an earlier release stored in clear, sealed and their clear copy removed. */
async function sealClearSigningKeys(knex: Knex, sealer: AesGcmSecretSealer): Promise<void> {
  await knex.transaction(async (trx) => {
    const rows = (await trx.raw(`SELECT kid, private_jwk::text AS jwk FROM token_signing_keys WHERE private_jwk IS NOT NULL FOR UPDATE`))
      .rows as { kid: string; jwk: string }[];
    for (const r of rows) {
      await trx('token_signing_keys')
        .where({ kid: r.kid })
        .update({ sealed_private_jwk: sealer.seal(r.jwk, signingKeyContext(r.kid)), private_jwk: null });
    }
  });
}
