import { expect } from 'chai';
import { freePort } from '../../scripts/private-postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually } from '../support/builders.js';
import { databaseUrl } from '../support/database.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { orderWatchedBy, startReceiver, verified, type Receiver } from '../support/webhook-receiver.js';

const ENTRY = 'src/bootstrap/main.ts';
const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', RATE_LIMITS: 'off' };

describe('webhooks across a crash (child processes, PostgreSQL)', function () {
  this.timeout(90_000);
  let url: string | null;
  let app: TestApp;
  let receiver: Receiver;
  let server: ServerProcess | null = null;

  before(async function () {
    url = await databaseUrl();
    if (url === null) this.skip(); // the service processes need a PostgreSQL they can reach
    // The in-process app only creates the agent: its worker is off, so only the child processes send.
    app = await startTestApp({ env: { ...DEV_ENV, WEBHOOK_WORKER: 'off' } });
    await app.service.core.catalogue.seed.execute();
    receiver = await startReceiver();
  });
  after(async () => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    await receiver?.close();
    await app?.stop();
  });

  it('when the service is killed (-9) after committing an order and before delivering it, then it is delivered after the restart', async () => {
    const agent = await buildAgent(app.service);
    // A first process whose worker would not look again for ten minutes: the commit happens, the delivery does not.
    server = await spawnServer(ENTRY, { DATABASE_URL: url!, ...DEV_ENV, WEBHOOK_POLL_MS: '600000' }, await freePort());
    const call = async (path: string, init: RequestInit) => {
      const res = await fetch(`${server!.url}${path}`, init);
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const { endpoint: ep, order } = await orderWatchedBy(call, agent.apiKey, receiver.url, { name: 'A', email: 'a@example.com' });
    server.child.kill('SIGKILL');
    const exit = await server.exited();
    expect(exit.signal).to.equal('SIGKILL');
    expect(receiver.received).to.have.length(0);

    server = await spawnServer(ENTRY, { DATABASE_URL: url!, ...DEV_ENV, WEBHOOK_POLL_MS: '200' }, await freePort());
    await eventually(async () => receiver.received.length >= 1, 20_000, 'the delivery after the restart');
    const event = verified(ep.body.secret, receiver.received[0]!);
    expect(event.type).to.equal('order.confirmed');
    expect(event.data.id).to.equal(order.body.id);
    server.child.kill('SIGTERM');
    await server.exited();
  });
});
