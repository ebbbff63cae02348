import { expect } from 'chai';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import type { Knex } from 'knex';
import { KnexLedger, ledgerRefusal } from '../../src/adapters/knex/ledger.knex.js';
import { GroupCommitLedger } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import type { Ledger } from '../../src/domain/wallet/ledger.port.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { insufficientFunds, shardOf, tenantAccountShort } from '../../src/domain/wallet/ledger.js';
import type { Transaction } from '../../src/domain/wallet/transaction.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { IdempotentWrites } from '../../src/application/idempotent-writes.js';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import type { IdempotencyRequest, StoredResponse } from '../../src/domain/shared/idempotency.port.js';
import { transactionScope } from '../../src/domain/wallet/scope.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { assertLedgerBalanced } from '../support/ledger-balance.js';
import { ledgerContract, listenAs } from 'partner-booking-wallet/testing';
import { ledgerTenant, machineInitiator, testId, topUpOf, userInitiator, type LedgerTenant } from '../support/ledger-builders.js';

ledgerContract(
  'PostgreSQL (Knex)',
  async () => {
    const ledger = new KnexLedger((await testDatabase()).knex);
    return { ledger, reader: ledger };
  },
  {
    concurrent: async () => (await databaseKind()) === 'postgres',
    check: async () => assertLedgerBalanced((await testDatabase()).knex),
    events: async () => {
      const webhooks = new KnexWebhookStore((await testDatabase()).knex);
      return { webhooks, log: webhooks };
    },
  },
);

ledgerContract(
  'PostgreSQL (Knex), through the group-commit ledger',
  async () => {
    const { knex } = await testDatabase();
    const reader = new KnexLedger(knex);
    return { ledger: new GroupCommitLedger(reader, knex), reader };
  },
  {
    concurrent: async () => (await databaseKind()) === 'postgres',
    check: async () => assertLedgerBalanced((await testDatabase()).knex),
    events: async () => {
      const webhooks = new KnexWebhookStore((await testDatabase()).knex);
      return { webhooks, log: webhooks };
    },
  },
);

/** Keyed writes in a unit of work: the key claimed first, the write and the answer in its transaction. */
const unitWrites = (knex: Knex) => new IdempotentWrites(new KnexUnitOfWork(knex), new KnexIdempotencyStore(knex), new SystemClock());

/**
 * Keyed ledger writes as the service makes them on PostgreSQL: the group-commit ledger, each write
 * sent with its key's answer as one statement, many requests' in one. `ledger` is the one to write through.
 */
const keyedWrites = (knex: Knex) => {
  const ledger = new GroupCommitLedger(new KnexLedger(knex), knex);
  const writes = new IdempotentWrites(
    new KnexUnitOfWork(knex),
    new KnexIdempotencyStore(knex),
    new SystemClock(),
    ledger.oneStatementWrites(),
  );
  return {
    ledger,
    execute: (request: IdempotencyRequest, work: () => Promise<StoredResponse>) => writes.execute(request, work, { oneLedgerWrite: true }),
  };
};
type KeyedWrites = ReturnType<typeof keyedWrites>;

const topUpTen = (ledger: Ledger, t: LedgerTenant, u: string) => topUpOf(ledger, t, u, 10);

/** A payment of `amount` THB by `u`, made by the tenant's machine token. */
const pay = (ledger: Ledger, t: LedgerTenant, u: string, amount: number) =>
  ledger.pay({
    id: testId('txn'),
    tenantId: t.tenantId,
    userId: u,
    amount: { amount, currency: 'THB' },
    reference: 'r',
    description: null,
    initiatedBy: machineInitiator(t),
    createdAt: new Date(),
  });

