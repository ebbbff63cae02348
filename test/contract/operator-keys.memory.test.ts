import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { MemoryOperatorDirectory } from '../../src/adapters/memory/operator-directory.memory.js';
import { MemoryOperatorKeyStore } from '../../src/adapters/memory/operator-keys.memory.js';
import { operatorKeyStoreContract } from 'partner-booking-wallet/testing';

operatorKeyStoreContract('memory', async () => {
  const operators = new MemoryOperatorDirectory(new MemoryCatalogue());
  return { operators, keys: new MemoryOperatorKeyStore(operators) };
});
