import { expect } from 'chai';
import { capturedLog, json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique } from '../support/builders.js';
import { adminProcess } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';
import { bearer, buildTenant, machineToken } from '../support/wallet-builders.js';
import { recordSecurityEvents } from '../../src/adapters/knex/security-events.knex.js';
import { webhookEndpointCreatedEvent, type SecurityEventType } from '../../src/domain/security-events/security-event.js';

type Body = Record<string, any>;

/**
 * What the security trail, the logs and the request id keep of secrets that a caller put where
 * they do not belong, over HTTP on the test database: a webhook URL's query (its receiver's
 * token), and an API key in a URL path, an `X-Request-Id` or a `User-Agent`.
 */
describe('secrets kept out of the trail and the logs', () => {
  let app: TestApp;
  let lines: string[] = [];

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await app.request(path, body === undefined ? { method, headers } : json(method, body, headers));
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Body, headers: res.headers, text };
  };
  const keyWith = async (apiKey: string, scopes: string[]) => {
    const r = await call('POST', '/api/v1/keys', { 'X-API-KEY': apiKey }, { name: `k-${unique()}`, scopes });
    expect(r.status, r.text).to.equal(201);
    return { apiKey: r.body.apiKey as string, keyId: r.body.key.id as string };
  };
  const webhookTypes: SecurityEventType[] = ['webhook_endpoint.created', 'webhook_endpoint.deleted'];

  before(async () => {
    const captured = capturedLog();
    lines = captured.lines;
    app = await startTestApp({
      env: { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_WORKER: 'off' },
      log: captured.log,
    });
  });
  after(() => app?.stop());

  describe('a webhook endpoint’s URL in the trail', () => {
    it('when an agent registers an endpoint with a token in its query, then a key with only events:read (and the webhooks:manage key, and a subscribed endpoint’s delivery) sees its origin and path, never the query', async () => {
      const agent = await buildAgent(app.service);
      const manager = await keyWith(agent.apiKey, ['webhooks:manage']);
      const reader = await keyWith(agent.apiKey, ['events:read']);
      const watcher = await call(
        'POST',
        '/api/v1/webhook-endpoints',
        { 'X-API-KEY': manager.apiKey },
        { url: 'http://127.0.0.1:9/watch', events: ['webhook_endpoint.created', 'webhook_endpoint.deleted'] },
      );
      expect(watcher.status, watcher.text).to.equal(201);
      const secret = `s3cr3t-${unique()}`;
      const registered = await call(
        'POST',
        '/api/v1/webhook-endpoints',
        { 'X-API-KEY': manager.apiKey },
        { url: `http://127.0.0.1:9/hooks/in?token=${secret}&v=2#frag-${secret}`, events: ['order.confirmed'] },
      );
      expect(registered.status, registered.text).to.equal(201);
      // The endpoint itself, to the key that manages endpoints, keeps its whole URL.
      expect(registered.body.url).to.include(secret);
      const deleted = await call('DELETE', `/api/v1/webhook-endpoints/${String(registered.body.id)}`, { 'X-API-KEY': manager.apiKey });
      expect(deleted.status).to.equal(204);

      for (const apiKey of [reader.apiKey, agent.apiKey]) {
        const read = await call('GET', `/api/v1/security-events?type=${webhookTypes.join(',')}&limit=100`, { 'X-API-KEY': apiKey });
        expect(read.status, read.text).to.equal(200);
        expect(read.text).to.not.include(secret);
        expect(read.text).to.not.include('token=');
        const created = (read.body.data as Body[]).find(
          (e) => e.subject.id === registered.body.id && e.type === 'webhook_endpoint.created',
        );
        expect(created?.details).to.deep.equal({ url: 'http://127.0.0.1:9/hooks/in', events: ['order.confirmed'] });
      }
      // The events:read key cannot read the endpoint itself.
      expect(
        (await call('GET', `/api/v1/webhook-endpoints/${String(registered.body.id)}`, { 'X-API-KEY': reader.apiKey })).status,
      ).to.equal(403);
      // The delivery queued for the subscribed endpoint carries the event as the API shows it.
      const bodies = await app.service.db!.knex.raw<{ rows: Array<{ body: string }> }>(
        `SELECT e.body FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.endpoint_id = ?`,
        [watcher.body.id],
      );
      const queued = bodies.rows.map((r) => JSON.parse(r.body) as Body).filter((b) => b.data.subject.id === registered.body.id);
      expect(queued.map((b) => b.type).sort()).to.deep.equal(['webhook_endpoint.created', 'webhook_endpoint.deleted']);
      expect(queued.find((b) => b.type === 'webhook_endpoint.created')!.data.details.url).to.equal('http://127.0.0.1:9/hooks/in');
      expect(JSON.stringify(bodies.rows)).to.not.include(secret);
      // Nor does the stored event hold it.
      const stored = await app.service.db!.knex('security_events').where({ owner_kind: 'agent', owner_id: agent.agentId });
      expect(JSON.stringify(stored)).to.not.include(secret);
      // No delivery is left queued for a later test's worker.
      expect(
        (await call('DELETE', `/api/v1/webhook-endpoints/${String(watcher.body.id)}`, { 'X-API-KEY': manager.apiKey })).status,
      ).to.equal(204);
    });

    it('when a tenant’s backend registers an endpoint with a token in its query, then its trail shows origin and path only', async () => {
      const tenant = await buildTenant(app.service);
      const machine = await machineToken(app, tenant);
      const secret = `s3cr3t-${unique()}`;
      const registered = await call('POST', '/webhook-endpoints', bearer(machine), {
        url: `http://127.0.0.1:9/wallet/hook?sig=${secret}`,
        events: ['transaction.created'],
      });
      expect(registered.status, registered.text).to.equal(201);
      const read = await call('GET', `/security-events?type=webhook_endpoint.created&limit=100`, bearer(machine));
      expect(read.status, read.text).to.equal(200);
      expect(read.text).to.not.include(secret);
      const created = (read.body.data as Body[]).find((e) => e.subject.id === registered.body.id);
      expect(created?.details.url).to.equal('http://127.0.0.1:9/wallet/hook');
    });

    it('when an event was recorded with the whole URL (before the trail kept only origin and path), then the API and the operator’s events list still show no query', async function () {
      const url = await databaseUrl();
      const agent = await buildAgent(app.service);
      const reader = await keyWith(agent.apiKey, ['events:read']);
      const secret = `s3cr3t-${unique()}`;
      const event = webhookEndpointCreatedEvent(
        {
          id: `whe_${unique()}`,
          owner: { kind: 'agent', id: agent.agentId },
          url: 'http://127.0.0.1:9/old',
          events: ['order.confirmed'],
          createdAt: new Date(),
        },
        { actor: { kind: 'api-key', id: reader.keyId }, ip: '127.0.0.1', requestId: 'req-old' },
      );
      // As an earlier release stored it.
      await recordSecurityEvents(app.service.db!.knex, [
        { ...event, details: { ...event.details, url: `http://127.0.0.1:9/old?token=${secret}` } },
      ]);
      const read = await call('GET', '/api/v1/security-events?type=webhook_endpoint.created', { 'X-API-KEY': reader.apiKey });
      expect(read.status).to.equal(200);
      expect(read.text).to.not.include(secret);
      expect((read.body.data as Body[])[0]!.details.url).to.equal('http://127.0.0.1:9/old');
      if (url === null) this.skip(); // the admin command is a process of its own on the same PostgreSQL
      const listed = await adminProcess(url, 'events', 'list', '--agent', agent.agentId, '--json');
      expect(listed.code, listed.stderr).to.equal(0);
      expect(listed.stdout).to.not.include(secret);
      expect(listed.stdout).to.include('http://127.0.0.1:9/old');
    });
  });

  describe('an API key where it does not belong', () => {
    it('when a key is sent in the URL path, as X-Request-Id and as User-Agent, then no log line and no event holds it, and the request id answered is a new one', async () => {
      const agent = await buildAgent(app.service);
      const narrow = await keyWith(agent.apiKey, ['account:read']);
      const reader = await keyWith(agent.apiKey, ['events:read']);
      const { apiKey: leaked } = await keyWith(agent.apiKey, ['*']);
      const tokenLike = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
      const headers = { 'X-API-KEY': agent.apiKey, 'X-Request-Id': leaked, 'User-Agent': `curl/8 ${leaked}` };
      const inPath = await call('GET', `/api/v1/orders/${leaked}`, headers);
      expect(inPath.status).to.be.oneOf([400, 404]);
      const unrouted = await call('GET', `/api/v1/${leaked}/x`, { ...headers, 'X-Request-Id': tokenLike });
      expect(unrouted.status).to.equal(404);
      // A refused key leaves an event that names the request's id.
      const refused = await call('GET', '/api/v1/orders', { 'X-API-KEY': narrow.apiKey, 'X-Request-Id': leaked, 'User-Agent': leaked });
      expect(refused.status).to.equal(403);
      for (const r of [inPath, unrouted, refused]) {
        const id = r.headers.get('x-request-id');
        expect(id).to.match(/^req_/);
        expect(r.body.requestId).to.equal(id);
        expect(r.text).to.not.include(leaked);
      }
      // A sane request id is kept as it was.
      const kept = await call('GET', '/api/v1/agent/account', { 'X-API-KEY': agent.apiKey, 'X-Request-Id': 'order-sync-42' });
      expect(kept.headers.get('x-request-id')).to.equal('order-sync-42');

      const events = await call('GET', '/api/v1/security-events?type=api_key.refused', { 'X-API-KEY': reader.apiKey });
      const refusal = (events.body.data as Body[]).find((e) => e.subject.id === narrow.keyId);
      expect(refusal?.requestId).to.equal(refused.headers.get('x-request-id'));
      expect(events.text).to.not.include(leaked);
      const stored = await app.service.db!.knex('security_events').where({ owner_kind: 'agent', owner_id: agent.agentId });
      expect(JSON.stringify(stored)).to.not.include(leaked.slice(8));

      await new Promise((r) => setTimeout(r, 50));
      const logged = lines.join('');
      expect(logged).to.not.include(leaked.slice(8));
      expect(logged).to.not.include(tokenLike);
      const pathLine = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.requestId === inPath.headers.get('x-request-id'));
      expect(pathLine?.path).to.equal('/api/v1/orders/[redacted]');
    });
  });
});
