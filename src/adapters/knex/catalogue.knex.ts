import type { Catalogue, City, Location } from '../../domain/catalogue/catalogue.js';
import type { CatalogueCounts, CatalogueReader, CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import { foldForSearch } from '../../domain/shared/text.js';
import { operatorToRow } from './operator-directory.knex.js';
import { KnexStore } from './knex-store.js';

/** The catalogue on PostgreSQL. Search runs over a pre-folded text column. */
export class KnexCatalogue extends KnexStore implements CatalogueReader, CatalogueWriter {
  async searchLocations(foldedQuery: string, limit: number): Promise<Location[]> {
    const pattern = `%${escapeLike(foldedQuery)}%`;
    const prefix = `${escapeLike(foldedQuery)}%`;
    const rows = await this.knex('locations')
      .select('id', 'code', 'name', 'type', 'city', 'country', 'zone')
      .whereRaw(`search_text LIKE ? ESCAPE '\\'`, [pattern])
      .orderByRaw(`CASE WHEN search_text LIKE ? ESCAPE '\\' THEN 0 ELSE 1 END, name COLLATE "C", id COLLATE "C"`, [prefix])
      .limit(limit);
    return rows as Location[];
  }

  async searchCities(foldedQuery: string, limit: number): Promise<City[]> {
    const pattern = `%${escapeLike(foldedQuery)}%`;
    const prefix = `${escapeLike(foldedQuery)}%`;
    const rows = await this.knex('cities')
      .select('id', 'name', 'country')
      .whereRaw(`search_text LIKE ? ESCAPE '\\'`, [pattern])
      .orderByRaw(`CASE WHEN search_text LIKE ? ESCAPE '\\' THEN 0 ELSE 1 END, name COLLATE "C", id COLLATE "C"`, [prefix])
      .limit(limit);
    return rows as City[];
  }

  async load(catalogue: Catalogue): Promise<CatalogueCounts> {
    await this.knex.transaction(async (trx) => {
      if (catalogue.operators.length > 0) {
        await trx('operators').insert(catalogue.operators.map(operatorToRow)).onConflict('code').merge();
      }
      if (catalogue.locations.length > 0) {
        await trx('locations')
          .insert(catalogue.locations.map((l) => ({ ...l, search_text: locationSearchText(l) })))
          .onConflict('id')
          .merge();
      }
      if (catalogue.cities.length > 0) {
        await trx('cities')
          .insert(catalogue.cities.map((c) => ({ ...c, search_text: foldForSearch(c.name) })))
          .onConflict('id')
          .merge();
      }
      if (catalogue.vehicleClasses.length > 0) {
        await trx('vehicle_classes')
          .insert(catalogue.vehicleClasses.map((v) => ({ code: v.code, name: v.name, max_passengers: v.maxPassengers })))
          .onConflict('code')
          .merge();
      }
      if (catalogue.fleets.length > 0) {
        await trx('operator_fleets')
          .insert(catalogue.fleets.map((f) => ({ operator_code: f.operatorCode, vehicle_class: f.vehicleClass, vehicles: f.vehicles })))
          .onConflict(['operator_code', 'vehicle_class'])
          // A fleet an administrator set (`operator set-fleet`) is theirs: a reload never resets it.
          .ignore();
      }
      if (catalogue.transferFares.length > 0) {
        await trx('transfer_fares')
          .insert(
            catalogue.transferFares.map((f) => ({
              operator_code: f.operatorCode,
              from_zone: f.fromZone,
              to_zone: f.toZone,
              vehicle_class: f.vehicleClass,
              base_amount: f.baseFare.amount,
              currency: f.baseFare.currency,
              duration_minutes: f.durationMinutes,
            })),
          )
          .onConflict(['from_zone', 'to_zone', 'vehicle_class'])
          .merge();
      }
      if (catalogue.schedules.length > 0) {
        await trx('bus_schedules')
          .insert(
            catalogue.schedules.map((s) => ({
              id: s.id,
              from_city_id: s.fromCityId,
              to_city_id: s.toCityId,
              operator_code: s.operatorCode,
              departure_times: [...s.departureTimes],
              utc_offset_minutes: s.utcOffsetMinutes,
              duration_minutes: s.durationMinutes,
              seat_capacity: s.seatCapacity,
              base_amount: s.baseFare.amount,
              currency: s.baseFare.currency,
            })),
          )
          .onConflict('id')
          .merge();
      }
    });
    const [locations, cities, schedules, operators] = await Promise.all(
      ['locations', 'cities', 'bus_schedules', 'operators'].map(async (table) => {
        const row = await this.knex(table).count<{ count: number | string }[]>({ count: '*' }).first();
        return Number(row?.count ?? 0);
      }),
    );
    return { locations: locations!, cities: cities!, schedules: schedules!, operators: operators! };
  }
}

export const locationSearchText = (l: Location): string => foldForSearch(`${l.name} ${l.code} ${l.city}`);

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
