import { expect } from 'chai';
import { reasonOf } from '../fixtures.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Money } from '../../domain/shared/money.js';
import { MAX_TRANSACTION_AMOUNT } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import { transactionScope, type TransactionScope } from '../../domain/wallet/scope.js';
import type { TransactionReader } from '../../domain/wallet/transaction-reader.port.js';
import type { Initiator, Transaction } from '../../domain/wallet/transaction.js';
import { ledgerTenant, machineInitiator, testId, userInitiator, type LedgerTenant } from '../fixtures.js';
import { listenAs, type EmittedEvents, type EventSeen } from './events.js';

export interface LedgerStores {
  readonly ledger: Ledger;
  readonly reader: TransactionReader;
}

export interface LedgerContractOptions {
  /** Whether the store can show real contention (false on PGlite: one connection). */
  concurrent(): Promise<boolean>;
  /** Checks the ledger's invariants; runs after every test. */
  check(stores: LedgerStores): Promise<void>;
  /**
   * The webhook store and outbox reader the ledger of the last `make()` records its
   * `transaction.created` events into; without it the event cases are skipped.
   */
  events?(): Promise<EmittedEvents>;
}

let clock = Date.parse('2026-03-01T00:00:00.000Z');
/** Strictly increasing instants, so listing order is known. */
const tick = (): Date => new Date((clock += 1000));

