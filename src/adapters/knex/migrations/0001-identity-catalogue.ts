import type { Knex } from 'knex';

/** Channel on which identity changes are announced to every instance's key cache. */
export const IDENTITY_CHANNEL = 'pbw_identity';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channels', (t) => {
    t.text('code').primary();
    t.text('name').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.integer('markup_bps').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('agents', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('status').notNullable().checkIn(['ACTIVE', 'SUSPENDED']);
    t.text('channel_code').notNullable().references('code').inTable('channels');
    t.specificType('entitlements', 'text[]').notNullable();
    t.integer('discount_bps').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents');
    t.text('key_hash').notNullable().unique();
    t.text('prefix').notNullable();
    t.text('status').notNullable().checkIn(['ACTIVE', 'REVOKED']);
    t.text('revoked_reason').nullable().checkIn(['rotated', 'leaked', 'operator']);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['agent_id']);
  });
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_revocation_consistent CHECK (
    (status = 'ACTIVE' AND revoked_reason IS NULL AND revoked_at IS NULL)
    OR (status = 'REVOKED' AND revoked_reason IS NOT NULL AND revoked_at IS NOT NULL))`);

  // Any change to what a key resolves to is announced, whoever makes it (service, admin CLI or
  // an operator's SQL), and only when its transaction commits.
  await knex.raw(`CREATE FUNCTION pbw_notify_identity() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('${IDENTITY_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END $$`);
  for (const table of ['channels', 'agents', 'api_keys']) {
    await knex.raw(`CREATE TRIGGER ${table}_identity_changed AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION pbw_notify_identity()`);
  }

  await knex.schema.createTable('locations', (t) => {
    t.text('id').primary();
    t.text('code').notNullable();
    t.text('name').notNullable();
    t.text('type').notNullable().checkIn(['airport', 'district', 'hotel']);
    t.text('city').notNullable();
    t.text('country').notNullable();
    t.text('zone').notNullable();
    t.text('search_text').notNullable();
  });
  await knex.schema.createTable('cities', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('country').notNullable();
    t.text('search_text').notNullable();
  });
  await knex.schema.createTable('vehicle_classes', (t) => {
    t.text('code').primary();
    t.text('name').notNullable();
    t.integer('max_passengers').notNullable();
  });
  await knex.schema.createTable('transfer_fares', (t) => {
    t.text('from_zone').notNullable();
    t.text('to_zone').notNullable();
    t.text('vehicle_class').notNullable().references('code').inTable('vehicle_classes');
    t.bigInteger('base_amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.integer('duration_minutes').notNullable();
    t.primary(['from_zone', 'to_zone', 'vehicle_class']);
  });
  await knex.schema.createTable('bus_schedules', (t) => {
    t.text('id').primary();
    t.text('from_city_id').notNullable().references('id').inTable('cities');
    t.text('to_city_id').notNullable().references('id').inTable('cities');
    t.text('operator').notNullable();
    t.specificType('departure_times', 'text[]').notNullable();
    t.integer('utc_offset_minutes').notNullable();
    t.integer('duration_minutes').notNullable();
    t.integer('seat_capacity').notNullable();
    t.bigInteger('base_amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.index(['from_city_id', 'to_city_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['bus_schedules', 'transfer_fares', 'vehicle_classes', 'cities', 'locations', 'api_keys', 'agents', 'channels']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP FUNCTION IF EXISTS pbw_notify_identity()');
}
