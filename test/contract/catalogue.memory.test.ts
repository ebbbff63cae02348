import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { catalogueContract } from 'partner-booking-wallet/testing';

catalogueContract('memory', async () => new MemoryCatalogue());
