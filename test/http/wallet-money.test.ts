import { expect } from 'chai';
import { reasonIn } from '../support/errors.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { assertLedgerBalanced } from '../support/ledger-balance.js';
import {
  bearer,
  buildPasswordUser,
  buildTenant,
  delegatedToken,
  login,
  machineToken,
  testAddress,
  type TestTenant,
  walletSuite,
} from '../support/wallet-builders.js';

interface Txn {
  id: string;
  type: string;
  amount: { amount: number; currency: string };
  userId: string;
  counterpartyUserId: string | null;
  reference: string | null;
  createdAt: string;
  initiatedBy: {
    kind: string;
    tenantId: string;
    clientId: string;
    userId: string | null;
    amr: string[] | null;
    act: { sub: string } | null;
  };
}

const body = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const reason = reasonIn;

describe('wallet money (top-ups, payments, transfers, refunds, balances)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let machine: string;
  walletSuite({}, (suite) => ({ app, tenant, machine } = suite));
  afterEach(async () => {
    await assertLedgerBalanced((await testDatabase()).knex);
  });

  const topUp = (userId: string, amount: unknown, headers: Record<string, string> = {}, token = machine) =>
    app.request(`/users/${userId}/top-ups`, json('POST', { amount, reference: `top-${unique()}` }, { ...bearer(token), ...headers }));
  const pay = (token: string, amount: unknown, headers: Record<string, string> = {}) =>
    app.request(
      '/me/payments',
      json('POST', { amount, reference: `order-${unique()}`, description: 'Coffee' }, { ...bearer(token), ...headers }),
    );
  const transfer = (token: string, toUserId: string, amount: unknown, headers: Record<string, string> = {}) =>
    app.request('/me/transfers', json('POST', { toUserId, amount, note: 'lunch' }, { ...bearer(token), ...headers }));
  const balance = async (token: string): Promise<number> => {
    const res = await app.request('/me/balance', { headers: bearer(token) });
    expect(res.status).to.equal(200);
    return (await body<{ available: { amount: number } }>(res)).available.amount;
  };
  const funded = async (amount: number) => {
    const user = await delegatedToken(app, machine);
    if (amount > 0) expect((await topUp(user.userId, amount)).status).to.equal(201);
    return user;
  };

  describe('POST /users/{userId}/top-ups', () => {
    it('when the backend tops up its user, then 201 with the transaction, and the balance shows it to the person and the tenant', async () => {
      const user = await delegatedToken(app, machine);
      const res = await topUp(user.userId, { amount: 5_000, currency: 'THB' }, { 'idempotency-key': `k-${unique()}` });
      expect(res.status).to.equal(201);
      const txn = await body<Txn>(res);
      expect(txn).to.include({ type: 'TOP_UP', userId: user.userId, counterpartyUserId: null });
      expect(txn.id).to.match(/^txn_/);
      expect(txn.amount).to.deep.equal({ amount: 5_000, currency: 'THB' });
      expect(txn.initiatedBy).to.deep.equal({
        kind: 'machine',
        tenantId: tenant.tenantId,
        clientId: tenant.clientId,
        userId: null,
        amr: null,
        act: null,
      });
      expect(res.headers.get('location')).to.equal(`/transactions/${txn.id}`);
      expect(await balance(user.token)).to.equal(5_000);
      const read = await body<{ balance: unknown }>(await app.request(`/users/${user.userId}`, { headers: bearer(machine) }));
      expect(read.balance).to.deep.equal({ amount: 5_000, currency: 'THB' });
      const list = await body<{ data: Array<{ id: string; balance: unknown }> }>(
        await app.request('/users?limit=100', { headers: bearer(machine) }),
      );
      expect(list.data.find((u) => u.id === user.userId)?.balance).to.deep.equal({ amount: 5_000, currency: 'THB' });
    });

    it('when the amount is zero, negative, fractional, huge, a string or malformed money, then 400 invalid-request; another currency is 422', async () => {
      const user = await delegatedToken(app, machine);
      for (const amount of [
        0,
        -5,
        1.5,
        1e15,
        '100',
        null,
        { amount: 10 },
        { amount: 10, currency: 'thb' },
        { amount: 0, currency: 'THB' },
      ]) {
        const res = await topUp(user.userId, amount);
        expect(res.status, JSON.stringify(amount)).to.equal(400);
        expect(await reason(res)).to.equal('invalid-request');
      }
      const usd = await topUp(user.userId, { amount: 100, currency: 'USD' });
      expect(usd.status).to.equal(422);
      expect(await reason(usd)).to.equal('currency-mismatch');
      expect(await balance(user.token)).to.equal(0);
    });

    it('when the user is another tenant’s or unknown, then 404 user-not-found; a user token is 403 machine-token-required', async () => {
      const otherMachine = await machineToken(app, await buildTenant(app.service));
      const stranger = await delegatedToken(app, otherMachine);
      const res = await topUp(stranger.userId, 100);
      expect(res.status).to.equal(404);
      expect(await reason(res)).to.equal('user-not-found');
      expect(await reason(await topUp(`usr_${unique()}`, 100))).to.equal('user-not-found');
      const asUser = await topUp(stranger.userId, 100, {}, stranger.token);
      expect(asUser.status).to.equal(403);
      expect(await reason(asUser)).to.equal('machine-token-required');
      expect(await balance(stranger.token)).to.equal(0);
    });
  });

  describe('POST /me/payments', () => {
    it('when the balance covers it, then 201 and the record keeps the delegated amr and act; when short, 422 insufficient-funds', async () => {
      const user = await funded(1_000);
      const ok = await pay(user.token, 600);
      expect(ok.status).to.equal(201);
      const txn = await body<Txn>(ok);
      expect(txn).to.include({ type: 'PAYMENT', userId: user.userId });
      expect(txn.initiatedBy).to.deep.equal({
        kind: 'user',
        tenantId: tenant.tenantId,
        clientId: tenant.clientId,
        userId: user.userId,
        amr: ['tenant_delegated'],
        act: { sub: tenant.clientId },
      });
      const short = await pay(user.token, 401);
      expect(short.status).to.equal(422);
      expect(await reason(short)).to.equal('insufficient-funds');
      expect(await balance(user.token)).to.equal(400);
    });

    it('when a payment, transfer or refund has a bad amount or another currency, then 400 invalid-request or 422 currency-mismatch and nothing moves', async () => {
      const user = await funded(1_000);
      const other = await funded(0);
      const payment = await body<Txn>(await pay(user.token, 300));
      const refund = (amount: unknown) => app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount }, bearer(machine)));
      for (const amount of [0, -5, 1.5, 1e15, { amount: 0, currency: 'THB' }]) {
        for (const res of [await pay(user.token, amount), await transfer(user.token, other.userId, amount), await refund(amount)]) {
          expect(res.status, JSON.stringify(amount)).to.equal(400);
          expect(await reason(res)).to.equal('invalid-request');
        }
      }
      const usd = { amount: 100, currency: 'USD' };
      for (const res of [await pay(user.token, usd), await transfer(user.token, other.userId, usd), await refund(usd)]) {
        expect(res.status).to.equal(422);
        expect(await reason(res)).to.equal('currency-mismatch');
      }
      expect(await balance(user.token)).to.equal(700);
      expect(await balance(other.token)).to.equal(0);
    });

    it('when the person logged in with a password, then the payment records amr pwd and no act', async () => {
      const person = await buildPasswordUser(app, machine);
      expect((await topUp(person.userId, 300)).status).to.equal(201);
      const res = await login(app, { clientId: tenant.clientId, email: person.email, password: person.password }, testAddress());
      expect(res.status).to.equal(200);
      const token = (await body<{ access_token: string }>(res)).access_token;
      const txn = await body<Txn>(await pay(token, 100));
      expect(txn.initiatedBy).to.deep.include({ kind: 'user', userId: person.userId, amr: ['pwd'], act: null });
    });

    it('when a machine token pays, then 401 not-a-wallet-user', async () => {
      const res = await pay(machine, 1);
      expect(res.status).to.equal(401);
      const problem = await body<{ reason: string; message: string }>(res);
      expect(problem).to.include({ reason: 'not-a-wallet-user', message: 'Authenticated principal is not a wallet user.' });
    });

    it('when a payment is retried with its Idempotency-Key, then the first response is replayed and the money moves once', async () => {
      const user = await funded(1_000);
      const key = `pay-${unique()}`;
      const send = () =>
        app.request('/me/payments', json('POST', { amount: 250, reference: 'order-1' }, { ...bearer(user.token), 'idempotency-key': key }));
      const first = await send();
      const again = await send();
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect((await body<Txn>(again)).id).to.equal((await body<Txn>(first)).id);
      const other = await app.request(
        '/me/payments',
        json('POST', { amount: 251, reference: 'order-1' }, { ...bearer(user.token), 'idempotency-key': key }),
      );
      expect(other.status).to.equal(422);
      expect(await reason(other)).to.equal('idempotency-key-reused');
      expect(await balance(user.token)).to.equal(750);
    });

    it('when 20 requests with one Idempotency-Key arrive at once, then exactly one payment is made', async function () {
      if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite has one connection: no real contention to show
      const user = await funded(10_000);
      const key = `race-${unique()}`;
      const send = () =>
        app.request(
          '/me/payments',
          json('POST', { amount: 700, reference: 'order-race' }, { ...bearer(user.token), 'idempotency-key': key }),
        );
      const responses = await Promise.all(Array.from({ length: 20 }, send));
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.every((s) => s === 201 || s === 409),
        statuses.join(','),
      ).to.equal(true);
      const ids = new Set<string>();
      for (const r of responses) if (r.status === 201) ids.add((await body<Txn>(r)).id);
      expect(ids.size).to.equal(1);
      expect(await balance(user.token)).to.equal(9_300);
    });

    it('when 100 payments of 100 race against a balance of 5,000, then exactly 50 succeed and the balance is 0', async function () {
      if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite has one connection: no real contention to show
      this.timeout(60_000);
      const user = await funded(5_000);
      const responses = await Promise.all(Array.from({ length: 100 }, () => pay(user.token, 100)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).to.have.length(50);
      expect(statuses.filter((s) => s === 422)).to.have.length(50);
      expect(await balance(user.token)).to.equal(0);
    });
  });

  describe('POST /me/transfers', () => {
    it('when a person sends money to a user of the same tenant, then both balances move', async () => {
      const a = await funded(1_000);
      const b = await funded(0);
      const res = await transfer(a.token, b.userId, 400);
      expect(res.status).to.equal(201);
      expect(await body<Txn>(res)).to.include({ type: 'TRANSFER', userId: a.userId, counterpartyUserId: b.userId });
      expect(await balance(a.token)).to.equal(600);
      expect(await balance(b.token)).to.equal(400);
      const short = await transfer(b.token, a.userId, 401);
      expect(short.status).to.equal(422);
      expect(await reason(short)).to.equal('insufficient-funds');
      const self = await transfer(a.token, a.userId, 1);
      expect(self.status).to.equal(422);
      expect(await reason(self)).to.equal('same-user-transfer');
    });

    it('when the recipient is another tenant’s user or unknown, then 404 user-not-found and nothing moves', async () => {
      const a = await funded(1_000);
      const stranger = await delegatedToken(app, await machineToken(app, await buildTenant(app.service)));
      for (const to of [stranger.userId, `usr_${unique()}`]) {
        const res = await transfer(a.token, to, 100);
        expect(res.status).to.equal(404);
        expect(await reason(res)).to.equal('user-not-found');
      }
      expect(await balance(a.token)).to.equal(1_000);
      expect(await balance(stranger.token)).to.equal(0);
    });

    it('when transfers race both ways, then every one succeeds or is refused for funds, and the total is conserved', async function () {
      if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite has one connection: no real contention to show
      this.timeout(60_000);
      const a = await funded(1_000);
      const b = await funded(1_000);
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? transfer(a.token, b.userId, 70) : transfer(b.token, a.userId, 90))),
      );
      expect(responses.map((r) => r.status).filter((s) => s !== 201 && s !== 422)).to.deep.equal([]);
      expect((await balance(a.token)) + (await balance(b.token))).to.equal(2_000);
    });
  });

  describe('POST /transactions/{transactionId}/refunds', () => {
    it('when the backend refunds part then the rest of a payment, then the payer gets it back, and never more', async () => {
      const user = await funded(1_000);
      const payment = await body<Txn>(await pay(user.token, 800));
      const part = await app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount: 300 }, bearer(machine)));
      expect(part.status).to.equal(201);
      expect(await body<Txn & { refundOf: string }>(part)).to.deep.include({ type: 'REFUND', userId: user.userId, refundOf: payment.id });
      const over = await app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount: 501 }, bearer(machine)));
      expect(over.status).to.equal(422);
      expect(await reason(over)).to.equal('refund-exceeds-payment');
      const rest = await app.request(`/transactions/${payment.id}/refunds`, json('POST', {}, bearer(machine)));
      expect(rest.status).to.equal(201);
      expect((await body<Txn>(rest)).amount.amount).to.equal(500);
      expect(await balance(user.token)).to.equal(1_000);
      const again = await app.request(`/transactions/${payment.id}/refunds`, json('POST', {}, bearer(machine)));
      expect(await reason(again)).to.equal('refund-exceeds-payment');
    });

    it('when another tenant refunds, or the transaction is not a payment, then 404 transaction-not-found or 422 not-refundable', async () => {
      const user = await funded(1_000);
      const payment = await body<Txn>(await pay(user.token, 100));
      const otherMachine = await machineToken(app, await buildTenant(app.service));
      const foreign = await app.request(`/transactions/${payment.id}/refunds`, json('POST', {}, bearer(otherMachine)));
      expect(foreign.status).to.equal(404);
      expect(await reason(foreign)).to.equal('transaction-not-found');
      const topUps = await body<{ data: Txn[] }>(
        await app.request(`/transactions?userId=${user.userId}&type=TOP_UP`, { headers: bearer(machine) }),
      );
      const notPayment = await app.request(`/transactions/${topUps.data[0]!.id}/refunds`, json('POST', {}, bearer(machine)));
      expect(notPayment.status).to.equal(422);
      expect(await reason(notPayment)).to.equal('not-refundable');
      const asUser = await app.request(`/transactions/${payment.id}/refunds`, json('POST', {}, bearer(user.token)));
      expect(asUser.status).to.equal(403);
      expect(await balance(user.token)).to.equal(900);
    });
  });
});