describe('ledger schema: what the database itself refuses', () => {
  it('when entries that do not sum to zero are written, then the write fails and nothing is kept', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const top = await topUpTen(ledger, t, u);
    const sneaky = testId('txn');
    const attempt = knex.transaction(async (trx) => {
      await trx('ledger_transactions').insert({
        id: sneaky,
        tenant_id: t.tenantId,
        type: 'TOP_UP',
        amount: 5,
        currency: 'THB',
        user_id: u,
        initiator_kind: 'machine',
        initiator_client_id: t.clientId,
        created_at: new Date(),
      });
      await trx('ledger_entries').insert({
        transaction_id: sneaky,
        account_id: `${t.tenantId}:user:${u}`,
        amount: 5,
        created_at: new Date(),
      });
    });
    let failed = false;
    await attempt.catch(() => {
      failed = true;
    });
    expect(failed).to.equal(true);
    expect(await knex('ledger_transactions').where({ id: sneaky }).first()).to.equal(undefined);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10);
    expect(top.id).to.be.a('string');
  });

  it('when an entry is changed so that its transaction no longer sums to zero, then the change is refused', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const top = await topUpTen(ledger, t, u);
    let code = '';
    await knex('ledger_entries')
      .where({ transaction_id: top.id, account_id: `${t.tenantId}:user:${u}` })
      .update({ amount: 11 })
      .catch((e: { code?: string }) => {
        code = e.code ?? '';
      });
    expect(code).to.equal('23514');
    const sum = await knex('ledger_entries').where({ transaction_id: top.id }).sum({ total: 'amount' }).first();
    expect(Number(sum?.total)).to.equal(0);
  });

  it('when a user balance would go below zero by any write, then the CHECK refuses it', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpTen(ledger, t, u);
    let code = '';
    await knex('ledger_accounts')
      .where({ id: `${t.tenantId}:user:${u}` })
      .update({ balance: -1 })
      .catch((e: { code?: string }) => {
        code = e.code ?? '';
      });
    expect(code).to.equal('23514');
  });
});

describe('ledger writes under an idempotency key (PostgreSQL, and embedded PGlite alike)', () => {
  it('when a top-up runs under a key, then it commits with the stored answer in one transaction; a failed answer leaves neither, and a retry runs again', async () => {
    const db = await testDatabase();
    const writes = unitWrites(db.knex);
    const ledger = new KnexLedger(db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const request = { scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' };
    const storedAnswer = async () => db.knex('idempotency_keys').where({ scope: request.scope, key: request.key }).first();
    const recorded = async (id: string) => db.knex('ledger_transactions').where({ id }).first();
    const topUpAnswering = (status: number, made: Transaction[]) => async () => {
      const top = await topUpOf(ledger, t, u, 250);
      made.push(top);
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(250); // the request sees its own write
      if (db.target.kind === 'postgres') {
        // Not committed while the request runs (seen from another connection; PGlite has only the one).
        expect(await db.knex('ledger_transactions').where({ id: top.id }).first()).to.equal(undefined);
      }
      return { status, contentType: 'application/json', body: JSON.stringify({ id: top.id }) };
    };

    const failed: Transaction[] = [];
    expect((await writes.execute(request, topUpAnswering(409, failed))).replayed).to.equal(false);
    expect(await recorded(failed[0]!.id)).to.equal(undefined);
    expect(await storedAnswer()).to.equal(undefined);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0);

    const kept: Transaction[] = [];
    await writes.execute(request, topUpAnswering(201, kept));
    expect(kept).to.have.length(1);
    const keptId = kept[0]!.id;
    expect((await recorded(keptId))?.id).to.equal(keptId);
    expect(await storedAnswer()).to.deep.include({ state: 'DONE', status: 201, body: JSON.stringify({ id: keptId }) });
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(250);

    const replay = await writes.execute(request, topUpAnswering(201, []));
    expect(replay).to.deep.include({ replayed: true });
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(250);
  });

  it('when 40 keyed payments end at once and half find the balance short, then each gets its own outcome and only the paid ones are kept', async () => {
    const db = await testDatabase();
    const writes = keyedWrites(db.knex);
    const { ledger } = writes;
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpOf(ledger, t, u, 20 * 10);
    const requests = Array.from({ length: 40 }, () => ({ scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' }));
    // Ended together, the units' writes share statements (and commits); a refusal must stay its own unit's.
    const outcomes = await Promise.allSettled(
      requests.map((r) =>
        writes.execute(r, async () => {
          const paid = await ledger.pay({
            id: testId('txn'),
            tenantId: t.tenantId,
            userId: u,
            amount: { amount: 10, currency: 'THB' },
            reference: r.key,
            description: null,
            initiatedBy: userInitiator(t, u),
            createdAt: new Date(),
          });
          return { status: 201, contentType: 'application/json', body: JSON.stringify({ id: paid.id }) };
        }),
      ),
    );
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as DomainError).reason] : []));
    expect(refused).to.deep.equal(Array(20).fill('insufficient-funds'));
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0);
    const paidIds = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [JSON.parse(o.value.response.body).id as string] : []));
    const recorded = await db.knex('ledger_transactions').whereIn('id', paidIds).select('id', 'reference');
    expect(recorded).to.have.length(20);
    // Each paid request's key is stored with its own answer; no refused request's key is.
    const stored = await db
      .knex('idempotency_keys')
      .where({ scope: `test:${t.tenantId}` })
      .select('key', 'body');
    expect(stored).to.have.length(20);
    for (const row of stored) {
      const txn = recorded.find((r) => r.id === JSON.parse(row.body).id);
      expect(txn?.reference, row.key).to.equal(row.key);
    }
    await assertLedgerBalanced(db.knex);
  });
});

