import type { Knex } from 'knex';

/**
 * Token signing keys' private parts sealed (AES-256-GCM under the operator's `SECRETS_KEY`, bound
 * to the key's kid) in `sealed_private_jwk`, never in clear. A row has its private part in exactly
 * one of the two columns: `private_jwk` only in a row written before this release, which the next
 * start seals (the key is not known to a migration) and clears.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE token_signing_keys ADD COLUMN sealed_private_jwk text');
  await knex.raw('ALTER TABLE token_signing_keys ALTER COLUMN private_jwk DROP NOT NULL');
  await knex.raw(
    `ALTER TABLE token_signing_keys ADD CONSTRAINT token_signing_keys_private_once CHECK ((private_jwk IS NULL) <> (sealed_private_jwk IS NULL))`,
  );
}

export async function down(): Promise<void> {
  // The sealed private parts cannot be opened here without the key: there is no way back.
  throw new Error('0024-sealed-signing-keys cannot be undone');
}
