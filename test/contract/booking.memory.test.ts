import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryUnitOfWork } from '../../src/adapters/memory/unit-of-work.memory.js';
import { MemoryOrderRepo, MemoryQuoteRepo } from '../../src/adapters/memory/booking.memory.js';
import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemoryTariffReader } from '../../src/adapters/memory/tariff.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { bookingContract } from 'partner-booking-wallet/testing';

/** The outbox the stores of the current case record into. */
let webhooks = new MemoryWebhookStore(new SystemClock());

bookingContract(
  'memory',
  async () => {
    webhooks = new MemoryWebhookStore(new SystemClock());
    const directory = new MemoryIdentityStore(undefined, webhooks);
    const catalogue = new MemoryCatalogue();
    const orders = new MemoryOrderRepo(webhooks, directory, catalogue);
    return {
      quotes: new MemoryQuoteRepo(),
      orders,
      inventory: orders,
      tariffs: new MemoryTariffReader(catalogue),
      catalogue,
      directory,
      unitOfWork: new MemoryUnitOfWork(),
    };
  },
  { concurrent: async () => true, events: async () => ({ webhooks, log: webhooks }) },
);