/** The behaviour every Ledger + TransactionReader pair must show, whatever stores it. */
export function ledgerContract(name: string, make: () => Promise<LedgerStores>, options: LedgerContractOptions): void {
  describe(`ledger contract: ${name}`, () => {
    let s: LedgerStores;
    let t: LedgerTenant;
    beforeEach(async () => {
      s = await make();
      t = ledgerTenant();
    });
    afterEach(async () => {
      await options.check(s);
    });

    const thb = (amount: number): Money => ({ amount, currency: t.currency });
    const moneyOf = (amount: number | Money, tenant: LedgerTenant = t): Money =>
      typeof amount === 'number' ? { amount, currency: tenant.currency } : amount;
    /** What every write carries besides its own fields: a new id, the tenant, who made it and when. */
    const stamp = (tenant: LedgerTenant, initiatedBy: Initiator, createdAt: Date = tick()) => ({
      id: testId('txn'),
      tenantId: tenant.tenantId,
      initiatedBy,
      createdAt,
    });
    const topUp = (userId: string, amount: number | Money, over: { tenant?: LedgerTenant; at?: Date } = {}) => {
      const tenant = over.tenant ?? t;
      const money = moneyOf(amount, tenant);
      return s.ledger.topUp({
        ...stamp(tenant, machineInitiator(tenant), over.at),
        userId,
        amount: money,
        reference: `ref-${money.amount}`,
      });
    };
    const pay = (userId: string, amount: number | Money, over: { by?: Initiator } = {}) => {
      const money = moneyOf(amount);
      return s.ledger.pay({
        ...stamp(t, over.by ?? userInitiator(t, userId)),
        userId,
        amount: money,
        reference: `order-${money.amount}`,
        description: 'coffee',
      });
    };
    const transfer = (from: string, to: string, amount: number | Money) =>
      s.ledger.transfer({
        ...stamp(t, userInitiator(t, from, ['pwd'])),
        userId: from,
        toUserId: to,
        amount: moneyOf(amount),
        note: 'lunch',
      });
    const refund = (paymentId: string, amount: number | Money | null, over: { tenant?: LedgerTenant } = {}) => {
      const tenant = over.tenant ?? t;
      return s.ledger.refund({
        ...stamp(tenant, machineInitiator(tenant)),
        paymentId,
        amount: amount === null ? null : moneyOf(amount, tenant),
      });
    };
    const tenantScope = (userId: string | null = null): TransactionScope =>
      transactionScope({ kind: 'machine', tenantId: t.tenantId, clientId: t.clientId }, userId);
    const personScope = (userId: string): TransactionScope =>
      transactionScope({ kind: 'user', tenantId: t.tenantId, userId, clientId: t.clientId, amr: ['pwd'], act: null });
    const ids = (list: readonly Transaction[]): string[] => list.map((x) => x.id);

    describe('writes', () => {
      it('when a user is topped up, then the balance rises and the transaction records who made it', async () => {
        const u = t.newUser();
        const txn = await topUp(u, 5_000);
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(5_000);
        expect(txn).to.include({ type: 'TOP_UP', userId: u, counterpartyUserId: null, reference: 'ref-5000', tenantId: t.tenantId });
        expect(txn.amount).to.deep.equal(thb(5_000));
        expect(txn.initiatedBy).to.deep.equal(machineInitiator(t));
        expect(await s.reader.find(tenantScope(), txn.id)).to.deep.equal(txn);
      });

      it('when a user has never been credited, then the balance is 0 and a payment is insufficient-funds', async () => {
        const u = t.newUser();
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(0);
        expect(await reasonOf(pay(u, 1))).to.equal('insufficient-funds');
      });

      it('when a payment exceeds the balance, then insufficient-funds and nothing is recorded', async () => {
        const u = t.newUser();
        await topUp(u, 1_000);
        expect(await reasonOf(pay(u, 1_001))).to.equal('insufficient-funds');
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(1_000);
        expect((await s.reader.list(personScope(u), { types: ['PAYMENT'] }, null, 10)).length).to.equal(0);
      });

      it('when a payment uses the whole balance, then the balance is 0 and the initiator keeps amr and act', async () => {
        const u = t.newUser();
        await topUp(u, 1_000);
        const p = await pay(u, 1_000);
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(0);
        expect(p).to.include({ type: 'PAYMENT', userId: u, description: 'coffee', refundedAmount: 0 });
        expect(p.initiatedBy).to.deep.equal({
          kind: 'user',
          tenantId: t.tenantId,
          clientId: t.clientId,
          userId: u,
          amr: ['tenant_delegated'],
          act: { sub: t.clientId },
        });
        expect((await s.reader.find(personScope(u), p.id))?.initiatedBy).to.deep.equal(p.initiatedBy);
      });

      it('when money is transferred, then it moves between the two users; a short sender is refused', async () => {
        const a = t.newUser();
        const b = t.newUser();
        await topUp(a, 700);
        const x = await transfer(a, b, 300);
        expect(x).to.include({ type: 'TRANSFER', userId: a, counterpartyUserId: b, description: 'lunch' });
        expect(x.initiatedBy.amr).to.deep.equal(['pwd']);
        expect(await s.ledger.balanceOf(t.tenantId, a)).to.equal(400);
        expect(await s.ledger.balanceOf(t.tenantId, b)).to.equal(300);
        expect(await reasonOf(transfer(b, a, 301))).to.equal('insufficient-funds');
        const balances = await s.ledger.balancesOf(t.tenantId, [a, b, t.newUser()]);
        expect([...balances.entries()].sort()).to.deep.equal(
          [
            [a, 400],
            [b, 300],
          ].sort(),
        );
      });
    });

    describe('rules checked before anything is written', () => {
      /** Everything the tenant's users hold and the tenant's listing: what a refused write must leave alone. */
      const snapshot = async (users: string[]) => ({
        balances: await Promise.all(users.map((u) => s.ledger.balanceOf(t.tenantId, u))),
        listed: ids(await s.reader.list(tenantScope(), {}, null, 100)),
      });

      it('when an amount is 0, negative, fractional or over the maximum, then invalid-request for every kind of write and nothing moves', async () => {
        const a = t.newUser();
        const b = t.newUser();
        await topUp(a, 1_000);
        const p = await pay(a, 500);
        const before = await snapshot([a, b]);
        for (const bad of [0, -5, 1.5, MAX_TRANSACTION_AMOUNT + 1, Number.NaN]) {
          expect(await reasonOf(topUp(a, bad)), `top-up ${bad}`).to.equal('invalid-request');
          expect(await reasonOf(pay(a, bad)), `payment ${bad}`).to.equal('invalid-request');
          expect(await reasonOf(transfer(a, b, bad)), `transfer ${bad}`).to.equal('invalid-request');
          expect(await reasonOf(refund(p.id, bad)), `refund ${bad}`).to.equal('invalid-request');
        }
        expect(await snapshot([a, b])).to.deep.equal(before);
        expect(await topUp(b, MAX_TRANSACTION_AMOUNT)).to.include({ userId: b });
      });

      it('when a user transfers to themself, then same-user-transfer and nothing moves', async () => {
        const a = t.newUser();
        await topUp(a, 1_000);
        const before = await snapshot([a]);
        expect(await reasonOf(transfer(a, a, 100))).to.equal('same-user-transfer');
        expect(await reasonOf(transfer(a, a, 5_000))).to.equal('same-user-transfer');
        expect(await snapshot([a])).to.deep.equal(before);
      });

      it('when money is in another currency than the account holds, then currency-mismatch for a top-up, payment, transfer or refund', async () => {
        const a = t.newUser();
        const b = t.newUser();
        await topUp(a, 1_000);
        await topUp(b, 1_000);
        const p = await pay(a, 400);
        const before = await snapshot([a, b]);
        const usd = (amount: number): Money => ({ amount, currency: 'USD' });
        expect(await reasonOf(topUp(a, usd(100)))).to.equal('currency-mismatch');
        expect(await reasonOf(pay(a, usd(100)))).to.equal('currency-mismatch');
        expect(await reasonOf(transfer(a, b, usd(100)))).to.equal('currency-mismatch');
        expect(await reasonOf(refund(p.id, usd(100)))).to.equal('currency-mismatch');
        // A new user has no account yet, but the tenant's funding or settlement account does.
        expect(await reasonOf(transfer(a, t.newUser(), usd(100)))).to.equal('currency-mismatch');
        expect(await snapshot([a, b])).to.deep.equal(before);
        expect((await s.reader.find(tenantScope(), p.id))?.refundedAmount).to.equal(0);
      });

      it('when refunds would give back more than the payment, then refund-exceeds-payment; only a payment is refundable', async () => {
        const a = t.newUser();
        const b = t.newUser();
        await topUp(a, 1_000);
        const p = await pay(a, 300);
        const x = await transfer(a, b, 100);
        expect(await reasonOf(refund(p.id, 301))).to.equal('refund-exceeds-payment');
        await refund(p.id, 300);
        expect(await reasonOf(refund(p.id, 1))).to.equal('refund-exceeds-payment');
        const r = (await s.reader.list(tenantScope(), { types: ['REFUND'] }, null, 10))[0]!;
        expect(await reasonOf(refund(r.id, 1))).to.equal('not-refundable');
        expect(await reasonOf(refund(x.id, 1))).to.equal('not-refundable');
        expect(await s.ledger.balanceOf(t.tenantId, a)).to.equal(900);
        expect(await s.ledger.balanceOf(t.tenantId, b)).to.equal(100);
      });
    });

    /**
     * Every refusal of the ledger, each with the state it is refused in: a user with 1,000 who
     * paid 400 (`p`) and topped up 500, another user with 1,000.
     */
    const refusals = (a: string, b: string, top: Transaction, p: Transaction) => {
      const usd = (amount: number): Money => ({ amount, currency: 'USD' });
      return [
        { name: 'a payment over the balance', write: () => pay(a, 1_101), reason: 'insufficient-funds' },
        { name: 'a payment by a user never credited', write: () => pay(t.newUser(), 1), reason: 'insufficient-funds' },
        { name: 'a transfer over the balance', write: () => transfer(a, b, 1_101), reason: 'insufficient-funds' },
        {
          name: 'a top-up in another currency',
          write: () => topUp(a, usd(100)),
          reason: 'currency-mismatch',
          details: { expected: 'THB' },
        },
        { name: 'a payment in another currency', write: () => pay(a, usd(100)), reason: 'currency-mismatch', details: { expected: 'THB' } },
        {
          name: 'a transfer in another currency',
          write: () => transfer(a, b, usd(100)),
          reason: 'currency-mismatch',
          details: { expected: 'THB' },
        },
        {
          name: 'a transfer in another currency to a user with no account yet',
          write: () => transfer(a, t.newUser(), usd(100)),
          reason: 'currency-mismatch',
          details: { expected: 'THB' },
        },
        {
          name: 'a refund in another currency',
          write: () => refund(p.id, usd(100)),
          reason: 'currency-mismatch',
          details: { expected: 'THB' },
        },
        {
          name: 'a refund over the payment',
          write: () => refund(p.id, 401),
          reason: 'refund-exceeds-payment',
          details: { remaining: { amount: 400, currency: 'THB' } },
        },
        { name: 'a refund of a top-up', write: () => refund(top.id, 1), reason: 'not-refundable' },
        { name: 'a refund of no transaction', write: () => refund(testId('txn'), 1), reason: 'transaction-not-found' },
        {
          name: 'a refund of another tenant’s payment',
          write: () => refund(p.id, 1, { tenant: ledgerTenant() }),
          reason: 'transaction-not-found',
        },
        { name: 'a transfer to the sender', write: () => transfer(a, a, 100), reason: 'same-user-transfer' },
        { name: 'a payment of 0', write: () => pay(a, 0), reason: 'invalid-request' },
      ] as const;
    };
    /** The state `refusals` starts from. */
    const refusalState = async () => {
      const a = t.newUser();
      const b = t.newUser();
      const top = await topUp(a, 1_000);
      const p = await pay(a, 400);
      await topUp(a, 500);
      await topUp(b, 1_000);
      return { a, b, top, p };
    };
    /** What a write throws, or null. */
    const thrown = (write: Promise<unknown>): Promise<unknown> =>
      write.then(
        () => null,
        (e: unknown) => e,
      );

    describe('refusals, each as the domain error', () => {
      it('when a write is refused, then it throws a DomainError with its reason (and details), and nothing moves', async () => {
        const { a, b, top, p } = await refusalState();
        const state = async () => ({
          balances: [await s.ledger.balanceOf(t.tenantId, a), await s.ledger.balanceOf(t.tenantId, b)],
          listed: ids(await s.reader.list(tenantScope(), {}, null, 100)),
          refunded: (await s.reader.find(tenantScope(), p.id))?.refundedAmount,
        });
        const before = await state();
        expect(before.balances).to.deep.equal([1_100, 1_000]);
        for (const r of refusals(a, b, top, p)) {
          const err = await thrown(r.write());
          expect(err, r.name).to.be.instanceOf(DomainError);
          expect((err as DomainError).reason, r.name).to.equal(r.reason);
          if ('details' in r) expect((err as DomainError).details, r.name).to.deep.equal(r.details);
          expect(await state(), `${r.name} leaves everything as it was`).to.deep.equal(before);
        }
      });

      it('when a user is short, then insufficient-funds says so; the message is the user’s, not the tenant account’s', async () => {
        const u = t.newUser();
        await topUp(u, 10);
        const err = (await thrown(pay(u, 11))) as DomainError;
        expect(err).to.be.instanceOf(DomainError);
        expect(err.reason).to.equal('insufficient-funds');
        expect(err.message).to.equal(new DomainError('insufficient-funds').message);
      });
    });

    describe('events it records', () => {
      let seen: () => Promise<EventSeen[]>;
      beforeEach(async function () {
        if (options.events === undefined) this.skip();
        seen = await listenAs(await options.events(), { kind: 'tenant', id: t.tenantId }, ['transaction.created']);
      });
      const created = (...txns: Transaction[]): EventSeen[] => txns.map((x) => ({ type: 'transaction.created', id: x.id }));

      it('when each kind of write is recorded, then exactly one transaction.created of it, with its id, and nothing for another tenant', async () => {
        const a = t.newUser();
        const b = t.newUser();
        const top = await topUp(a, 1_000);
        expect(await seen()).to.deep.equal(created(top));
        const p = await pay(a, 300);
        expect(await seen()).to.deep.equal(created(top, p));
        const x = await transfer(a, b, 200);
        const r = await refund(p.id, 100);
        expect(await seen()).to.deep.equal(created(top, p, x, r));
        const other = ledgerTenant();
        await topUp(other.newUser(), 5, { tenant: other });
        expect(await seen()).to.deep.equal(created(top, p, x, r));
      });

      it('when a write is refused, then no event is recorded, whichever the refusal', async () => {
        const { a, b, top, p } = await refusalState();
        const before = await seen();
        expect(before).to.have.length(4);
        for (const r of refusals(a, b, top, p)) {
          expect(await reasonOf(r.write()), r.name).to.equal(r.reason);
          expect(await seen(), `${r.name} records nothing`).to.deep.equal(before);
        }
      });
    });

    describe('refunds', () => {
      it('when a payment is refunded in parts, then the payer gets the money back up to the payment and no more', async () => {
        const u = t.newUser();
        await topUp(u, 1_000);
        const p = await pay(u, 600);
        const r1 = await refund(p.id, 200);
        expect(r1).to.include({ type: 'REFUND', userId: u, refundOf: p.id, reference: p.reference });
        expect(r1.amount).to.deep.equal(thb(200));
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(600);
        expect(await reasonOf(refund(p.id, 401))).to.equal('refund-exceeds-payment');
        const r2 = await refund(p.id, null);
        expect(r2.amount.amount).to.equal(400);
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(1_000);
        expect(await reasonOf(refund(p.id, null))).to.equal('refund-exceeds-payment');
        expect((await s.reader.find(tenantScope(), p.id))?.refundedAmount).to.equal(600);
      });

      it('when the transaction is not a payment, then not-refundable; another tenant’s payment is transaction-not-found', async () => {
        const u = t.newUser();
        const top = await topUp(u, 1_000);
        expect(await reasonOf(refund(top.id, null))).to.equal('not-refundable');
        const p = await pay(u, 100);
        expect(await reasonOf(refund(p.id, null, { tenant: ledgerTenant() }))).to.equal('transaction-not-found');
        expect(await reasonOf(refund(testId('txn'), null))).to.equal('transaction-not-found');
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(900);
      });
    });

    describe('reads', () => {
      it('when many balances are read at once, then each reader gets its own, and a write made before a read is seen', async () => {
        const users = Array.from({ length: 25 }, () => t.newUser());
        await Promise.all(users.map((u, i) => topUp(u, 1_000 + i)));
        const stranger = t.newUser(); // never credited
        const other = ledgerTenant();
        const balances = await Promise.all([...users, stranger].map((u) => s.ledger.balanceOf(t.tenantId, u)));
        expect(balances).to.deep.equal([...users.map((_, i) => 1_000 + i), 0]);
        // The same user id under another tenant is another account.
        expect(await s.ledger.balanceOf(other.tenantId, users[0]!)).to.equal(0);
        await pay(users[3]!, 3);
        const [after, unchanged] = await Promise.all([
          s.ledger.balanceOf(t.tenantId, users[3]!),
          s.ledger.balanceOf(t.tenantId, users[4]!),
        ]);
        expect(after).to.equal(1_000);
        expect(unchanged).to.equal(1_004);
      });

      it('when a list is paged, then it is newest first with no gaps or repeats and filters by type and time', async () => {
        const u = t.newUser();
        const made: Transaction[] = [];
        for (let i = 0; i < 5; i++) made.push(await topUp(u, 100 + i));
        made.push(await pay(u, 50));
        const newestFirst = ids(made).reverse();
        const page1 = await s.reader.list(personScope(u), {}, null, 4);
        const last = page1[page1.length - 1]!;
        const page2 = await s.reader.list(personScope(u), {}, { createdAt: last.createdAt, id: last.id }, 4);
        expect([...ids(page1), ...ids(page2)]).to.deep.equal(newestFirst);
        expect(ids(await s.reader.list(tenantScope(), { types: ['PAYMENT'] }, null, 10))).to.deep.equal([made[5]!.id]);
        const window = await s.reader.list(tenantScope(), { from: made[1]!.createdAt, to: made[3]!.createdAt }, null, 10);
        expect(ids(window)).to.deep.equal([made[2]!.id, made[1]!.id]);
      });

      it('when a person reads, then they see only their own activity, as payer or counterparty, through list, find and summary', async () => {
        const a = t.newUser();
        const b = t.newUser();
        const c = t.newUser();
        await topUp(a, 1_000);
        const cTop = await topUp(c, 1_000);
        const ab = await transfer(a, b, 100);
        const cPay = await pay(c, 300);
        const bPay = await pay(b, 40);
        // b asks for c's activity in every way a parameter could: the scope ignores it.
        const bScope = transactionScope(
          { kind: 'user', tenantId: t.tenantId, userId: b, clientId: t.clientId, amr: ['pwd'], act: null },
          c,
        );
        expect(ids(await s.reader.list(bScope, {}, null, 100))).to.deep.equal([bPay.id, ab.id]);
        expect(ids(await s.reader.list(bScope, { types: ['TOP_UP', 'PAYMENT'] }, null, 100))).to.deep.equal([bPay.id]);
        expect(await s.reader.find(bScope, cPay.id)).to.equal(null);
        expect(await s.reader.find(bScope, cTop.id)).to.equal(null);
        expect(await s.reader.find(bScope, ab.id)).to.not.equal(null);
        expect(await s.reader.summarize(bScope, {})).to.deep.equal([
          { type: 'TOP_UP', count: 0, total: 0 },
          { type: 'PAYMENT', count: 1, total: 40 },
          { type: 'TRANSFER', count: 1, total: 100 },
          { type: 'REFUND', count: 0, total: 0 },
        ]);
      });

      it('when a tenant reads, then it sees all its users (or one) and never another tenant’s', async () => {
        const other = ledgerTenant();
        const a = t.newUser();
        const x = other.newUser();
        const mine = await topUp(a, 100);
        const theirs = await topUp(x, 100, { tenant: other });
        // The same user id in another tenant is another person.
        const sameIdElsewhere = await topUp(a, 100, { tenant: other });
        expect(ids(await s.reader.list(tenantScope(), {}, null, 100))).to.deep.equal([mine.id]);
        expect(ids(await s.reader.list(tenantScope(a), {}, null, 100))).to.deep.equal([mine.id]);
        expect(await s.reader.find(tenantScope(), theirs.id)).to.equal(null);
        expect(await s.reader.find(tenantScope(), sameIdElsewhere.id)).to.equal(null);
        expect(await s.reader.find(personScope(a), sameIdElsewhere.id)).to.equal(null);
        expect((await s.reader.summarize(tenantScope(), {}))[0]).to.deep.equal({ type: 'TOP_UP', count: 1, total: 100 });
        expect(await s.ledger.balanceOf(t.tenantId, a)).to.equal(100);
      });

      it('when a summary is filtered by time, then it counts exactly what the list returns', async () => {
        const u = t.newUser();
        const t1 = await topUp(u, 300);
        const p1 = await pay(u, 100);
        const p2 = await pay(u, 50);
        const filter = { from: p1.createdAt, to: new Date(p2.createdAt.getTime() + 1) };
        const listed = await s.reader.list(personScope(u), filter, null, 100);
        expect(ids(listed)).to.deep.equal([p2.id, p1.id]);
        const summary = await s.reader.summarize(personScope(u), filter);
        expect(summary.find((r) => r.type === 'PAYMENT')).to.deep.equal({ type: 'PAYMENT', count: 2, total: 150 });
        expect(summary.find((r) => r.type === 'TOP_UP')).to.deep.equal({ type: 'TOP_UP', count: 0, total: 0 });
        expect(t1.id).to.be.a('string');
      });
    });

    describe('concurrency', () => {
      it('when 100 payments of 100 race against a balance of 5,000, then exactly 50 succeed and the balance is 0', async function () {
        if (!(await options.concurrent())) this.skip(); // PGlite has one connection: no real contention to show
        this.timeout(60_000);
        const u = t.newUser();
        await topUp(u, 5_000);
        const outcomes = await Promise.all(
          Array.from({ length: 100 }, () =>
            pay(u, 100).then(
              () => 'ok',
              (e: DomainError) => e.reason,
            ),
          ),
        );
        expect(outcomes.filter((o) => o === 'ok')).to.have.length(50);
        expect(outcomes.filter((o) => o === 'insufficient-funds')).to.have.length(50);
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(0);
      });

      it('when transfers race both ways between two users, then none deadlocks and the total is conserved', async function () {
        if (!(await options.concurrent())) this.skip(); // PGlite has one connection: no real contention to show
        this.timeout(60_000);
        const a = t.newUser();
        const b = t.newUser();
        await topUp(a, 1_000);
        await topUp(b, 1_000);
        const outcomes = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            (i % 2 === 0 ? transfer(a, b, 37) : transfer(b, a, 53)).then(
              () => 'ok',
              (e: Error) => (e instanceof DomainError ? e.reason : e.message),
            ),
          ),
        );
        expect(outcomes.filter((o) => o !== 'ok' && o !== 'insufficient-funds')).to.deep.equal([]);
        const [ba, bb] = [await s.ledger.balanceOf(t.tenantId, a), await s.ledger.balanceOf(t.tenantId, b)];
        expect(ba + bb).to.equal(2_000);
        expect(ba).to.be.at.least(0);
        expect(bb).to.be.at.least(0);
      });

      it('when refunds race on one payment, then their total never exceeds it', async function () {
        if (!(await options.concurrent())) this.skip(); // PGlite has one connection: no real contention to show
        const u = t.newUser();
        await topUp(u, 1_000);
        const p = await pay(u, 1_000);
        const outcomes = await Promise.all(
          Array.from({ length: 15 }, () =>
            refund(p.id, 100).then(
              () => 'ok',
              (e: DomainError) => e.reason,
            ),
          ),
        );
        expect(outcomes.filter((o) => o === 'ok')).to.have.length(10);
        expect(outcomes.filter((o) => o === 'refund-exceeds-payment')).to.have.length(5);
        expect(await s.ledger.balanceOf(t.tenantId, u)).to.equal(1_000);
      });
    });
  });
}