describe('wallet transaction reads (/transactions)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let machine: string;
  // alice pays and sends to bob; carol only pays; dave is in another tenant.
  let alice: { token: string; userId: string };
  let bob: { token: string; userId: string };
  let carol: { token: string; userId: string };
  let dave: { token: string; userId: string };
  let otherMachine: string;
  const made: Record<string, Txn> = {};

  before(async () => {
    app = await startTestApp();
    tenant = await buildTenant(app.service);
    machine = await machineToken(app, tenant);
    const other = await buildTenant(app.service);
    otherMachine = await machineToken(app, other);
    [alice, bob, carol] = [await delegatedToken(app, machine), await delegatedToken(app, machine), await delegatedToken(app, machine)];
    dave = await delegatedToken(app, otherMachine);
    const post = async (name: string, path: string, token: string, payload: unknown) => {
      const res = await app.request(path, json('POST', payload, bearer(token)));
      if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      made[name] = await body<Txn>(res);
    };
    await post('aliceTop', `/users/${alice.userId}/top-ups`, machine, { amount: 1_000, reference: 'a' });
    await post('carolTop', `/users/${carol.userId}/top-ups`, machine, { amount: 1_000, reference: 'c' });
    await post('daveTop', `/users/${dave.userId}/top-ups`, otherMachine, { amount: 1_000, reference: 'd' });
    await post('alicePay', '/me/payments', alice.token, { amount: 100, reference: 'a-order' });
    await post('aliceToBob', '/me/transfers', alice.token, { toUserId: bob.userId, amount: 200 });
    await post('carolPay', '/me/payments', carol.token, { amount: 300, reference: 'c-order' });
    await post('davePay', '/me/payments', dave.token, { amount: 50, reference: 'd-order' });
    await post('carolRefund', `/transactions/${made.carolPay!.id}/refunds`, machine, { amount: 100 });
  });
  after(() => app.stop());

  const list = async (token: string, query = ''): Promise<{ data: Txn[]; nextCursor: string | null }> => {
    const res = await app.request(`/transactions${query}`, { headers: bearer(token) });
    expect(res.status, query).to.equal(200);
    return body(res);
  };
  const ids = (page: { data: Txn[] }) => page.data.map((t) => t.id);
  const summaryOf = async (token: string, query = '') => {
    const res = await app.request(`/transactions/summary${query}`, { headers: bearer(token) });
    expect(res.status, query).to.equal(200);
    return body<{ from: string | null; to: string | null; byType: Array<{ type: string; count: number; total: number }> }>(res);
  };

  it('when the tenant lists, then it sees its users’ transactions newest first and never another tenant’s', async () => {
    const all = ids(await list(machine, '?limit=100'));
    const mine = ['carolRefund', 'carolPay', 'aliceToBob', 'alicePay', 'carolTop', 'aliceTop'].map((n) => made[n]!.id);
    expect(all).to.deep.equal(mine);
    expect(ids(await list(otherMachine, '?limit=100'))).to.deep.equal([made.davePay!.id, made.daveTop!.id]);
    expect(ids(await list(machine, `?userId=${bob.userId}`))).to.deep.equal([made.aliceToBob!.id]);
    expect(ids(await list(machine, `?userId=${dave.userId}`))).to.deep.equal([]);
  });

  it('when a person lists with any parameters, then only their own activity comes back', async () => {
    const bobs = [made.aliceToBob!.id];
    for (const q of [
      '',
      `?userId=${carol.userId}`,
      `?userId=${dave.userId}`,
      '?type=PAYMENT,TOP_UP,TRANSFER,REFUND',
      `?userId=${alice.userId}&limit=100`,
      '?from=2000-01-01T00:00:00Z',
    ]) {
      const seen = ids(await list(bob.token, q));
      expect(
        seen.every((id) => bobs.includes(id)),
        q,
      ).to.equal(true);
    }
    expect(ids(await list(bob.token, `?userId=${carol.userId}`))).to.deep.equal(bobs);
    expect(ids(await list(carol.token, '?type=PAYMENT'))).to.deep.equal([made.carolPay!.id]);
    expect(ids(await list(alice.token))).to.deep.equal([made.aliceToBob!.id, made.alicePay!.id, made.aliceTop!.id]);
  });

  it('when a person or another tenant reads a transaction outside their scope, then 404 transaction-not-found', async () => {
    for (const [token, id] of [
      [bob.token, made.carolPay!.id],
      [bob.token, made.alicePay!.id],
      [alice.token, made.davePay!.id],
      [otherMachine, made.alicePay!.id],
      [machine, made.davePay!.id],
      [machine, `txn_${unique()}`],
    ] as const) {
      const res = await app.request(`/transactions/${id}`, { headers: bearer(token) });
      expect(res.status).to.equal(404);
      expect(await reason(res)).to.equal('transaction-not-found');
    }
    const own = await app.request(`/transactions/${made.aliceToBob!.id}`, { headers: bearer(bob.token) });
    expect(own.status).to.equal(200);
    expect((await body<Txn>(own)).initiatedBy).to.deep.include({ kind: 'user', userId: alice.userId, amr: ['tenant_delegated'] });
  });

  it('when a summary is asked, then it counts exactly what the caller’s list shows, whatever the parameters', async () => {
    const bobSummary = await summaryOf(bob.token, `?userId=${carol.userId}`);
    expect(bobSummary.byType).to.deep.equal([
      { type: 'TOP_UP', count: 0, total: 0 },
      { type: 'PAYMENT', count: 0, total: 0 },
      { type: 'TRANSFER', count: 1, total: 200 },
      { type: 'REFUND', count: 0, total: 0 },
    ]);
    const tenantSummary = await summaryOf(machine);
    expect(tenantSummary.byType).to.deep.equal([
      { type: 'TOP_UP', count: 2, total: 2_000 },
      { type: 'PAYMENT', count: 2, total: 400 },
      { type: 'TRANSFER', count: 1, total: 200 },
      { type: 'REFUND', count: 1, total: 100 },
    ]);
    expect((await summaryOf(machine, `?userId=${carol.userId}`)).byType.map((r) => r.count)).to.deep.equal([1, 1, 0, 1]);
    const from = made.alicePay!.createdAt;
    const to = made.carolRefund!.createdAt;
    const windowed = await summaryOf(machine, `?from=${from}&to=${to}`);
    expect(windowed).to.include({ from, to });
    const listed = (await list(machine, `?from=${from}&to=${to}&limit=100`)).data;
    expect(windowed.byType.reduce((s, r) => s + r.count, 0)).to.equal(listed.length);
    expect((await summaryOf(otherMachine)).byType[1]).to.deep.equal({ type: 'PAYMENT', count: 1, total: 50 });
  });

  it('when the list is paged, then the cursor walks it with no gap or repeat; a bad cursor, type or time is 400', async () => {
    const first = await list(machine, '?limit=4');
    expect(first.data).to.have.length(4);
    expect(first.nextCursor).to.be.a('string');
    const second = await list(machine, `?limit=4&cursor=${first.nextCursor}`);
    expect(second.nextCursor).to.equal(null);
    expect([...ids(first), ...ids(second)]).to.deep.equal(ids(await list(machine, '?limit=100')));
    for (const q of [
      '?cursor=nonsense',
      '?type=BOGUS',
      '?from=yesterday',
      '?limit=0',
      '?limit=101',
      '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const res = await app.request(`/transactions${q}`, { headers: bearer(machine) });
      expect(res.status, q).to.equal(400);
      expect(await reason(res)).to.equal('invalid-request');
    }
    const forged = await app.request('/transactions?cursor=nonsense', { headers: bearer(machine) });
    expect(await forged.json()).to.deep.include({
      message: 'The cursor is not valid.',
      errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
    });
  });

  it('when no token or a bad one is sent, then 401 invalid-token', async () => {
    for (const path of ['/transactions', '/transactions/summary', `/transactions/${made.alicePay!.id}`]) {
      const res = await app.request(path, { headers: { authorization: 'Bearer nope' } });
      expect(res.status).to.equal(401);
      expect(await reason(res)).to.equal('invalid-token');
    }
  });
});

