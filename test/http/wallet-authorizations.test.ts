import { expect } from 'chai';
import { listenAs, type EventSeen } from 'partner-booking-wallet/testing';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';
import { bearer, buildTenant, delegatedToken, machineToken, type TestTenant } from '../support/wallet-builders.js';

type Body = Record<string, any>;

/** Wallet authorizations, balances at an instant and statements over HTTP (CONTRACT §6.6). */
for (const mode of ['database', 'memory'] as const) {
  describe(`wallet authorizations over HTTP (${mode})`, () => {
    let app: TestApp;
    let tenant: TestTenant;
    let machine: string;
    const clock = new ManualClock();

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body; headers: Headers }> => {
      const res = await app.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Body), headers: res.headers };
    };
    const post = (path: string, token: string, body: unknown = {}, headers: Record<string, string> = {}) =>
      call(path, json('POST', body, { ...bearer(token), ...headers }));
    const get = (path: string, token: string) => call(path, { headers: bearer(token) });
    const funded = async (amount: number) => {
      const user = await delegatedToken(app, machine);
      const r = await post(`/users/${user.userId}/top-ups`, machine, { amount, reference: `top-${unique()}` });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return user;
    };
    const authorize = (token: string, amount: number, extra: Body = {}, headers: Record<string, string> = {}) =>
      post('/me/authorizations', token, { amount, reference: `ride-${unique()}`, ...extra }, headers);
    const balance = async (token: string) =>
      (await get('/me/balance', token)).body as Record<'available' | 'held' | 'ledger', { amount: number }>;
    const events = async (types: EventSeen['type'][]) =>
      listenAs(
        { webhooks: app.service.ports.webhooks, log: app.service.ports.webhooks as never },
        { kind: 'tenant', id: tenant.tenantId },
        types,
      );

    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
      tenant = await buildTenant(app.service);
      machine = await machineToken(app, tenant);
    });
    after(async () => {
      await app.stop();
    });
    afterEach(() => clock.reset());

    it('when a person authorizes an amount, then 201 PENDING, and it is held from their available balance at once', async () => {
      const user = await funded(5_000);
      const r = await authorize(user.token, 1_200, { expiresInSeconds: 3_600 });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body).to.include({ status: 'PENDING', userId: user.userId });
      expect(r.body.id).to.match(/^auth_/);
      expect(r.body.amount).to.deep.equal({ amount: 1_200, currency: 'THB' });
      expect(r.body.captured).to.deep.equal({ amount: 0, currency: 'THB' });
      expect(r.body.remaining).to.deep.equal({ amount: 1_200, currency: 'THB' });
      expect(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)).to.equal(3_600_000);
      expect(r.headers.get('location')).to.match(new RegExp(`/authorizations/${r.body.id}$`));
      const b = await balance(user.token);
      expect([b.ledger.amount, b.held.amount, b.available.amount]).to.deep.equal([5_000, 1_200, 3_800]);
      // What is held cannot be spent.
      const pay = await post('/me/payments', user.token, { amount: 4_000, reference: `p-${unique()}` });
      expect(pay.status).to.equal(422);
      expect(pay.body.reason).to.equal('insufficient-funds');
    });

    it('when no lifetime is given, then the authorization holds for 7 days; beyond 30 days is 400 invalid-request', async () => {
      const user = await funded(1_000);
      const r = await authorize(user.token, 100);
      expect(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)).to.equal(604_800_000);
      const tooLong = await authorize(user.token, 100, { expiresInSeconds: 30 * 86_400 + 1 });
      expect(tooLong.status).to.equal(400);
      expect(tooLong.body.reason).to.equal('invalid-request');
    });

    it('when the amount is more than the available balance, then 422 insufficient-funds and nothing is held', async () => {
      const user = await funded(1_000);
      expect((await authorize(user.token, 700)).status).to.equal(201);
      const r = await authorize(user.token, 301);
      expect(r.status).to.equal(422);
      expect(r.body.reason).to.equal('insufficient-funds');
      expect((await balance(user.token)).held.amount).to.equal(700);
    });

    it('when the backend captures in parts, then each capture is a PAYMENT naming the authorization, and a final one resolves it', async () => {
      const user = await funded(10_000);
      const auth = (await authorize(user.token, 3_000)).body;
      const first = await post(`/authorizations/${auth.id}/capture`, machine, { amount: 1_000 });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.include({ status: 'PENDING' });
      expect(first.body.captured.amount).to.equal(1_000);
      expect(first.body.remaining.amount).to.equal(2_000);
      expect(first.body.capture).to.include({ type: 'PAYMENT', authorizationId: auth.id, userId: user.userId });
      const txn = await get(`/transactions/${first.body.capture.id}`, user.token);
      expect(txn.body).to.include({ type: 'PAYMENT', authorizationId: auth.id });
      expect((await balance(user.token)).ledger.amount).to.equal(9_000);
      expect((await balance(user.token)).held.amount).to.equal(2_000);

      const tooMuch = await post(`/authorizations/${auth.id}/capture`, machine, { amount: 2_001 });
      expect(tooMuch.status).to.equal(422);
      expect(tooMuch.body.reason).to.equal('exceeds-authorization');

      const last = await post(`/authorizations/${auth.id}/capture`, machine, { amount: 500, final: true });
      expect(last.body).to.include({ status: 'CAPTURED' });
      expect(last.body.captured.amount).to.equal(1_500);
      const b = await balance(user.token);
      expect([b.ledger.amount, b.held.amount, b.available.amount]).to.deep.equal([8_500, 0, 8_500]);
      const again = await post(`/authorizations/${auth.id}/capture`, machine, { amount: 1 });
      expect(again.status).to.equal(409);
      expect(again.body.reason).to.equal('authorization-not-pending');
    });

    it('when a capture names no amount, then it takes everything that remains', async () => {
      const user = await funded(2_000);
      const auth = (await authorize(user.token, 1_500)).body;
      const r = await post(`/authorizations/${auth.id}/capture`, machine, {});
      expect(r.body).to.include({ status: 'CAPTURED' });
      expect(r.body.capture.amount.amount).to.equal(1_500);
    });

    it('when a user token tries to capture, then 403: only the tenant’s backend captures', async () => {
      const user = await funded(2_000);
      const auth = (await authorize(user.token, 500)).body;
      const r = await post(`/authorizations/${auth.id}/capture`, user.token, {});
      expect(r.status).to.equal(403);
      expect(r.body.reason).to.equal('machine-token-required');
    });

    it('when the person voids, then VOIDED and the money is available again; a second void answers it unchanged; a capture after is 409', async () => {
      const user = await funded(2_000);
      const auth = (await authorize(user.token, 800)).body;
      const malformed = await call(`/authorizations/${auth.id}/void`, {
        method: 'POST',
        headers: { ...bearer(user.token), 'content-type': 'application/json' },
        body: '{"a":',
      });
      expect([malformed.status, malformed.body.reason]).to.deep.equal([400, 'malformed-json']);
      expect((await get(`/authorizations/${auth.id}`, user.token)).body.status).to.equal('PENDING');
      const voided = await post(`/authorizations/${auth.id}/void`, user.token);
      expect(voided.status).to.equal(200);
      expect(voided.body).to.include({ status: 'VOIDED' });
      expect((await balance(user.token)).available.amount).to.equal(2_000);
      const again = await post(`/authorizations/${auth.id}/void`, machine);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(voided.body);
      const capture = await post(`/authorizations/${auth.id}/capture`, machine, {});
      expect(capture.status).to.equal(409);
      expect(capture.body.reason).to.equal('authorization-not-pending');
    });

    it('when another person reads, voids or lists an authorization, then 404 and never theirs; the backend sees the whole tenant', async () => {
      const owner = await funded(2_000);
      const other = await funded(2_000);
      const auth = (await authorize(owner.token, 300)).body;
      const mine = (await authorize(other.token, 200)).body;
      expect((await get(`/authorizations/${auth.id}`, other.token)).status).to.equal(404);
      const v = await post(`/authorizations/${auth.id}/void`, other.token);
      expect(v.status).to.equal(404);
      expect(v.body.reason).to.equal('authorization-not-found');
      const listed = await get(`/authorizations?userId=${owner.userId}&limit=100`, other.token);
      expect(listed.body.data.map((a: Body) => a.id)).to.deep.equal([mine.id]);
      const tenantWide = await get(`/authorizations?limit=100`, machine);
      expect(tenantWide.body.data.map((a: Body) => a.id)).to.include.members([auth.id, mine.id]);
      const narrowed = await get(`/authorizations?userId=${owner.userId}`, machine);
      expect(narrowed.body.data.map((a: Body) => a.id)).to.deep.equal([auth.id]);
      expect((await get(`/authorizations/${auth.id}`, machine)).body).to.include({ id: auth.id, status: 'PENDING' });
    });

    it('when a person’s authorizations are paged with the cursors the answers hand out, then each comes once, newest first', async () => {
      const user = await funded(3_000);
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.unshift((await authorize(user.token, 100)).body.id as string);
      for (const token of [user.token, machine]) {
        const seen: string[] = [];
        let path = `/authorizations?userId=${user.userId}&limit=1`;
        for (let guard = 0; guard < 5; guard++) {
          const page = await get(path, token);
          expect(page.status, JSON.stringify(page.body)).to.equal(200);
          seen.push(...page.body.data.map((a: Body) => a.id as string));
          if (page.body.nextCursor === null) break;
          path = `/authorizations?userId=${user.userId}&limit=1&cursor=${encodeURIComponent(page.body.nextCursor as string)}`;
        }
        expect(seen).to.deep.equal(made);
      }
    });
    it('when another tenant’s backend asks for an authorization, then 404', async () => {
      const user = await funded(1_000);
      const auth = (await authorize(user.token, 100)).body;
      const stranger = await machineToken(app, await buildTenant(app.service));
      expect((await get(`/authorizations/${auth.id}`, stranger)).status).to.equal(404);
      expect((await post(`/authorizations/${auth.id}/capture`, stranger, {})).status).to.equal(404);
      expect((await get(`/authorizations`, stranger)).body.data).to.deep.equal([]);
    });

    it('when the deadline passes, then every read says EXPIRED at once, the money is free, a capture is 409, and the job records it once', async () => {
      const seen = await events(['authorization.expired']);
      const user = await funded(1_000);
      const auth = (await authorize(user.token, 600, { expiresInSeconds: 60 })).body;
      clock.advance(61_000);
      expect((await get(`/authorizations/${auth.id}`, machine)).body).to.include({ status: 'EXPIRED', resolvedAt: auth.expiresAt });
      const b = await balance(user.token);
      expect([b.held.amount, b.available.amount]).to.deep.equal([0, 1_000]);
      const expiredOnes = await get(`/authorizations?userId=${user.userId}&status=EXPIRED`, machine);
      expect(expiredOnes.body.data.map((a: Body) => a.id)).to.deep.equal([auth.id]);
      const capture = await post(`/authorizations/${auth.id}/capture`, machine, {});
      expect(capture.status).to.equal(409);
      expect(capture.body.reason).to.equal('authorization-not-pending');
      expect(await seen()).to.deep.equal([]);
      // The job records the lapse past its grace, once, whoever runs it again.
      clock.advance(10_000);
      expect(await app.service.core.wallet.expireAuthorizations.execute()).to.be.at.least(1);
      await app.service.core.wallet.expireAuthorizations.execute();
      expect((await seen()).filter((e) => e.id === auth.id)).to.deep.equal([{ type: 'authorization.expired', id: auth.id }]);
    });

    it('when an authorization is made, captured and voided, then its tenant is told each change', async () => {
      const seen = await events(['authorization.created', 'authorization.captured', 'authorization.voided']);
      const user = await funded(5_000);
      const a = (await authorize(user.token, 1_000)).body;
      const b = (await authorize(user.token, 1_000)).body;
      await post(`/authorizations/${a.id}/capture`, machine, { amount: 400 });
      await post(`/authorizations/${b.id}/void`, machine);
      await post(`/authorizations/${b.id}/void`, machine);
      expect((await seen()).filter((e) => e.id === a.id || e.id === b.id)).to.deep.equal([
        { type: 'authorization.created', id: a.id },
        { type: 'authorization.created', id: b.id },
        { type: 'authorization.captured', id: a.id },
        { type: 'authorization.voided', id: b.id },
      ]);
    });

    it('when an authorization is retried with its Idempotency-Key, then the first answer comes back and the money is held once', async () => {
      const user = await funded(1_000);
      const key = { 'Idempotency-Key': `k-${unique()}` };
      const body = { amount: 400, reference: 'ride-once' };
      const first = await post('/me/authorizations', user.token, body, key);
      const second = await post('/me/authorizations', user.token, body, key);
      expect(second.status).to.equal(201);
      expect(second.body.id).to.equal(first.body.id);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect((await balance(user.token)).held.amount).to.equal(400);
    });

    it('when the balance is asked at an instant, then it is the balance as it stood then, for the person and for the backend', async () => {
      const user = await funded(3_000);
      const afterTopUp = new Date(Date.now() + 1).toISOString();
      await new Promise((r) => setTimeout(r, 5));
      await post('/me/payments', user.token, { amount: 1_000, reference: `p-${unique()}` });
      const auth = (await authorize(user.token, 500)).body;
      const beforeEverything = new Date(Date.now() - 3_600_000).toISOString();
      const then = await get(`/me/balance?at=${encodeURIComponent(afterTopUp)}`, user.token);
      expect(then.status, JSON.stringify(then.body)).to.equal(200);
      expect([then.body.ledger.amount, then.body.held.amount, then.body.available.amount]).to.deep.equal([3_000, 0, 3_000]);
      const now = await get(`/me/balance?at=${encodeURIComponent(new Date(Date.now() + 1).toISOString())}`, user.token);
      expect([now.body.ledger.amount, now.body.held.amount, now.body.available.amount]).to.deep.equal([2_000, 500, 1_500]);
      const backend = await get(`/users/${user.userId}/balance?at=${encodeURIComponent(beforeEverything)}`, machine);
      expect([backend.body.ledger.amount, backend.body.available.amount]).to.deep.equal([0, 0]);
      const current = await get(`/users/${user.userId}/balance`, machine);
      expect(current.body.held.amount).to.equal(500);
      expect(auth.status).to.equal('PENDING');
      expect((await get(`/me/balance?at=yesterday`, user.token)).status).to.equal(400);
      const stranger = await machineToken(app, await buildTenant(app.service));
      expect((await get(`/users/${user.userId}/balance`, stranger)).status).to.equal(404);
    });

    it('when a statement is asked, then opening plus the lines is closing, in JSON and in CSV with a header row', async () => {
      const user = await funded(4_000);
      const from = new Date(Date.now() + 1).toISOString();
      await new Promise((r) => setTimeout(r, 5));
      await post('/me/payments', user.token, { amount: 700, reference: 'coffee' });
      const auth = (await authorize(user.token, 900)).body;
      await post(`/authorizations/${auth.id}/capture`, machine, { amount: 900 });
      const to = new Date(Date.now() + 1_000).toISOString();
      const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
      const s = await get(`/me/statement?${q}`, user.token);
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      // Money as everywhere: { amount, currency }.
      const thb = (amount: number) => ({ amount, currency: 'THB' });
      expect(s.body).to.deep.include({ currency: 'THB', opening: thb(4_000), closing: thb(2_400) });
      expect(s.body.lines.map((l: Body) => [l.type, l.amount, l.balance])).to.deep.equal([
        ['PAYMENT', thb(-700), thb(3_300)],
        ['PAYMENT', thb(-900), thb(2_400)],
      ]);
      expect(s.body.opening.amount + s.body.lines.reduce((t: number, l: Body) => t + l.amount.amount, 0)).to.equal(s.body.closing.amount);
      const csv = await app.request(`/users/${user.userId}/statement?${q}`, { headers: { ...bearer(machine), accept: 'text/csv' } });
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const rows = (await csv.text()).trim().split('\n');
      expect(rows[0]).to.equal('at,type,transactionId,reference,amount,balance,currency');
      expect(rows.slice(1).map((r) => r.split(',').slice(1, 2).concat(r.split(',').slice(3)))).to.deep.equal([
        ['PAYMENT', 'coffee', '-700', '3300', 'THB'],
        ['PAYMENT', auth.reference, '-900', '2400', 'THB'],
      ]);
      const wide = await get(`/me/statement?from=2025-01-01T00:00:00Z&to=2026-12-31T00:00:00Z`, user.token);
      expect(wide.status).to.equal(400);
      const other = await machineToken(app, await buildTenant(app.service));
      expect((await get(`/users/${user.userId}/statement`, other)).status).to.equal(404);
    });

    if (mode === 'database') {
      it('when 10 captures of one authorization race, then exactly one captures and the others are 409', async () => {
        const user = await funded(5_000);
        const auth = (await authorize(user.token, 2_000)).body;
        const all = await Promise.all(
          Array.from({ length: 10 }, () => post(`/authorizations/${auth.id}/capture`, machine, { amount: 2_000 })),
        );
        expect(all.filter((r) => r.status === 200)).to.have.length(1);
        expect(all.filter((r) => r.status === 409 && r.body.reason === 'authorization-not-pending')).to.have.length(9);
        expect((await balance(user.token)).ledger.amount).to.equal(3_000);
      });

      it('when 6 authorizations of 1,000 race on a balance of 5,000, then exactly 5 are held and the available balance is 0', async () => {
        const user = await funded(5_000);
        const all = await Promise.all(Array.from({ length: 6 }, () => authorize(user.token, 1_000)));
        expect(all.filter((r) => r.status === 201)).to.have.length(5);
        expect(all.filter((r) => r.status === 422 && r.body.reason === 'insufficient-funds')).to.have.length(1);
        const b = await balance(user.token);
        expect([b.held.amount, b.available.amount]).to.deep.equal([5_000, 0]);
      });

      it('when a void and a capture race, then exactly one of them resolves the authorization', async () => {
        const user = await funded(5_000);
        for (let i = 0; i < 5; i++) {
          const auth = (await authorize(user.token, 100)).body;
          const [c, v] = await Promise.all([
            post(`/authorizations/${auth.id}/capture`, machine, {}),
            post(`/authorizations/${auth.id}/void`, machine),
          ]);
          expect([c.status, v.status].sort()).to.deep.equal([200, 409]);
        }
      });
    }
  });
}
