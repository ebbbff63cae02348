import type { Knex } from 'knex';
import * as m0001 from './0001-identity-catalogue.js';
import * as m0002 from './0002-idempotency.js';
import * as m0003 from './0003-booking.js';
import * as m0004 from './0004-wallet-identity.js';
import * as m0005 from './0005-wallet-ledger.js';
import * as m0006 from './0006-reliability.js';
import * as m0007 from './0007-wallet-identity-feed.js';
import * as m0008 from './0008-ledger-record-function.js';
import * as m0009 from './0009-hostile-input.js';
import * as m0010 from './0010-agent-self-service.js';
import * as m0011 from './0011-oauth-revocation.js';
import * as m0012 from './0012-webhooks.js';
import * as m0013 from './0013-ledger-account-race.js';
import * as m0014 from './0014-ledger-write.js';
import * as m0015 from './0015-webhook-retention.js';
import * as m0016 from './0016-ledger-refusal-codes.js';
import * as m0017 from './0017-ledger-idempotency-index.js';
import * as m0018 from './0018-key-policies-security-events.js';
import * as m0019 from './0019-oauth-client-keys.js';
import * as m0020 from './0020-idempotency-record.js';
import * as m0021 from './0021-ledger-balance-check.js';
import * as m0022 from './0022-ledger-write-attempt.js';
import * as m0023 from './0023-ledger-write-batch.js';
import * as m0024 from './0024-sealed-signing-keys.js';
import * as m0026 from './0026-login-failed-per-minute.js';
import * as m0028 from './0028-operators.js';
import * as m0029 from './0029-operator-keys.js';
import * as m0030 from './0030-holds.js';
import * as m0031 from './0031-pending-transfers.js';
import * as m0032 from './0032-agent-accounts.js';
import * as m0033 from './0033-voucher-redemptions.js';
import * as m0034 from './0034-event-feed.js';
import * as m0037 from './0037-authorizations.js';
import * as m0039 from './0039-tenant-livemode.js';
import * as m0040 from './0040-one-ledger-entry-index.js';
import * as m0041 from './0041-sandbox-owners.js';
import * as m0042 from './0042-money-at-commit.js';

/** A migration: forward and back. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. An imported list instead of a folder glob runs the same under tsx
 * and compiled output. Append new migrations at the end; never edit a released one.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['0001-identity-catalogue', m0001],
  ['0002-idempotency', m0002],
  ['0003-booking', m0003],
  ['0004-wallet-identity', m0004],
  ['0005-wallet-ledger', m0005],
  ['0006-reliability', m0006],
  ['0007-wallet-identity-feed', m0007],
  ['0008-ledger-record-function', m0008],
  ['0009-hostile-input', m0009],
  ['0010-agent-self-service', m0010],
  ['0011-oauth-revocation', m0011],
  ['0012-webhooks', m0012],
  ['0013-ledger-account-race', m0013],
  ['0014-ledger-write', m0014],
  ['0015-webhook-retention', m0015],
  ['0016-ledger-refusal-codes', m0016],
  ['0017-ledger-idempotency-index', m0017],
  ['0018-key-policies-security-events', m0018],
  ['0019-oauth-client-keys', m0019],
  ['0020-idempotency-record', m0020],
  ['0021-ledger-balance-check', m0021],
  ['0022-ledger-write-attempt', m0022],
  ['0023-ledger-write-batch', m0023],
  ['0024-sealed-signing-keys', m0024],
  ['0026-login-failed-per-minute', m0026],
  ['0028-operators', m0028],
  ['0029-operator-keys', m0029],
  ['0030-holds', m0030],
  ['0031-pending-transfers', m0031],
  ['0032-agent-accounts', m0032],
  ['0033-voucher-redemptions', m0033],
  ['0034-event-feed', m0034],
  ['0037-authorizations', m0037],
  ['0039-tenant-livemode', m0039],
  ['0040-one-ledger-entry-index', m0040],
  ['0041-sandbox-owners', m0041],
  ['0042-money-at-commit', m0042],
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: () => Promise.resolve([...MIGRATIONS]),
  getMigrationName: ([name]) => name,
  getMigration: ([, migration]) => Promise.resolve(migration),
};
