import { IDENTITY_CHANNEL } from '../../migrations/0001-identity-catalogue.js';
import type { SqlFunction } from './sql-function.js';

/**
 * Announces a change to what an API key resolves to (channels, agents, api_keys, and the wallet's
 * identity tables: their triggers are the migrations' 0001 and 0007), whoever makes it, on
 * commit: the caches of every instance listen.
 */
export const notifyIdentity: SqlFunction = {
  signature: 'pbw_notify_identity()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN PERFORM pg_notify('${IDENTITY_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END `,
};
