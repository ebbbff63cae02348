export { testId, ledgerTenant, machineInitiator, userInitiator, idemKey, type LedgerTenant } from '../../src/testing/fixtures.js';
