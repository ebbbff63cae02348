import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { MemoryOperatorDirectory } from '../../src/adapters/memory/operator-directory.memory.js';
import { operatorDirectoryContract } from 'partner-booking-wallet/testing';

operatorDirectoryContract('memory', async () => {
  const catalogue = new MemoryCatalogue();
  return { catalogue, operators: new MemoryOperatorDirectory(catalogue) };
});
