import type { BusSchedule, City, Location, TransferFare, VehicleClass } from '../../domain/catalogue/catalogue.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';

/**
 * A short-lived cache in front of the priced catalogue, which changes only when an operator
 * reloads it: a quote then costs no catalogue round trip. A reload is seen within
 * `ttlMs`; the price of a quote is fixed when it is minted, so no order is affected by the lag.
 */
export class CachedTariffReader implements TariffReader {
  private readonly entries = new Map<string, { at: number; value: Promise<unknown> }>();

  constructor(
    private readonly inner: TariffReader,
    private readonly options: { ttlMs: number; maxEntries: number; now?: () => number },
  ) {}

  findLocations(ids: readonly string[]): Promise<Location[]> {
    return this.cached(`l|${ids.join('|')}`, () => this.inner.findLocations(ids));
  }

  findCities(ids: readonly string[]): Promise<City[]> {
    return this.cached(`c|${ids.join('|')}`, () => this.inner.findCities(ids));
  }

  vehicleClasses(): Promise<VehicleClass[]> {
    return this.cached('v', () => this.inner.vehicleClasses());
  }

  transferFares(zoneA: string, zoneB: string): Promise<TransferFare[]> {
    return this.cached(`f|${zoneA}|${zoneB}`, () => this.inner.transferFares(zoneA, zoneB));
  }

  /** Cached like fares: an operator's name or confirmation mode changes are seen within `ttlMs`. */
  findOperators(codes: readonly string[]): Promise<Operator[]> {
    return this.cached(`o|${codes.join('|')}`, () => this.inner.findOperators(codes));
  }

  async findSchedule(scheduleId: string): Promise<BusSchedule | null> {
    const found = await this.cached(`s|${scheduleId}`, () => this.inner.findSchedule(scheduleId));
    // An unknown schedule is not remembered: a schedule loaded now is quotable now.
    if (found === null) this.entries.delete(`s|${scheduleId}`);
    return found;
  }

  /** Not cached: a newly loaded schedule shows in listings at once. */
  schedulesBetween(fromCityId: string, toCityId: string): Promise<BusSchedule[]> {
    return this.inner.schedulesBetween(fromCityId, toCityId);
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.options.now?.() ?? Date.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && now - hit.at < this.options.ttlMs) return hit.value as Promise<T>;
    const value = load();
    // A failed load is not kept: the next call tries again.
    value.catch(() => this.entries.delete(key));
    this.entries.delete(key);
    this.entries.set(key, { at: now, value });
    if (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}
