import { expect } from 'chai';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { IdempotentWrites } from '../../src/application/idempotent-writes.js';
import type { DomainError } from '../../src/domain/shared/errors.js';
import { ledgerTenant, machineInitiator, testId, topUpOf } from '../support/ledger-builders.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { GroupCommitLedger } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import { KnexPendingTransfers } from '../../src/adapters/knex/pending-transfers.knex.js';
import { pendingTransfersContract } from '../support/pending-transfers-contract.js';
import { testDatabase } from '../support/database.js';

pendingTransfersContract('PostgreSQL (Knex)', async () => {
  const { knex } = await testDatabase();
  return { ledger: new KnexLedger(knex), transfers: new KnexPendingTransfers(knex) };
});

describe('held money in keyed payments written together (set-wise batch, 0023)', () => {
  it('when keyed payments of several users end at once, then those whose money is held are refused and the others paid', async () => {
    const { knex } = await testDatabase();
    const ledger = new GroupCommitLedger(new KnexLedger(knex), knex);
    const transfers = new KnexPendingTransfers(knex);
    const writes = new IdempotentWrites(
      new KnexUnitOfWork(knex),
      new KnexIdempotencyStore(knex),
      new SystemClock(),
      ledger.oneStatementWrites(),
    );
    const t = ledgerTenant();
    const users = Array.from({ length: 8 }, () => t.newUser());
    for (const u of users) await topUpOf(ledger, t, u, 1_000);
    const heldUsers = users.filter((_, i) => i % 2 === 0);
    for (const u of heldUsers)
      await transfers.hold({
        id: testId('txn').replace('txn_', 'auth_'),
        tenantId: t.tenantId,
        account: { kind: 'USER', userId: u },
        owner: { kind: 'wallet-authorization', id: u },
        reference: 'ride-1',
        amount: { amount: 600, currency: 'THB' },
        expiresAt: new Date(Date.now() + 60_000),
        createdAt: new Date(),
      });
    const outcomes = await Promise.allSettled(
      users.map((u) =>
        writes.execute(
          { scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' },
          async () => {
            const paid = await ledger.pay({
              id: testId('txn'),
              tenantId: t.tenantId,
              userId: u,
              amount: { amount: 500, currency: 'THB' },
              reference: 'shop-1',
              description: null,
              initiatedBy: machineInitiator(t),
              createdAt: new Date(),
            });
            return { status: 201, contentType: 'application/json', body: JSON.stringify({ id: paid.id }) };
          },
          { oneLedgerWrite: true },
        ),
      ),
    );
    const refusals = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as DomainError).reason : 'paid'));
    expect(refusals).to.deep.equal(users.map((_, i) => (i % 2 === 0 ? 'insufficient-funds' : 'paid')));
    for (const [i, u] of users.entries()) expect(await ledger.balanceOf(t.tenantId, u)).to.equal(i % 2 === 0 ? 1_000 : 500);
  });
});
