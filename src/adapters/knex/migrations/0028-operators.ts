import type { Knex } from 'knex';

/**
 * Operators and transfer stock (CONTRACT §6.1). Every bus schedule and transfer fare now belongs
 * to an operator. An existing catalogue migrates as it stands: each schedule's operator name
 * becomes an operator (code: the name's slug, as the shipped catalogue makes its codes; instant,
 * as every booking was), and every transfer fare goes to the demo transfer operator with the demo
 * fleet, so transfers keep selling. Quotes still bookable and orders learn their operator, and
 * transfer orders the vehicle they hold. The pickup hour of those is the UTC hour: the demo's
 * Bangkok time is a whole number of hours off UTC, so it is also the local one.
 */
const DEMO_TRANSFER_OPERATOR = { code: 'SIAM-AIRPORT-TRANSFERS', name: 'Siam Airport Transfers', timezone: 'Asia/Bangkok' };
const DEMO_FLEET_VEHICLES = 4;

const SLUG = `coalesce(nullif(left(trim(both '-' from regexp_replace(upper(s.operator), '[^A-Z0-9]+', '-', 'g')), 32), ''), 'OPERATOR')`;
const ZONE = `CASE WHEN s.utc_offset_minutes = 420 THEN 'Asia/Bangkok'
  WHEN s.utc_offset_minutes <> 0 AND s.utc_offset_minutes % 60 = 0 AND abs(s.utc_offset_minutes) <= 720
    THEN 'Etc/GMT' || CASE WHEN s.utc_offset_minutes > 0 THEN '-' ELSE '+' END || (abs(s.utc_offset_minutes) / 60)::text
  ELSE 'UTC' END`;
