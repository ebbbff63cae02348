import { MemoryOrderRepo, MemoryQuoteRepo } from '../../src/adapters/memory/booking.memory.js';
import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemoryTariffReader } from '../../src/adapters/memory/tariff.memory.js';
import { bookingContract } from 'partner-booking-wallet/testing';

bookingContract(
  'memory',
  async () => {
    const directory = new MemoryIdentityStore();
    const orders = new MemoryOrderRepo(undefined, directory);
    const catalogue = new MemoryCatalogue();
    return {
      quotes: new MemoryQuoteRepo(),
      orders,
      inventory: orders,
      tariffs: new MemoryTariffReader(catalogue),
      catalogue,
      directory,
    };
  },
  { concurrent: async () => true },
);