/** A keyed payment of `amount` by `u` in `currency`, as the wallet makes it: its answer names the transaction. */
const keyedPayment = (writes: KeyedWrites, ledger: Ledger, t: LedgerTenant, u: string, amount: number, currency = 'THB', reference = 'r') =>
  writes.execute({ scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' }, async () => {
    const paid = await ledger.pay({
      id: testId('txn'),
      tenantId: t.tenantId,
      userId: u,
      amount: { amount, currency },
      reference,
      description: null,
      initiatedBy: userInitiator(t, u),
      createdAt: new Date(),
    });
    return { status: 201, contentType: 'application/json', body: JSON.stringify({ id: paid.id }) };
  });

/** The reasons of the refused outcomes, and the ids of the paid ones. */
const outcomesOf = (outcomes: PromiseSettledResult<{ response: { body: string } }>[]) => ({
  refused: outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as DomainError).reason] : [])),
  paid: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [JSON.parse(o.value.response.body).id as string] : [])),
});

/** A tenant with `n` users holding `amount` THB each, and the ledger and keyed writes of the database under test. */
const fundedUsers = async (n: number, amount: number) => {
  const db = await testDatabase();
  const writes = keyedWrites(db.knex);
  const { ledger } = writes;
  const t = ledgerTenant();
  const users = Array.from({ length: n }, () => t.newUser());
  for (const u of users) await topUpOf(ledger, t, u, amount);
  return { db, writes, ledger, t, users };
};

