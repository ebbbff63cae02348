import { MemoryStore } from 'express-rate-limit';
import { rateLimitStoreContract } from 'partner-booking-wallet/testing';

// The in-process counterpart of the shared stores: express-rate-limit's own.
rateLimitStoreContract('memory (express-rate-limit)', async () => new MemoryStore());
