import { expect } from 'chai';
import { listenAs } from 'partner-booking-wallet/testing';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { eventually, unique } from '../support/builders.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { bearer, buildPasswordUser, buildTenant, delegatedToken, machineToken, type TestTenant } from '../support/wallet-builders.js';

type Body = Record<string, any>;

const fund = (app: TestApp, token: string, userId: string, amount: unknown): Promise<Response> =>
  app.request(`/test-helpers/users/${userId}/fund`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `fund-${unique()}` },
    body: JSON.stringify({ amount }),
  });

const call = async (app: TestApp, path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
  const res = await app.request(path, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Body) };
};
const post = (app: TestApp, path: string, token: string, body: unknown = {}) =>
  call(app, path, json('POST', body, { ...bearer(token), 'idempotency-key': `k-${unique()}` }));
const get = (app: TestApp, path: string, token: string) => call(app, path, { headers: bearer(token) });
const expire = (app: TestApp, token: string, authorizationId: string) =>
  post(app, `/test-helpers/authorizations/${authorizationId}/expire`, token);

/** A tenant's machine token and one of its users, topped up with `amount`, holding `held` in a PENDING authorization. */
async function withAuthorization(app: TestApp, tenant: TestTenant, amount: number, held: number) {
  const machine = await machineToken(app, tenant);
  const user = await delegatedToken(app, machine);
  const top = await post(app, `/users/${user.userId}/top-ups`, machine, { amount, reference: `top-${unique()}` });
  expect(top.status, JSON.stringify(top.body)).to.equal(201);
  const auth = await post(app, '/me/authorizations', user.token, { amount: held, reference: `ride-${unique()}` });
  expect(auth.status, JSON.stringify(auth.body)).to.equal(201);
  return { machine, user, top: top.body, auth: auth.body };
}

