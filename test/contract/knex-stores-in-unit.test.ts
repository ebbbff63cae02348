import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexAgentResolver } from '../../src/adapters/knex/agent-resolver.knex.js';
import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { migrate, openDatabase, type Database } from '../../src/adapters/knex/database.js';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexKeyExpiryNotices } from '../../src/adapters/knex/key-expiry.knex.js';
import { KnexKeyUsageStore } from '../../src/adapters/knex/key-usage.knex.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { KnexLoginThrottle } from '../../src/adapters/knex/login-throttle.knex.js';
import { KnexPendingTransfers } from '../../src/adapters/knex/pending-transfers.knex.js';
import { KnexOrderRepo } from '../../src/adapters/knex/order-repo.knex.js';
import { KnexQuoteRepo } from '../../src/adapters/knex/quote-repo.knex.js';
import { KnexRateLimitStore } from '../../src/adapters/knex/rate-limit-store.knex.js';
import { KnexReplayGuard } from '../../src/adapters/knex/replay-guard.knex.js';
import { KnexSecurityEvents } from '../../src/adapters/knex/security-events.knex.js';
import { KnexTariffReader } from '../../src/adapters/knex/tariff.knex.js';
import { KnexTenantDirectory } from '../../src/adapters/knex/tenant-directory.knex.js';
import { KnexRevokedTokenStore } from '../../src/adapters/knex/token-revocation.knex.js';
import { KnexOperatorDirectory } from '../../src/adapters/knex/operator-directory.knex.js';
import { KnexOperatorKeyStore } from '../../src/adapters/knex/operator-keys.knex.js';
import { KnexTripInventory } from '../../src/adapters/knex/trip-inventory.knex.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { KnexVoucherRedemptions } from '../../src/adapters/knex/voucher-redemptions.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { KnexAgentAccounts } from '../../src/adapters/knex/agent-accounts.knex.js';
import type { Knex } from 'knex';
import { GroupCommitLedger } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';

/**
 * Classes of src/adapters/knex that do not extend KnexStore: the unit of work itself; the key
 * stores that run only at startup and from the command line, outside any unit; and the
 * group-commit ledger with its batches, which reach the pool only when no unit is open (inside
 * one, its writes are the inner ledger's: called below).
 */
const NOT_STORES = new Set(['KnexUnitOfWork', 'KnexSigningKeyStore', 'KnexWebhookSecretKey', 'GroupCommitLedger', 'LedgerWriteBatches']);
const groupCommitTenant = ledgerTenant();

/** One call of each Knex store that reaches the database (what it finds does not matter). */
const calls = (knex: Knex): ReadonlyArray<readonly [string, () => Promise<unknown>]> => [
  ['KnexAgentDirectory', () => new KnexAgentDirectory(knex).listChannels()],
  ['KnexAgentResolver', () => new KnexAgentResolver(knex).findByKeyHash('none')],
  ['KnexCatalogue', () => new KnexCatalogue(knex).searchLocations('none', 1)],
  ['KnexOrderRepo', () => new KnexOrderRepo(knex).find({ agentId: 'agt_none' }, 'ord_none')],
  ['KnexQuoteRepo', () => new KnexQuoteRepo(knex).findForAgent('agt_none', 'qte_none')],
  ['KnexTariffReader', () => new KnexTariffReader(knex).vehicleClasses()],
  ['KnexTenantDirectory', () => new KnexTenantDirectory(knex).findTenant('tnt_none')],
  ['KnexTripInventory', () => new KnexTripInventory(knex).seatsLeft([{ tripId: 'trp_none', capacity: 1 }], new Date(), true)],
  ['KnexOperatorDirectory', () => new KnexOperatorDirectory(knex).fleetOf('NONE')],
  ['KnexOperatorKeyStore', () => new KnexOperatorKeyStore(knex).findByKeyHash('none')],
  ['KnexWebhookStore', () => new KnexWebhookStore(knex).findEndpoint({ kind: 'tenant', id: 'tnt_none' }, 'whe_none')],
  ['KnexLedger', () => new KnexLedger(knex).balanceOf('tnt_none', 'usr_none')],
  [
    'GroupCommitLedger',
    () => topUpOf(new GroupCommitLedger(new KnexLedger(knex), knex), groupCommitTenant, groupCommitTenant.newUser(), 1),
  ],
  ['KnexPendingTransfers', () => new KnexPendingTransfers(knex).find('tnt_none', 'auth_none')],
  ['KnexIdempotencyStore', () => new KnexIdempotencyStore(knex).countBefore(new Date())],
  ['KnexKeyExpiryNotices', () => new KnexKeyExpiryNotices(knex).sendDue(new Date(), 1000, 1)],
  ['KnexKeyUsageStore', () => new KnexKeyUsageStore(knex).recordUses(new Map([['key_none', new Date()]]))],
  ['KnexLoginThrottle', () => new KnexLoginThrottle(knex).release('none', true)],
  ['KnexRateLimitStore', () => new KnexRateLimitStore(knex, 'unit-test:').get('none')],
  ['KnexReplayGuard', () => new KnexReplayGuard(knex).useOnce('unit-test', `id-${Date.now()}`, new Date(Date.now() + 60_000))],
  ['KnexSecurityEvents', () => new KnexSecurityEvents(knex).countBefore(new Date())],
  ['KnexRevokedTokenStore', () => new KnexRevokedTokenStore(knex).has('none')],
  ['KnexAgentAccounts', () => new KnexAgentAccounts(knex).billingOf('agt_none', 'THB', new Date())],
  ['KnexVoucherRedemptions', () => new KnexVoucherRedemptions(knex).redeem({ code: 'NONE', livemode: true }, 'ord_none', new Date())],
];

describe('every Knex store inside a unit of work, on embedded PGlite (one connection)', function () {
  this.timeout(120_000);
  let db: Database;

  before(async () => {
    db = await openDatabase({ kind: 'pglite', dataDir: null });
    await migrate(db);
  });
  after(async () => {
    await db?.close();
  });

  it('when a class in src/adapters/knex is a store, then it extends KnexStore and is called below', async () => {
    const dir = 'src/adapters/knex';
    const classes: Array<{ name: string; store: boolean }> = [];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.knex.ts'))) {
      const text = await readFile(`${dir}/${file}`, 'utf8');
      for (const m of text.matchAll(/^export class (\w+)( extends KnexStore)?/gm)) classes.push({ name: m[1]!, store: m[2] !== undefined });
    }
    const called = new Set(calls(db.knex).map(([name]) => name));
    expect(classes.filter((c) => !c.store && !NOT_STORES.has(c.name)).map((c) => c.name)).to.deep.equal([]);
    expect(classes.filter((c) => c.store && !called.has(c.name)).map((c) => c.name)).to.deep.equal([]);
  });

  // A store that went around the unit would wait for the one connection the unit holds, for ever:
  // each case fails after a few seconds instead.
  for (const [name] of calls({} as Knex)) {
    it(`when ${name} is called inside unitOfWork.run, then it answers in the unit's transaction`, async function () {
      this.timeout(10_000);
      const call = calls(db.knex).find(([n]) => n === name)![1];
      const units = new KnexUnitOfWork(db.knex);
      await units.run(call);
    });
  }
});
