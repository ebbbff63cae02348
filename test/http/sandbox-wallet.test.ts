import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { bearer, buildPasswordUser, buildTenant, machineToken } from '../support/wallet-builders.js';

const fund = (app: TestApp, token: string, userId: string, amount: unknown): Promise<Response> =>
  app.request(`/test-helpers/users/${userId}/fund`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `fund-${unique()}` },
    body: JSON.stringify({ amount }),
  });

describe('the wallet sandbox: a test tenant’s test helpers', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
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
});
