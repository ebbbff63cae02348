import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique, type TestAgent } from '../support/builders.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';

/** What a replay must repeat of the first answer: status, body and the headers that describe the resource. */
const described = async (res: Response) => ({
  status: res.status,
  body: await res.text(),
  location: res.headers.get('location'),
  cacheControl: res.headers.get('cache-control'),
  contentType: res.headers.get('content-type'),
});

describe('replayed answers (Idempotent-Replayed: true) on the real routes', () => {
  let app: TestApp;
  let agent: TestAgent;
  let machine: string;
  let userId: string;
  before(async () => {
    app = await startTestApp();
    await app.service.core.catalogue.seed.execute();
    agent = await buildAgent(app.service);
    machine = await machineToken(app, await buildTenant(app.service));
    userId = (await delegatedToken(app, machine)).userId;
  });
  after(() => app.stop());

  it('when an order is placed again with its key, then the replay has the same status, body, Location, Cache-Control and Content-Type', async () => {
    const pickupAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const quote = await app.request(
      '/api/v1/airport-transfer/quotes',
      json('POST', { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt, passengers: 1 }, { 'x-api-key': agent.apiKey }),
    );
    expect(quote.status).to.equal(201);
    const { id: quoteId } = (await quote.json()) as { id: string };
    const key = `o-${unique()}`;
    const send = () =>
      app.request(
        '/api/v1/orders',
        json('POST', { quoteId, contact: { name: 'A', email: 'a@example.com' } }, { 'x-api-key': agent.apiKey, 'idempotency-key': key }),
      );
    const first = await send();
    const again = await send();
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    const a = await described(first);
    expect(a.status).to.equal(201);
    expect(a.location).to.match(/^\/api\/v1\/orders\/ord_/);
    expect(a.cacheControl).to.equal('no-store');
    expect(await described(again)).to.deep.equal(a);
  });

  it('when a top-up is sent again with its key, then the replay keeps Location and Cache-Control: no-store', async () => {
    const key = `t-${unique()}`;
    const body = { amount: { amount: 500, currency: 'THB' }, reference: 'replay-check' };
    const once = () => app.request(`/users/${userId}/top-ups`, json('POST', body, { ...bearer(machine), 'idempotency-key': key }));
    const first = await once();
    const again = await once();
    const a = await described(first);
    expect(a.status).to.equal(201);
    expect(a.location).to.match(/^\/transactions\/txn_/);
    expect(a.cacheControl).to.equal('no-store');
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await described(again)).to.deep.equal(a);
  });
});
