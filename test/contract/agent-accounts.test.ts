import { expect } from 'chai';
import { KnexAgentAccounts } from '../../src/adapters/knex/agent-accounts.knex.js';
import { MemoryAgentAccounts } from '../../src/adapters/memory/agent-accounts.memory.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import type { AgentAccounts } from '../../src/domain/billing/agent-accounts.port.js';
import { cancelled } from '../../src/domain/booking/order-transitions.js';
import type { Order } from '../../src/domain/booking/order.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import type { DomainEvent } from '../../src/domain/webhooks/events.js';
import { orderRecord } from '../../src/testing/fixtures.js';
import { unique } from '../support/builders.js';
import { databaseKind, testDatabase } from '../support/database.js';

const failureOf = async (p: Promise<unknown>): Promise<DomainError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

const statementOf = async (accounts: AgentAccounts, account: { agentId: string } | { operatorCode: string; livemode: boolean }) => {
  const s = await accounts.statement({ account, from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) }, 'THB');
  const lines = [];
  for await (const l of s.lines) lines.push(l);
  return { opening: s.opening.amount, lines };
};

/** The agents' accounts every adapter keeps (CONTRACT §6.4): holds, captures, voids, refunds, and races that never overspend. */
function agentAccountsContract(
  name: string,
  make: () => Promise<AgentAccounts>,
  concurrent: () => Promise<boolean>,
  /** The `agent_account.low_balance` events recorded for the agent, with their spendable. */
  lowBalanceEvents: (agentId: string) => Promise<number[]>,
  /** Subscribes an endpoint of the agent to the event (the outbox records only what someone listens to). */
  subscribe: (agentId: string) => Promise<void> = async () => undefined,
): void {
  describe(`AgentAccounts contract (${name})`, () => {
    let accounts: AgentAccounts;
    let agentId: string;
    let operatorCode: string;
    const now = () => new Date();
    const order = (over: Partial<Order> = {}): Order => ({
      ...orderRecord(agentId),
      operatorCode,
      price: { amount: 1_000, currency: 'THB' },
      baseFare: { amount: 800, currency: 'THB' },
      ...over,
    });
    const held = (over: Partial<Order> = {}): Order =>
      order({ status: 'ON_HOLD', confirmedAt: null, holdExpiresAt: new Date(Date.now() + 60_000), ...over });
    const billing = async () => {
      const b = await accounts.billingOf(agentId, 'THB', now());
      return { mode: b.mode, balance: b.balance.amount, held: b.held.amount, spendable: b.spendable.amount };
    };
    const prepaid = async (funds: number, creditLimit = 0) => {
      await accounts.setBilling(agentId, 'THB', 'prepaid', creditLimit, now());
      if (funds > 0)
        await accounts.fund({
          id: `txn_${unique()}`,
          agentId,
          amount: { amount: funds, currency: 'THB' },
          reference: 'wire',
          at: now(),
          livemode: true,
        });
    };

    beforeEach(async () => {
      accounts = await make();
      agentId = `agt_${unique()}`;
      operatorCode = `OP-${unique()}`;
    });

    it('when an agent was never written, then it is invoiced with nothing moved; invoiced, an order is never refused', async () => {
      expect(await billing()).to.deep.equal({ mode: 'invoice', balance: 0, held: 0, spendable: 0 });
      await accounts.follow(null, order(), now(), 'test');
      expect(await billing()).to.deep.equal({ mode: 'invoice', balance: -1_000, held: 0, spendable: -1_000 });
    });

    it('when a prepaid agent holds, the price counts at once; captured, the agent pays, the operator is owed the base fare', async () => {
      await prepaid(1_500);
      const o = held();
      await accounts.follow(null, o, now(), 'test');
      expect(await billing()).to.deep.equal({ mode: 'prepaid', balance: 1_500, held: 1_000, spendable: 500 });
      const refused = await failureOf(accounts.follow(null, held(), now(), 'test'));
      expect([refused.reason, refused.details?.spendable]).to.deep.equal(['insufficient-funds', { amount: 500, currency: 'THB' }]);
      await accounts.follow('ON_HOLD', { ...o, status: 'CONFIRMED' }, now(), 'test');
      expect(await billing()).to.deep.equal({ mode: 'prepaid', balance: 500, held: 0, spendable: 500 });
      const owed = await statementOf(accounts, { operatorCode, livemode: true });
      expect(owed.lines.map((l) => [l.type, l.orderId, l.amount.amount])).to.deep.equal([['BOOKING', o.id, 800]]);
    });

    it('when a hold is voided or lapses, then it holds nothing; a lapse is recorded once', async () => {
      await prepaid(5_000);
      const a = held();
      const b = held({ holdExpiresAt: new Date(Date.now() + 500) });
      await accounts.follow(null, a, now(), 'test');
      await accounts.follow(null, b, now(), 'test');
      expect((await billing()).held).to.equal(2_000);
      await accounts.follow('ON_HOLD', { ...a, status: 'RELEASED', releaseReason: 'agent' }, now(), 'test');
      expect((await billing()).held).to.equal(1_000);
      await new Promise((r) => setTimeout(r, 600));
      expect((await billing()).held, 'true on read').to.equal(0);
      expect(await accounts.recordLapses(now(), 10_000)).to.be.greaterThanOrEqual(1);
      expect(await accounts.recordLapses(now(), 10_000)).to.equal(0);
      expect(await billing()).to.deep.equal({ mode: 'prepaid', balance: 5_000, held: 0, spendable: 5_000 });
    });

    it('when a confirmed order is cancelled, then the price less the fee comes back as REFUND and FEE lines; each sale is recorded once', async () => {
      await prepaid(3_000);
      const o = order();
      await accounts.follow(null, o, now(), 'test');
      await accounts.follow('CONFIRMED', cancelled(o, now(), 'agent', 700), now(), 'test');
      expect(await billing()).to.deep.include({ balance: 2_700 });
      const s = await statementOf(accounts, { agentId });
      expect(s.lines.map((l) => [l.type, l.amount.amount, l.balance.amount])).to.deep.equal([
        ['FUNDING', 3_000, 3_000],
        ['BOOKING', -1_000, 2_000],
        ['REFUND', 1_000, 3_000],
        ['FEE', -300, 2_700],
      ]);
      const owed = await statementOf(accounts, { operatorCode, livemode: true });
      expect(owed.lines.map((l) => [l.type, l.amount.amount, l.balance.amount])).to.deep.equal([
        ['BOOKING', 800, 800],
        ['REFUND', -800, 0],
      ]);
      const again = await accounts.follow(null, o, now(), 'test').then(
        () => 'recorded',
        () => 'refused',
      );
      expect(again).to.equal('refused');
      expect((await billing()).balance).to.equal(2_700);
    });

    it('when a prepaid spendable would fall below zero by a change of billing, then it is refused', async () => {
      await prepaid(0, 2_000);
      await accounts.follow(null, order(), now(), 'test');
      const refused = await failureOf(accounts.setBilling(agentId, 'THB', 'prepaid', 500, now()));
      expect(refused.reason).to.equal('insufficient-funds');
      expect((await accounts.setBilling(agentId, 'THB', 'invoice', 0, now())).mode).to.equal('invoice');
    });

    it('when spendable falls below the alert, then one agent_account.low_balance event each time it falls, none while it stays below', async () => {
      await subscribe(agentId);
      await prepaid(5_000);
      await accounts.setLowBalanceAlert(agentId, 'THB', 3_500, now());
      await accounts.follow(null, order(), now(), 'test'); // 4,000: above
      expect(await lowBalanceEvents(agentId)).to.deep.equal([]);
      await accounts.follow(null, held(), now(), 'test'); // 3,000: falls below
      await accounts.follow(null, order(), now(), 'test'); // 2,000: stays below
      expect(await lowBalanceEvents(agentId)).to.deep.equal([3_000]);
      await accounts.fund({
        id: `txn_${unique()}`,
        agentId,
        amount: { amount: 5_000, currency: 'THB' },
        reference: null,
        at: now(),
        livemode: true,
      });
      await accounts.follow(
        null,
        order({ price: { amount: 4_000, currency: 'THB' }, baseFare: { amount: 3_000, currency: 'THB' } }),
        now(),
        'test',
      );
      expect(await lowBalanceEvents(agentId)).to.deep.equal([3_000, 3_000]);
    });

    it('when 20 orders of a prepaid agent funded for 10 race (charges and holds), then exactly 10 succeed and spendable never goes below zero', async function () {
      if (!(await concurrent())) this.skip(); // PGlite runs one statement at a time: no contention to show.
      await prepaid(10_000);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => accounts.follow(null, i % 2 === 0 ? order() : held(), now(), 'test')),
      );
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(10);
      for (const r of refused) expect(((r as PromiseRejectedResult).reason as DomainError).reason).to.equal('insufficient-funds');
      const b = await billing();
      expect(b.spendable).to.equal(0);
      expect(b.balance - b.held).to.equal(0);
    });
  });
}