describe('ledger writes of a batch made set-wise, one at a time when they touch each other (0023)', () => {
  it('when keyed payments of different users end at once, then each is written with its entries, balances, stored answer and event', async () => {
    const { db, writes, ledger, t, users } = await fundedUsers(24, 100);
    const webhooks = new KnexWebhookStore(db.knex);
    const seen = await listenAs({ webhooks, log: webhooks }, { kind: 'tenant', id: t.tenantId }, ['transaction.created']);
    const before = await seen();

    const { refused, paid } = outcomesOf(await Promise.allSettled(users.map((u, i) => keyedPayment(writes, ledger, t, u, 10 + i))));

    expect(refused).to.deep.equal([]);
    expect(paid).to.have.length(users.length);
    for (const [i, u] of users.entries()) expect(await ledger.balanceOf(t.tenantId, u)).to.equal(90 - i);
    const written = await db.knex('ledger_transactions').whereIn('id', paid).select('id', 'user_id', 'amount');
    expect(written.map((r) => [r.user_id, Number(r.amount)]).sort()).to.deep.equal(users.map((u, i) => [u, 10 + i]).sort());
    const entries = await db.knex('ledger_entries').whereIn('transaction_id', paid).select('account_id', 'amount');
    expect(entries).to.have.length(2 * users.length);
    // The tenant's settlement shards received exactly what the users paid, however the payments were grouped.
    const settled = entries.filter((e) => e.account_id.includes(':settlement:')).reduce((sum, e) => sum + Number(e.amount), 0);
    const shards = await db.knex('ledger_accounts').where({ tenant_id: t.tenantId, kind: 'SETTLEMENT' }).sum({ total: 'balance' });
    expect(settled).to.equal(users.reduce((sum, _u, i) => sum + 10 + i, 0));
    expect(Number(shards[0]!.total)).to.equal(settled);
    const keys = await db
      .knex('idempotency_keys')
      .where({ scope: `test:${t.tenantId}` })
      .count({ n: '*' });
    expect(Number(keys[0]!.n)).to.equal(users.length);
    // One event for each payment, recorded with it.
    const events = (await seen()).slice(before.length);
    expect(events.map((e) => e.id).sort()).to.deep.equal([...paid].sort());
    await assertLedgerBalanced(db.knex);
  });

  it('when one user’s payments end at once with the balance for half of them, then exactly half are paid and the balance is 0', async () => {
    const { db, writes, ledger, t, users: others } = await fundedUsers(6, 10);
    const payer = t.newUser();
    await topUpOf(ledger, t, payer, 60);

    // The payer's twelve payments share batches with each other and with other users' payments.
    const outcomes = await Promise.allSettled([
      ...others.map((u) => keyedPayment(writes, ledger, t, u, 10)),
      ...Array.from({ length: 12 }, () => keyedPayment(writes, ledger, t, payer, 10)),
    ]);
    const { refused, paid } = outcomesOf(outcomes);

    expect(refused).to.deep.equal(Array(6).fill('insufficient-funds'));
    expect(paid).to.have.length(12);
    expect(await ledger.balanceOf(t.tenantId, payer)).to.equal(0);
    for (const u of others) expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0);
    const written = await db.knex('ledger_transactions').whereIn('id', paid).count({ n: '*' });
    expect(Number(written[0]!.n)).to.equal(12);
    await assertLedgerBalanced(db.knex);
  });

  it('when transfers of one batch go both ways between two users, then each is made as it would be alone', async () => {
    const { db, writes, ledger, t, users } = await fundedUsers(3, 10);
    const [a, b, c] = users as [string, string, string];
    const transfer = (from: string, to: string, amount: number) =>
      writes.execute({ scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' }, async () => {
        const made = await ledger.transfer({
          id: testId('txn'),
          tenantId: t.tenantId,
          userId: from,
          toUserId: to,
          amount: { amount, currency: 'THB' },
          note: null,
          initiatedBy: userInitiator(t, from),
          createdAt: new Date(),
        });
        return { status: 201, contentType: 'application/json', body: JSON.stringify({ id: made.id }) };
      });

    // a and b each send all they hold to the other (and c to a): each debit is checked against what
    // its account held before the batch, credits arriving in the same batch or not.
    const { refused, paid } = outcomesOf(
      await Promise.allSettled([transfer(c, a, 1), transfer(a, b, 10), transfer(b, a, 10), transfer(c, b, 2)]),
    );

    expect(refused).to.deep.equal([]);
    expect(paid).to.have.length(4);
    expect([
      await ledger.balanceOf(t.tenantId, a),
      await ledger.balanceOf(t.tenantId, b),
      await ledger.balanceOf(t.tenantId, c),
    ]).to.deep.equal([11, 12, 7]);
    await assertLedgerBalanced(db.knex);
  });

  it('when one payment of a batch is in another currency, then only it is refused, as currency-mismatch', async () => {
    const { db, writes, ledger, t, users } = await fundedUsers(10, 10);

    const outcomes = await Promise.allSettled(users.map((u, i) => keyedPayment(writes, ledger, t, u, 10, i === 7 ? 'USD' : 'THB')));
    const { refused, paid } = outcomesOf(outcomes);

    expect(refused).to.deep.equal(['currency-mismatch']);
    expect(outcomes[7]!.status).to.equal('rejected');
    expect(paid).to.have.length(9);
    for (const [i, u] of users.entries()) expect(await ledger.balanceOf(t.tenantId, u)).to.equal(i === 7 ? 10 : 0);
    await assertLedgerBalanced(db.knex);
  });

  it('when a reference holds half of a surrogate pair, then its payment and the others of its batch are written, with U+FFFD in its place', async () => {
    const { db, writes, ledger, t, users } = await fundedUsers(8, 10);

    const outcomes = await Promise.allSettled(
      users.map((u, i) => keyedPayment(writes, ledger, t, u, 10, 'THB', i % 2 === 0 ? `order-\ud800-${i}` : `order-${i}`)),
    );
    const { refused, paid } = outcomesOf(outcomes);

    expect(refused).to.deep.equal([]);
    const references = (await db.knex('ledger_transactions').whereIn('id', paid).select('reference')).map((r) => r.reference as string);
    expect(references.sort()).to.deep.equal(users.map((_u, i) => (i % 2 === 0 ? `order-\ufffd-${i}` : `order-${i}`)).sort());
  });
});

