/**
 * `partner-booking-wallet/testing`: the port contract suites. Each takes a name and a factory
 * for the adapter (or adapter family) under test and registers its cases with mocha's
 * `describe`/`it` globals, asserting with chai (both optional peer dependencies, needed only
 * here). An adapter written elsewhere passes when it decides every case as the shipped memory
 * and PostgreSQL adapters do. See docs/embedding.md.
 */
export { bookingContract, type BookingStores } from './contracts/booking.contract.js';
export { catalogueContract } from './contracts/catalogue.contract.js';
export { operatorDirectoryContract, type OperatorStores } from './contracts/operator-directory.contract.js';
export { operatorKeyStoreContract, type OperatorKeyStores } from './contracts/operator-keys.contract.js';
export { listenAs, type EmittedEvents, type EventSeen } from './contracts/events.js';
export { idempotencyContract, type IdempotencyParts, type IdempotencyContractOptions } from './contracts/idempotency.contract.js';
export { identityContract, type IdentityStores } from './contracts/identity.contract.js';
export { ledgerContract, type LedgerContractOptions, type LedgerStores } from './contracts/ledger.contract.js';
export { rateLimitStoreContract } from './contracts/rate-limit-store.contract.js';
export { replayGuardContract } from './contracts/replay-guard.contract.js';
export { revokedTokenStoreContract } from './contracts/revoked-token-store.contract.js';
export { tenantDirectoryContract } from './contracts/tenant-directory.contract.js';
export { walletSecurityStoresContract } from './contracts/wallet-security-stores.contract.js';
export { webhookStoreContract, type WebhookStoreSubject } from './contracts/webhook-store.contract.js';
export { securityEventsContract, type SecurityEventStores } from './contracts/security-events.contract.js';
export { keyExpiryContract, type KeyExpiryStores } from './contracts/key-expiry.contract.js';
export * from './fixtures.js';