const told: DomainEvent[] = [];
agentAccountsContract(
  'memory',
  async () => new MemoryAgentAccounts({ record: (events) => void told.push(...events) }),
  async () => true,
  async (agentId) =>
    told.flatMap((e) => (e.type === 'agent_account.low_balance' && e.agentId === agentId ? [e.billing.spendable.amount] : [])),
);
agentAccountsContract(
  'PostgreSQL (Knex)',
  async () => new KnexAgentAccounts((await testDatabase()).knex),
  async () => (await databaseKind()) === 'postgres',
  async (agentId) => {
    const found = (await (
      await testDatabase()
    ).knex.raw(
      `SELECT body FROM webhook_events WHERE owner_kind = 'agent' AND owner_id = ? AND type = 'agent_account.low_balance' ORDER BY id`,
      [agentId],
    )) as { rows: Array<{ body: string }> };
    return found.rows.map(
      (r) => (JSON.parse(r.body) as { data: { billing: { spendable: { amount: number } } } }).data.billing.spendable.amount,
    );
  },
  async (agentId) => {
    await (
      await testDatabase()
    ).knex.raw(
      `INSERT INTO webhook_endpoints (id, owner_kind, owner_id, url, events, sealed_secret, created_at)
       VALUES (?, 'agent', ?, 'https://hooks.example.com/billing', ARRAY['agent_account.low_balance'], 'sealed', now())`,
      [`whe_${unique()}`, agentId],
    );
  },
);

