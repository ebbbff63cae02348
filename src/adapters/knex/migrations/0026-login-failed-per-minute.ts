import type { Knex } from 'knex';

/**
 * `user.login_failed` is kept at most once per user and minute, whatever its `details.reason`
 * (`invalid-credentials`, or `invalid-dpop-proof` for a sign-in whose DPoP proof was refused), as
 * the trail promises: the unique index of 0018 counted each reason apart. `api_key.refused` keeps
 * its rule of once per key, reason and minute. Rows stored before held one reason only, so they
 * meet the new index as they are.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS security_events_refusal_per_minute');
  await knex.raw(`CREATE UNIQUE INDEX security_events_refusal_per_minute ON security_events
    (type, subject_kind, subject_id, (coalesce(details->>'reason', '')), date_trunc('minute', occurred_at AT TIME ZONE 'UTC'))
    WHERE type = 'api_key.refused'`);
  await knex.raw(`CREATE UNIQUE INDEX security_events_login_failed_per_minute ON security_events
    (type, subject_kind, subject_id, date_trunc('minute', occurred_at AT TIME ZONE 'UTC'))
    WHERE type = 'user.login_failed'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS security_events_login_failed_per_minute');
  await knex.raw('DROP INDEX IF EXISTS security_events_refusal_per_minute');
  await knex.raw(`CREATE UNIQUE INDEX security_events_refusal_per_minute ON security_events
    (type, subject_kind, subject_id, (coalesce(details->>'reason', '')), date_trunc('minute', occurred_at AT TIME ZONE 'UTC'))
    WHERE type IN ('api_key.refused', 'user.login_failed')`);
}
