import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { catalogueContract } from './catalogue.contract.js';

catalogueContract('memory', async () => new MemoryCatalogue());
