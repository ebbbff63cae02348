import { IDENTITY_CHANNEL } from '../../migrations/0001-identity-catalogue.js';
import { REVOKED_TOKENS_TABLE } from '../../migrations/0011-oauth-revocation.js';
import type { SqlFunction } from './sql-function.js';

/** Announces a revoked token (`revoked_tokens_announced`, 0011) with its expiry and `jti`, on commit. */
export const notifyTokenRevoked: SqlFunction = {
  signature: 'pbw_notify_token_revoked()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      PERFORM pg_notify('${IDENTITY_CHANNEL}',
        '${REVOKED_TOKENS_TABLE}:' || floor(extract(epoch FROM NEW.expires_at))::bigint || ':' || NEW.jti);
      RETURN NULL;
    END `,
};