describe('a long statement read in batches (PostgreSQL, and embedded PGlite alike)', () => {
  it('when an account has more lines than one batch, at microsecond times, then every line comes once and opening plus lines is closing', async () => {
    const { knex } = await testDatabase();
    const agentId = `agt_${unique()}`;
    const account = `booking:agent:${agentId}`;
    await knex.raw(
      `INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at, billing_mode)
       VALUES (?, 'booking', 'AGENT', ?, 'THB', 0, now(), 'invoice'), ('booking:funding:0', 'booking', 'FUNDING', NULL, 'THB', 0, now(), NULL)
       ON CONFLICT DO NOTHING`,
      [account, agentId],
    );
    // 4,500 lines, a few microseconds apart (several within one millisecond), over two batch boundaries.
    await knex.raw(
      `INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, reference, initiator_kind, initiator_client_id, created_at)
       SELECT ? || g, 'booking', 'FUNDING', g, 'THB', ?, NULL, 'machine', 'admin', now() - interval '1 hour' + g * interval '7 microseconds'
       FROM generate_series(1, 4500) g`,
      [`txn_${agentId}_`, agentId],
    );
    // Applied as the write path applies them: each account's balance first, then its entry, which
    // records the balance it left; the shared ledger stays balanced for the suites after.
    await knex.raw(`DO $$
      DECLARE t record;
      BEGIN
        FOR t IN SELECT id, amount, created_at FROM ledger_transactions WHERE id LIKE 'txn_${agentId}_%' ORDER BY created_at LOOP
          UPDATE ledger_accounts SET balance = balance + t.amount WHERE id = '${account}';
          UPDATE ledger_accounts SET balance = balance - t.amount WHERE id = 'booking:funding:0';
          INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
            VALUES (t.id, '${account}', t.amount, t.created_at), (t.id, 'booking:funding:0', -t.amount, t.created_at);
        END LOOP;
      END $$`);
    const s = await new KnexAgentAccounts(knex).statement(
      { account: { agentId }, from: new Date(Date.now() - 2 * 3_600_000), to: new Date(Date.now() + 60_000) },
      'THB',
    );
    const ids = new Set<string>();
    let count = 0;
    let last = s.opening.amount;
    for await (const line of s.lines) {
      ids.add(line.transactionId);
      count += 1;
      expect(line.balance.amount).to.equal(last + line.amount.amount);
      last = line.balance.amount;
    }
    expect([count, ids.size]).to.deep.equal([4500, 4500]);
    expect(last).to.equal((4500 * 4501) / 2);
  });
});

