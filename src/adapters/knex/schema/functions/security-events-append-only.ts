import type { SqlFunction } from './sql-function.js';

/**
 * Security events are append-only (`security_events_append_only`, 0018): an update or delete is
 * refused, except a delete by the purge, which sets `pbw.security_event_purge` for its transaction.
 */
export const securityEventsAppendOnly: SqlFunction = {
  signature: 'pbw_security_events_append_only()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('pbw.security_event_purge', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'security events are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END `,
};
