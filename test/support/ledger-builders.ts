import { randomBytes } from 'node:crypto';
import type { Initiator } from '../../src/domain/wallet/transaction.js';
import { unique } from './builders.js';

/** A new id with a type prefix, in the shape the service makes. */
export const testId = (prefix: 'usr' | 'tnt' | 'txn' | 'cli'): string => `${prefix}_${randomBytes(13).toString('hex').toUpperCase()}`;

/** A tenant of the ledger tests: its id, client and two fresh users. */
export interface LedgerTenant {
  readonly tenantId: string;
  readonly clientId: string;
  readonly currency: string;
  newUser(): string;
}

export const ledgerTenant = (currency = 'THB'): LedgerTenant => ({
  tenantId: testId('tnt'),
  clientId: testId('cli'),
  currency,
  newUser: () => testId('usr'),
});

/** The initiator of a tenant's backend call. */
export const machineInitiator = (t: LedgerTenant): Initiator => ({
  kind: 'machine',
  tenantId: t.tenantId,
  clientId: t.clientId,
  userId: null,
  amr: null,
  act: null,
});

/** The initiator of a wallet user's call (delegated by default). */
export const userInitiator = (t: LedgerTenant, userId: string, amr: readonly string[] = ['tenant_delegated']): Initiator => ({
  kind: 'user',
  tenantId: t.tenantId,
  clientId: t.clientId,
  userId,
  amr,
  act: amr.includes('tenant_delegated') ? { sub: t.clientId } : null,
});

/** A unique idempotency key. */
export const idemKey = (): string => `idem-${unique()}-${unique()}`;