describe("an agent's money decided at the commit (PostgreSQL)", () => {
  it('when one order of a prepaid agent is still in its transaction, then another of its orders books and commits meanwhile; refused, the commit says insufficient-funds', async function () {
    if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite runs one transaction at a time.
    const { knex } = await testDatabase();
    const accounts = new KnexAgentAccounts(knex);
    const unit = new KnexUnitOfWork(knex);
    const agentId = `agt_${unique()}`;
    const at = new Date();
    const order = (over: Partial<Order> = {}): Order => ({
      ...orderRecord(agentId),
      operatorCode: `OP-${unique()}`,
      price: { amount: 1_000, currency: 'THB' },
      baseFare: { amount: 800, currency: 'THB' },
      ...over,
    });
    await accounts.setBilling(agentId, 'THB', 'prepaid', 0, at);
    await accounts.fund({
      id: `txn_${unique()}`,
      agentId,
      amount: { amount: 2_500, currency: 'THB' },
      reference: null,
      at,
      livemode: true,
    });

    // A hold's unit of work that stays open: the account's lock is not taken until it commits.
    let finish: () => void = () => undefined;
    const open = new Promise<void>((resolve) => (finish = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const first = unit.run(async () => {
      await accounts.follow(
        null,
        order({ status: 'ON_HOLD', confirmedAt: null, holdExpiresAt: new Date(Date.now() + 60_000) }),
        at,
        'test',
      );
      held();
      await open;
    });
    await holding;
    const second = await Promise.race([
      unit.run(() => accounts.follow(null, order(), at, 'test')).then(() => 'committed'),
      new Promise((resolve) => setTimeout(() => resolve('waited'), 2_000)),
    ]);
    expect(second, 'the other order did not wait for the open one').to.equal('committed');
    finish();
    await first;
    expect((await accounts.billingOf(agentId, 'THB', new Date())).spendable.amount).to.equal(500);

    // Short now: the refusal comes with the unit's commit, as the domain's error, and nothing is kept.
    const refused = await unit
      .run(() => accounts.follow(null, order(), at, 'test'))
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(refused).to.be.instanceOf(DomainError);
    expect([(refused as DomainError).reason, (refused as DomainError).details?.spendable]).to.deep.equal([
      'insufficient-funds',
      { amount: 500, currency: 'THB' },
    ]);
    expect(await accounts.billingOf(agentId, 'THB', new Date())).to.deep.include({ balance: { amount: 1_500, currency: 'THB' } });
  });
});
