import { expect } from 'chai';
import { CachedTariffReader } from '../../src/adapters/cache/tariff.cached.js';
import type { TariffReader } from '../../src/domain/catalogue/tariff.port.js';

describe('catalogue tariff cache', () => {
  let calls = 0;
  let fail = false;
  let t = 0;
  const inner = {
    vehicleClasses: async () => {
      calls += 1;
      if (fail) throw new Error('database down');
      return [{ code: 'sedan', name: 'Sedan', maxPassengers: calls }];
    },
  } as unknown as TariffReader;

  beforeEach(() => {
    calls = 0;
    fail = false;
    t = 0;
  });

  it('when read again within the TTL, then the stored answer is reused; after it, the catalogue is read again', async () => {
    const cache = new CachedTariffReader(inner, { ttlMs: 1000, maxEntries: 10, now: () => t });
    expect((await cache.vehicleClasses())[0]!.maxPassengers).to.equal(1);
    t = 999;
    expect((await cache.vehicleClasses())[0]!.maxPassengers).to.equal(1);
    t = 1000;
    expect((await cache.vehicleClasses())[0]!.maxPassengers).to.equal(2);
  });

  it('when a read fails, then the failure is not kept', async () => {
    const cache = new CachedTariffReader(inner, { ttlMs: 1000, maxEntries: 10, now: () => t });
    fail = true;
    let failed = false;
    await cache.vehicleClasses().catch(() => (failed = true));
    expect(failed).to.equal(true);
    fail = false;
    expect((await cache.vehicleClasses())[0]!.maxPassengers).to.equal(2);
  });
});