describe('ledger refusals: one SQLSTATE each, mapped by code (0015)', () => {
  /** Calls `pbw_ledger_write` as the adapter does, with the postings given; returns what it raised. */
  const raised = async (
    knex: Knex,
    t: LedgerTenant,
    over: { currency?: string; refundOf?: string | null; amount?: number },
    postings: ReadonlyArray<{
      id: string;
      kind: 'USER' | 'FUNDING' | 'SETTLEMENT';
      userId: string | null;
      amount: number;
      checked: boolean;
    }>,
  ): Promise<{ code?: string; detail?: string }> => {
    const txn = testId('txn');
    try {
      // The adapter's own way to the database (its errors as the adapter sees them).
      await rows(knex, 'SELECT pbw_ledger_write($1::jsonb)', [
        JSON.stringify({
          id: txn,
          tenant_id: t.tenantId,
          type: over.refundOf === undefined || over.refundOf === null ? 'PAYMENT' : 'REFUND',
          amount: over.amount ?? 5,
          currency: over.currency ?? 'THB',
          user_id: postings.find((p) => p.kind === 'USER')?.userId ?? 'nobody',
          reference: 'r',
          refund_of: over.refundOf ?? null,
          initiator_kind: 'machine',
          initiator_client_id: t.clientId,
          created_at: new Date(),
          postings: postings.map((p) => ({ account_id: p.id, kind: p.kind, user_id: p.userId, amount: p.amount, checked: p.checked })),
        }),
      ]);
    } catch (err) {
      expect(await knex('ledger_transactions').where({ id: txn }).first(), 'nothing of a refused write is kept').to.equal(undefined);
      return err as { code?: string; detail?: string };
    }
    throw new Error('expected pbw_ledger_write to refuse');
  };
  const reasonAndMessage = (err: unknown, currency = 'THB') => {
    const e = ledgerRefusal(err, currency);
    expect(e).to.be.instanceOf(DomainError);
    return { reason: (e as DomainError).reason, message: (e as DomainError).message, details: (e as DomainError).details };
  };

  it('when a user account is short, then PB010 with the account in DETAIL, which is insufficient-funds', async () => {
    const { knex } = await testDatabase();
    const t = ledgerTenant();
    const u = t.newUser();
    const account = `${t.tenantId}:user:${u}`;
    await topUpTen(new KnexLedger(knex), t, u);
    const err = await raised(knex, t, { amount: 11 }, [
      { id: `${t.tenantId}:settlement:0`, kind: 'SETTLEMENT', userId: null, amount: 11, checked: false },
      { id: account, kind: 'USER', userId: u, amount: -11, checked: true },
    ]);
    expect(err).to.include({ code: 'PB010', detail: account });
    expect(reasonAndMessage(err)).to.deep.include({ reason: 'insufficient-funds', message: insufficientFunds().message });
  });

  it('when a tenant account is short, then PB011, which is insufficient-funds of the tenant account', async () => {
    const { knex } = await testDatabase();
    const t = ledgerTenant();
    const u = t.newUser();
    const settlement = `${t.tenantId}:settlement:3`;
    const err = await raised(knex, t, {}, [
      { id: settlement, kind: 'SETTLEMENT', userId: null, amount: -5, checked: true },
      { id: `${t.tenantId}:user:${u}`, kind: 'USER', userId: u, amount: 5, checked: false },
    ]);
    expect(err).to.include({ code: 'PB011', detail: settlement });
    expect(reasonAndMessage(err)).to.deep.include({ reason: 'insufficient-funds', message: tenantAccountShort().message });
  });

  it('when an account holds another currency, then PB020 with that currency in DETAIL, which is currency-mismatch', async () => {
    const { knex } = await testDatabase();
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpTen(new KnexLedger(knex), t, u);
    const err = await raised(knex, t, { currency: 'USD' }, [
      { id: `${t.tenantId}:funding:7`, kind: 'FUNDING', userId: null, amount: -5, checked: false },
      { id: `${t.tenantId}:user:${u}`, kind: 'USER', userId: u, amount: 5, checked: false },
    ]);
    expect(err).to.include({ code: 'PB020' });
    // The funding shard is new (so USD), the user's account holds THB.
    expect(err.detail).to.equal('THB');
    expect(reasonAndMessage(err, 'USD')).to.deep.include({ reason: 'currency-mismatch', details: { expected: 'THB' } });
  });

  it('when a refund would exceed its payment, then PB030 with the payment in DETAIL, which is refund-exceeds-payment', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpTen(ledger, t, u);
    const p = await pay(ledger, t, u, 4);
    const err = await raised(knex, t, { refundOf: p.id, amount: 5 }, [
      { id: `${t.tenantId}:settlement:${shardOf(p.id)}`, kind: 'SETTLEMENT', userId: null, amount: -5, checked: true },
      { id: `${t.tenantId}:user:${u}`, kind: 'USER', userId: u, amount: 5, checked: false },
    ]);
    expect(err).to.include({ code: 'PB030', detail: p.id });
    expect(reasonAndMessage(err).reason).to.equal('refund-exceeds-payment');
    expect(
      (await ledger.find(transactionScope({ kind: 'machine', tenantId: t.tenantId, clientId: t.clientId }), p.id))?.refundedAmount,
    ).to.equal(0);
  });

  it('when the settlement shard of a payment is short at its refund, then the ledger refuses it as the tenant account’s insufficient-funds', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpTen(ledger, t, u);
    const p = await pay(ledger, t, u, 6);
    // Only a damaged ledger gets here: the shard a payment credited holds at least what remains of it.
    const shard = { id: `${t.tenantId}:settlement:${shardOf(p.id)}` };
    await knex('ledger_accounts').where(shard).update({ balance: 0 });
    const refused = await ledger
      .refund({
        id: testId('txn'),
        tenantId: t.tenantId,
        paymentId: p.id,
        amount: null,
        initiatedBy: machineInitiator(t),
        createdAt: new Date(),
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    await knex('ledger_accounts').where(shard).update({ balance: 6 });
    expect(refused).to.be.instanceOf(DomainError);
    expect(refused).to.deep.include({ reason: 'insufficient-funds', message: tenantAccountShort().message });
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(4);
  });
});

describe('ledger events under an idempotency key (PostgreSQL, and embedded PGlite alike)', () => {
  it('when a write under a key is rolled back, then its event is gone with it; a stored one keeps exactly one', async () => {
    const db = await testDatabase();
    const writes = keyedWrites(db.knex);
    const { ledger } = writes;
    const webhooks = new KnexWebhookStore(db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const seen = await listenAs({ webhooks, log: webhooks }, { kind: 'tenant', id: t.tenantId }, ['transaction.created']);
    const underKey = (status: number) => {
      let made: Transaction | null = null;
      return writes
        .execute({ scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' }, async () => {
          made = await topUpOf(ledger, t, u, 250);
          return { status, contentType: 'application/json', body: '{}' };
        })
        .then(() => made!);
    };

    await underKey(500);
    expect(await seen()).to.deep.equal([]);

    const kept = await underKey(201);
    expect(await seen()).to.deep.equal([{ type: 'transaction.created', id: kept.id }]);
  });
});
