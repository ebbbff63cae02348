import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { createHttpService, createMemoryPorts, type PortSet } from 'partner-booking-wallet';
import { unique } from 'partner-booking-wallet/testing';

/**
 * The HTTP service an embedding program builds on its own port set: requests over HTTP and calls
 * of the core act on the same state, and the service starts and stops the set.
 */
describe('the HTTP service on an embedding program’s port set', () => {
  let ports: PortSet;
  let service: Awaited<ReturnType<typeof createHttpService>>;
  let server: http.Server;
  let base: string;

  before(async () => {
    ports = createMemoryPorts();
    service = await createHttpService(ports, { env: { RATE_LIMITS: 'off' }, log: pino({ level: 'silent' }) });
    server = http.createServer(service.serverOptions, service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    await service?.close();
  });

  it('when an agent is created through the core, then its key works over HTTP and a quote made over HTTP is the core’s', async () => {
    expect(service.ports).to.equal(ports);
    const { core } = service;
    await core.catalogue.seed.execute();
    const channel = `HTTP-${unique()}`;
    await core.admin.createChannel.execute({ code: channel, name: 'Embedded HTTP', currency: 'THB' });
    const agent = await core.admin.createAgent.execute({ name: 'Embedded desk', channelCode: channel });
    const { apiKey } = await core.admin.issueApiKey.execute({ agentId: agent.id });

    const account = await fetch(`${base}/api/v1/agent/account`, { headers: { 'X-API-KEY': apiKey } });
    expect(account.status).to.equal(200);
    expect(((await account.json()) as { name: string }).name).to.equal('Embedded desk');

    const pickupAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const res = await fetch(`${base}/api/v1/airport-transfer/quotes`, {
      method: 'POST',
      headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt, passengers: 2 }),
    });
    expect(res.status).to.equal(201);
    const quote = (await res.json()) as { id: string; price: { amount: number } };
    const principal = await core.identity.authenticateAgent.execute(apiKey);
    const stored = await core.booking.getQuote.execute(principal, quote.id);
    expect(stored.id).to.equal(quote.id);
    expect(stored.price.amount).to.equal(quote.price.amount);
  });

  it('when a request carries no key, then the service answers as npm start does: 401 missing-api-key', async () => {
    const res = await fetch(`${base}/api/v1/agent/account`);
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { reason: string }).reason).to.equal('missing-api-key');
  });
});