for (const mode of ['database', 'memory'] as const) {
  describe(`the wallet sandbox: a test tenant’s test helpers (${mode})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ memory: mode === 'memory' });
    });
    after(async () => {
      await app?.stop();
    });

    it('when a test tenant funds its user, then the balance and the history show a top-up of that amount', async () => {
      const tenant = await buildTenant(app.service, { test: true });
      expect(tenant.clientId).to.match(/^cli_test_/);
      const machine = await machineToken(app, tenant);
      const { userId } = await buildPasswordUser(app, machine);
      const res = await fund(app, machine, userId, 12_345);
      expect(res.status, await res.clone().text()).to.equal(201);
      const txn = (await res.json()) as { id: string; type: string; amount: { amount: number } };
      expect(txn).to.deep.include({ type: 'TOP_UP' });
      expect(txn.amount.amount).to.equal(12_345);
      const balance = await app.request(`/users/${userId}/balance`, { headers: bearer(machine) });
      expect(((await balance.json()) as { available: { amount: number } }).available.amount).to.equal(12_345);
      const got = await app.request(`/transactions/${txn.id}`, { headers: bearer(machine) });
      expect(got.status).to.equal(200);
    });

    it('when a live tenant calls the test helper, then 404 not-found and nothing is credited', async () => {
      const tenant = await buildTenant(app.service);
      const machine = await machineToken(app, tenant);
      const { userId } = await buildPasswordUser(app, machine);
      const res = await fund(app, machine, userId, 1_000);
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { reason: string }).reason).to.equal('not-found');
      // Nothing of the helper shows to a live caller: a bad amount, or a user token, is 404 as well.
      for (const amount of ['x', 0]) {
        const bad = await fund(app, machine, userId, amount);
        expect([bad.status, ((await bad.json()) as { reason: string }).reason], String(amount)).to.deep.equal([404, 'not-found']);
      }
      const person = await delegatedToken(app, machine);
      const asUser = await fund(app, person.token, person.userId, 1_000);
      expect([asUser.status, ((await asUser.json()) as { reason: string }).reason]).to.deep.equal([404, 'not-found']);
      const balance = await app.request(`/users/${userId}/balance`, { headers: bearer(machine) });
      expect(((await balance.json()) as { available: { amount: number } }).available.amount).to.equal(0);
    });

    it('when a test tenant names another tenant’s user or a bad amount, then 404 user-not-found or 400, nothing credited', async () => {
      const other = await buildTenant(app.service, { test: true });
      const otherMachine = await machineToken(app, other);
      const { userId } = await buildPasswordUser(app, otherMachine);
      const tenant = await buildTenant(app.service, { test: true });
      const machine = await machineToken(app, tenant);
      const res = await fund(app, machine, userId, 1_000);
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { reason: string }).reason).to.equal('user-not-found');
      for (const amount of [0, -5, 1.5, 'ten']) expect((await fund(app, otherMachine, userId, amount)).status).to.equal(400);
      const balance = await app.request(`/users/${userId}/balance`, { headers: bearer(otherMachine) });
      expect(((await balance.json()) as { available: { amount: number } }).available.amount).to.equal(0);
    });

    describe('POST /test-helpers/authorizations/{id}/expire', () => {
      it('when a test tenant expires a pending authorization, then it reads EXPIRED, nothing is held, the event is recorded once, and a second expire is 409', async () => {
        const tenant = await buildTenant(app.service, { test: true });
        const seen = await listenAs(
          { webhooks: app.service.ports.webhooks, log: app.service.ports.webhooks as never },
          { kind: 'tenant', id: tenant.tenantId },
          ['authorization.expired'],
        );
        const { machine, user, auth } = await withAuthorization(app, tenant, 5_000, 1_200);
        const before = await get(app, `/users/${user.userId}/balance`, machine);
        expect(before.body.held.amount).to.equal(1_200);
        const r = await expire(app, machine, auth.id);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        expect(r.body).to.include({ id: auth.id, status: 'EXPIRED' });
        expect(r.body.remaining.amount).to.equal(0);
        expect(r.body.resolvedAt).to.equal(r.body.expiresAt);
        expect(Date.parse(r.body.expiresAt)).to.be.below(Date.parse(auth.expiresAt));
        const got = await get(app, `/authorizations/${auth.id}`, machine);
        expect(got.status).to.equal(200);
        expect(got.body).to.deep.equal(r.body);
        const after = await get(app, `/users/${user.userId}/balance`, machine);
        expect([after.body.ledger.amount, after.body.held.amount, after.body.available.amount]).to.deep.equal([5_000, 0, 5_000]);
        expect((await seen()).filter((e) => e.id === auth.id)).to.deep.equal([{ type: 'authorization.expired', id: auth.id }]);
        const again = await expire(app, machine, auth.id);
        expect(again.status).to.equal(409);
        expect(again.body.reason).to.equal('authorization-not-pending');
        const capture = await post(app, `/authorizations/${auth.id}/capture`, machine, {});
        expect(capture.status).to.equal(409);
        expect(capture.body.reason).to.equal('authorization-not-pending');
        // The expiry job finds nothing more to record for it.
        await app.service.core.wallet.expireAuthorizations.execute();
        expect((await seen()).filter((e) => e.id === auth.id)).to.have.length(1);
      });

      it('when the same Idempotency-Key is sent again, then the first answer is replayed and the lapse is recorded once', async () => {
        const tenant = await buildTenant(app.service, { test: true });
        const seen = await listenAs(
          { webhooks: app.service.ports.webhooks, log: app.service.ports.webhooks as never },
          { kind: 'tenant', id: tenant.tenantId },
          ['authorization.expired'],
        );
        const { machine, auth } = await withAuthorization(app, tenant, 2_000, 1_000);
        const send = () =>
          app.request(
            `/test-helpers/authorizations/${auth.id}/expire`,
            json('POST', {}, { ...bearer(machine), 'idempotency-key': `expire-${auth.id}` }),
          );
        const first = await send();
        const again = await send();
        expect([first.status, again.status]).to.deep.equal([200, 200]);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(await again.json()).to.deep.equal(await first.json());
        expect((await seen()).filter((e) => e.id === auth.id)).to.have.length(1);
      });

      it('when the authorization was captured or voided, then 409 authorization-not-pending and it stays as it was', async () => {
        const tenant = await buildTenant(app.service, { test: true });
        const { machine, user, auth } = await withAuthorization(app, tenant, 5_000, 1_000);
        expect((await post(app, `/authorizations/${auth.id}/void`, machine)).status).to.equal(200);
        const voided = await expire(app, machine, auth.id);
        expect(voided.status).to.equal(409);
        expect(voided.body.reason).to.equal('authorization-not-pending');
        expect((await get(app, `/authorizations/${auth.id}`, machine)).body.status).to.equal('VOIDED');
        const other = await post(app, '/me/authorizations', user.token, { amount: 500, reference: `ride-${unique()}` });
        expect((await post(app, `/authorizations/${other.body.id}/capture`, machine, {})).status).to.equal(200);
        const captured = await expire(app, machine, other.body.id);
        expect(captured.status).to.equal(409);
        expect(captured.body.reason).to.equal('authorization-not-pending');
      });

      it('when a test tenant names an unknown or another tenant’s authorization, then 404 authorization-not-found and it stays pending', async () => {
        const owner = await buildTenant(app.service, { test: true });
        const { machine: ownerMachine, auth } = await withAuthorization(app, owner, 2_000, 1_000);
        const stranger = await machineToken(app, await buildTenant(app.service, { test: true }));
        const theirs = await expire(app, stranger, auth.id);
        expect(theirs.status).to.equal(404);
        expect(theirs.body.reason).to.equal('authorization-not-found');
        const unknown = await expire(app, stranger, `auth_${unique()}`);
        expect(unknown.status).to.equal(404);
        expect(unknown.body.reason).to.equal('authorization-not-found');
        expect((await get(app, `/authorizations/${auth.id}`, ownerMachine)).body.status).to.equal('PENDING');
      });

      it('when a live tenant calls it, then 404 not-found and the authorization stays pending and held', async () => {
        const tenant = await buildTenant(app.service);
        const { machine, user, auth } = await withAuthorization(app, tenant, 2_000, 1_000);
        const r = await expire(app, machine, auth.id);
        expect(r.status).to.equal(404);
        expect(r.body.reason).to.equal('not-found');
        expect((await get(app, `/authorizations/${auth.id}`, machine)).body.status).to.equal('PENDING');
        expect((await get(app, `/users/${user.userId}/balance`, machine)).body.held.amount).to.equal(1_000);
      });

      it('when a user token calls it, then 403 machine-token-required', async () => {
        const tenant = await buildTenant(app.service, { test: true });
        const { user, auth } = await withAuthorization(app, tenant, 2_000, 1_000);
        const r = await expire(app, user.token, auth.id);
        expect(r.status).to.equal(403);
        expect(r.body.reason).to.equal('machine-token-required');
      });
    });

    describe('livemode on the wallet objects a tenant is answered', () => {
      for (const [kind, test, livemode] of [
        ['test', true, false],
        ['live', false, true],
      ] as const) {
        it(`when a ${kind} tenant reads and writes its users, transactions, authorizations and balances, then each says livemode ${livemode}`, async () => {
          const tenant = await buildTenant(app.service, { test });
          const { machine, user, top, auth } = await withAuthorization(app, tenant, 5_000, 1_000);
          const seen: Array<[string, unknown]> = [];
          const see = (what: string, body: Body) => seen.push([what, body.livemode]);
          see('POST /users/{id}/top-ups', top);
          see('POST /me/authorizations', auth);
          see('GET /transactions/{id}', (await get(app, `/transactions/${top.id}`, machine)).body);
          see('GET /transactions/{id} (user)', (await get(app, `/transactions/${top.id}`, user.token)).body);
          for (const t of (await get(app, `/transactions?userId=${user.userId}`, machine)).body.data) see('GET /transactions', t);
          see('GET /authorizations/{id}', (await get(app, `/authorizations/${auth.id}`, machine)).body);
          for (const a of (await get(app, '/authorizations', user.token)).body.data) see('GET /authorizations', a);
          const paid = await post(app, '/me/payments', user.token, { amount: 500, reference: `p-${unique()}` });
          expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
          see('POST /me/payments', paid.body);
          const captured = await post(app, `/authorizations/${auth.id}/capture`, machine, { amount: 400 });
          expect(captured.status, JSON.stringify(captured.body)).to.equal(200);
          see('POST /authorizations/{id}/capture', captured.body);
          see('POST /authorizations/{id}/capture: its payment', captured.body.capture);
          see('GET /users/{id}', (await get(app, `/users/${user.userId}`, machine)).body);
          for (const u of (await get(app, '/users', machine)).body.data) see('GET /users', u);
          see('GET /users/{id}/balance', (await get(app, `/users/${user.userId}/balance`, machine)).body);
          see('GET /me/balance', (await get(app, '/me/balance', user.token)).body);
          see('GET /me', (await get(app, '/me', user.token)).body);
          const period = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
          see('GET /me/statement', (await get(app, `/me/statement?${period}`, user.token)).body);
          see('GET /users/{id}/statement', (await get(app, `/users/${user.userId}/statement?${period}`, machine)).body);
          const made = await post(app, '/users', machine, { externalUserRef: `ref-${unique()}` });
          expect(made.status, JSON.stringify(made.body)).to.equal(201);
          see('POST /users', made.body);
          expect(seen.filter(([, mode]) => mode !== livemode)).to.deep.equal([]);
          expect(seen.length).to.be.at.least(18);
        });
      }
    });
  });
}

describe('the wallet sandbox: livemode on a tenant’s webhook endpoints', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_POLL_MS: '100' } });
  });
  after(async () => {
    await app?.stop();
  });

  for (const [kind, test, livemode] of [
    ['test', true, false],
    ['live', false, true],
  ] as const) {
    it(`when a ${kind} tenant registers, reads and lists an endpoint, then each answer says livemode ${livemode}`, async () => {
      const machine = await machineToken(app, await buildTenant(app.service, { test }));
      const made = await post(app, '/webhook-endpoints', machine, { url: 'http://127.0.0.1:9/hook', events: ['transaction.created'] });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      expect(made.body.livemode).to.equal(livemode);
      expect(made.body.secret).to.match(/^whsec_/);
      const got = await get(app, `/webhook-endpoints/${made.body.id}`, machine);
      expect(got.body).to.include({ id: made.body.id, livemode });
      const listed = await get(app, '/webhook-endpoints', machine);
      expect(listed.body.data.map((e: Body) => [e.id, e.livemode])).to.deep.equal([[made.body.id, livemode]]);
    });

    it(`when a ${kind} tenant’s endpoint gets an event, then its body, its delivery and the feed say livemode ${livemode}`, async () => {
      const receiver = await startReceiver();
      try {
        const machine = await machineToken(app, await buildTenant(app.service, { test }));
        const made = await post(app, '/webhook-endpoints', machine, { url: receiver.url, events: ['transaction.created'] });
        expect(made.status, JSON.stringify(made.body)).to.equal(201);
        const user = await delegatedToken(app, machine);
        const top = await post(app, `/users/${user.userId}/top-ups`, machine, { amount: 700, reference: `top-${unique()}` });
        expect(top.status, JSON.stringify(top.body)).to.equal(201);
        await eventually(async () => receiver.received.length >= 1, 10_000, 'the delivery');
        const body = JSON.parse(receiver.received[0]!.body) as Body;
        expect([body.type, body.data.id, body.livemode]).to.deep.equal(['transaction.created', top.body.id, livemode]);
        const deliveries = await get(app, `/webhook-endpoints/${made.body.id}/deliveries`, machine);
        expect(deliveries.body.data.map((d: Body) => d.livemode)).to.deep.equal([livemode]);
        const feed = await get(app, '/events?type=transaction.created', machine);
        expect(feed.body.data.map((e: Body) => [e.data.id, e.livemode])).to.deep.equal([[top.body.id, livemode]]);
      } finally {
        await receiver.close();
      }
    });
  }
});