describe('wallet money with in-memory persistence', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ memory: true });
  });
  after(() => app.stop());

  it('when the service runs in memory, then top-up, payment, refund and the scoped reads behave as on PostgreSQL', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const a = await delegatedToken(app, machine);
    const b = await delegatedToken(app, machine);
    expect(
      (await app.request(`/users/${a.userId}/top-ups`, json('POST', { amount: 500, reference: 'r' }, bearer(machine)))).status,
    ).to.equal(201);
    const short = await app.request('/me/payments', json('POST', { amount: 501, reference: 'o' }, bearer(a.token)));
    expect(await reason(short)).to.equal('insufficient-funds');
    const payment = await body<Txn>(await app.request('/me/payments', json('POST', { amount: 200, reference: 'o' }, bearer(a.token))));
    expect((await app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount: 50 }, bearer(machine)))).status).to.equal(201);
    const balance = await body<{ available: unknown; held: unknown; ledger: unknown }>(
      await app.request('/me/balance', { headers: bearer(a.token) }),
    );
    expect(balance).to.deep.equal({
      available: { amount: 350, currency: 'THB' },
      held: { amount: 0, currency: 'THB' },
      ledger: { amount: 350, currency: 'THB' },
      livemode: true,
    });
    expect((await app.request(`/transactions/${payment.id}`, { headers: bearer(b.token) })).status).to.equal(404);
    const bList = await body<{ data: unknown[] }>(await app.request(`/transactions?userId=${a.userId}`, { headers: bearer(b.token) }));
    expect(bList.data).to.deep.equal([]);
  });
});
