import { checkFleetOperator, type FleetEntry, type Operator } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isForeignKeyViolation } from './pg-errors.js';
import { KnexStore } from './knex-store.js';
import { rows } from './sql.js';

/** How an operator is stored, and back. */
export interface OperatorRow {
  code: string;
  name: string;
  timezone: string;
  confirmation: Operator['confirmation'];
  confirmation_window_minutes: number;
  livemode: boolean;
}

export const operatorToRow = (o: Operator): OperatorRow => ({
  code: o.code,
  name: o.name,
  timezone: o.timezone,
  confirmation: o.confirmation,
  confirmation_window_minutes: o.confirmationWindowMinutes,
  livemode: o.livemode,
});

export const operatorOf = (r: OperatorRow): Operator => ({
  code: r.code,
  name: r.name,
  timezone: r.timezone,
  confirmation: r.confirmation,
  confirmationWindowMinutes: r.confirmation_window_minutes,
  livemode: r.livemode,
});

const COLUMNS = ['code', 'name', 'timezone', 'confirmation', 'confirmation_window_minutes', 'livemode'] as const;

/**
 * Operators and their fleets on PostgreSQL. A code is created once by the primary key (an insert
 * that conflicts inserts nothing); a fleet entry is an upsert on (operator, class), the operator
 * and class checked by foreign keys.
 */
export class KnexOperatorDirectory extends KnexStore implements OperatorDirectory {
  async create(operator: Operator): Promise<Operator> {
    const inserted = (await this.knex('operators')
      .insert(operatorToRow(operator))
      .onConflict('code')
      .ignore()
      .returning('code')) as unknown[];
    if (inserted.length === 0) throw new DomainError('operator-exists');
    return operator;
  }

  async find(code: string): Promise<Operator | null> {
    const row = (await this.knex('operators')
      .first(...COLUMNS)
      .where({ code })) as OperatorRow | undefined;
    return row === undefined ? null : operatorOf(row);
  }

  async list(): Promise<Operator[]> {
    return (
      (await this.knex('operators')
        .select(...COLUMNS)
        .orderByRaw('code COLLATE "C"')) as OperatorRow[]
    ).map(operatorOf);
  }

  async setFleet(entry: FleetEntry): Promise<FleetEntry | null> {
    if ((await this.find(entry.operatorCode)) === null) return null;
    const [runs] = await rows<{ bus_schedules: boolean; transfer_fares: boolean }>(
      this.knex,
      `SELECT EXISTS (SELECT 1 FROM bus_schedules WHERE operator_code = $1) AS bus_schedules,
         EXISTS (SELECT 1 FROM transfer_fares WHERE operator_code = $1) AS transfer_fares`,
      [entry.operatorCode],
    );
    checkFleetOperator({ busSchedules: runs?.bus_schedules === true, transferFares: runs?.transfer_fares === true });
    try {
      await this.knex('operator_fleets')
        .insert({ operator_code: entry.operatorCode, vehicle_class: entry.vehicleClass, vehicles: entry.vehicles })
        .onConflict(['operator_code', 'vehicle_class'])
        .merge(['vehicles']);
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      // The class is unknown (operators are never deleted, so the operator found above is there).
      throw new DomainError('invalid-request', {
        message: `Unknown vehicle class ${entry.vehicleClass}.`,
        details: { errors: [{ path: 'vehicleClass', message: 'must be a vehicle class of the catalogue' }] },
      });
    }
    return entry;
  }

  async fleetOf(code: string): Promise<FleetEntry[]> {
    const rows = (await this.knex('operator_fleets')
      .select('operator_code', 'vehicle_class', 'vehicles')
      .where({ operator_code: code })
      .orderByRaw('vehicle_class COLLATE "C"')) as Array<{ operator_code: string; vehicle_class: string; vehicles: number }>;
    return rows.map((r) => ({ operatorCode: r.operator_code, vehicleClass: r.vehicle_class, vehicles: r.vehicles }));
  }
}
