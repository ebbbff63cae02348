import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The generated key that seals webhook secrets when none is configured: made once (the first
 * instance to start wins; the others read it) and kept in the database, beside what it protects.
 */
export async function storedWebhookSecretKey(knex: Knex): Promise<Buffer> {
  await knex.raw(`INSERT INTO webhook_secret_keys (id, key) VALUES ('generated', ?) ON CONFLICT (id) DO NOTHING`, [
    randomBytes(32).toString('base64'),
  ]);
  const row = (await knex('webhook_secret_keys').where({ id: 'generated' }).first()) as { key: string };
  return Buffer.from(row.key, 'base64');
}