const PICKUP_HOUR = `date_trunc('hour', (details->>'pickupAt')::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operators', (t) => {
    t.text('code').primary();
    t.text('name').notNullable();
    t.text('timezone').notNullable();
    t.text('confirmation').notNullable().checkIn(['instant', 'on-request']);
    t.integer('confirmation_window_minutes').notNullable().defaultTo(120);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE operators ADD CONSTRAINT operators_window_in_range CHECK (confirmation_window_minutes BETWEEN 1 AND 10080)');
  await knex.schema.createTable('operator_fleets', (t) => {
    t.text('operator_code').notNullable().references('code').inTable('operators');
    t.text('vehicle_class').notNullable().references('code').inTable('vehicle_classes');
    t.integer('vehicles').notNullable();
    t.primary(['operator_code', 'vehicle_class']);
  });
  await knex.raw('ALTER TABLE operator_fleets ADD CONSTRAINT operator_fleets_vehicles_in_range CHECK (vehicles BETWEEN 0 AND 10000)');
  // One row per operator, class and pickup hour that has been booked: the row every booking of
  // that hour locks before it counts the orders holding a vehicle there.
  await knex.schema.createTable('transfer_stock_hours', (t) => {
    t.text('operator_code').notNullable();
    t.text('vehicle_class').notNullable();
    t.timestamp('pickup_hour', { useTz: true }).notNullable();
    t.primary(['operator_code', 'vehicle_class', 'pickup_hour']);
  });

  // Bus schedules: their operator names become operators.
  await knex.raw(`INSERT INTO operators (code, name, timezone, confirmation)
    SELECT DISTINCT ON (${SLUG}) ${SLUG}, s.operator, ${ZONE}, 'instant' FROM bus_schedules s ORDER BY ${SLUG}, s.id
    ON CONFLICT (code) DO NOTHING`);
  await knex.schema.alterTable('bus_schedules', (t) => {
    t.text('operator_code').nullable().references('code').inTable('operators');
  });
  await knex.raw(`UPDATE bus_schedules s SET operator_code = ${SLUG}`);
  await knex.raw('ALTER TABLE bus_schedules ALTER COLUMN operator_code SET NOT NULL');
  await knex.schema.alterTable('bus_schedules', (t) => t.dropColumn('operator'));

  // Transfer fares: all to the demo transfer operator, with the demo fleet.
  const fares = (await knex('transfer_fares').count<{ n: number | string }[]>({ n: '*' }).first())?.n ?? 0;
  if (Number(fares) > 0) {
    await knex('operators')
      .insert({ ...DEMO_TRANSFER_OPERATOR, confirmation: 'instant', confirmation_window_minutes: 120 })
      .onConflict('code')
      .ignore();
    await knex.raw(
      `INSERT INTO operator_fleets (operator_code, vehicle_class, vehicles) SELECT ?, code, ? FROM vehicle_classes ON CONFLICT DO NOTHING`,
      [DEMO_TRANSFER_OPERATOR.code, DEMO_FLEET_VEHICLES],
    );
  }
  await knex.schema.alterTable('transfer_fares', (t) => {
    t.text('operator_code').nullable().references('code').inTable('operators');
  });
  await knex('transfer_fares').update({ operator_code: DEMO_TRANSFER_OPERATOR.code });
  await knex.raw('ALTER TABLE transfer_fares ALTER COLUMN operator_code SET NOT NULL');

  // Quotes: who runs them, how it confirms, and a transfer's vehicle (for those still bookable).
  await knex.schema.alterTable('quotes', (t) => {
    t.jsonb('operator').nullable();
    t.text('confirmation').nullable();
    t.jsonb('vehicle').nullable();
  });
  await knex.raw(`UPDATE quotes q SET operator = jsonb_build_object('code', o.code, 'name', o.name), confirmation = o.confirmation
    FROM bus_schedules s JOIN operators o ON o.code = s.operator_code
    WHERE q.product = 'express-bus' AND q.expires_at > now() AND s.id = q.seats->>'scheduleId'`);
  await knex.raw(
    `UPDATE quotes SET operator = jsonb_build_object('code', ?::text, 'name', ?::text), confirmation = 'instant',
      vehicle = jsonb_build_object('operatorCode', ?::text, 'vehicleClass', details->>'vehicleClass',
        'pickupHour', to_char(${PICKUP_HOUR} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     WHERE product = 'airport-transfer' AND expires_at > now()`,
    [DEMO_TRANSFER_OPERATOR.code, DEMO_TRANSFER_OPERATOR.name, DEMO_TRANSFER_OPERATOR.code],
  );

  // Orders: their operator, and for transfers the vehicle they hold.
  await knex.schema.alterTable('orders', (t) => {
    t.text('operator_code').nullable().references('code').inTable('operators');
    t.text('vehicle_class').nullable();
    t.timestamp('pickup_hour', { useTz: true }).nullable();
  });
  await knex.raw(`UPDATE orders SET operator_code = s.operator_code FROM bus_schedules s
    WHERE orders.product = 'express-bus' AND s.id = orders.seats->>'scheduleId'`);
  await knex.raw(
    `UPDATE orders SET operator_code = ?, vehicle_class = details->>'vehicleClass', pickup_hour = ${PICKUP_HOUR}
     WHERE product = 'airport-transfer'`,
    [DEMO_TRANSFER_OPERATOR.code],
  );
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_vehicle_complete CHECK (
    (vehicle_class IS NULL) = (pickup_hour IS NULL) AND (vehicle_class IS NULL OR operator_code IS NOT NULL))`);
  await knex.raw('CREATE INDEX orders_vehicle_stock ON orders (operator_code, vehicle_class, pickup_hour) WHERE pickup_hour IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS orders_vehicle_stock');
  await knex.raw('ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_vehicle_complete');
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('pickup_hour');
    t.dropColumn('vehicle_class');
    t.dropColumn('operator_code');
  });
  await knex.schema.alterTable('quotes', (t) => {
    t.dropColumn('vehicle');
    t.dropColumn('confirmation');
    t.dropColumn('operator');
  });
  await knex.schema.alterTable('transfer_fares', (t) => t.dropColumn('operator_code'));
  await knex.schema.alterTable('bus_schedules', (t) => t.text('operator').nullable());
  await knex.raw('UPDATE bus_schedules s SET operator = o.name FROM operators o WHERE o.code = s.operator_code');
  await knex.raw('ALTER TABLE bus_schedules ALTER COLUMN operator SET NOT NULL');
  await knex.schema.alterTable('bus_schedules', (t) => t.dropColumn('operator_code'));
  for (const table of ['transfer_stock_hours', 'operator_fleets', 'operators']) await knex.schema.dropTableIfExists(table);
}
