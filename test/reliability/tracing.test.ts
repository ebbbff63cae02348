import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../scripts/private-postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually } from '../support/builders.js';
import { databaseUrl } from '../support/database.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { orderWatchedBy, startReceiver, type Receiver } from '../support/webhook-receiver.js';

const ENTRY = 'src/bootstrap/main.ts';
const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', RATE_LIMITS: 'off', LOG_LEVEL: 'info' };

/** One span as OTLP/JSON carries it, its attributes flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  /** The exporting resource's `service.name`. */
  service: string;
  raw: unknown;
}

/** What one POST to /v1/traces carried. */
interface Export {
  readonly contentType: string;
  readonly body: Buffer;
}

/** A stand-in OTLP/HTTP collector: records what is POSTed to /v1/traces. */
async function startCollector(): Promise<{
  url: string;
  exports: Export[];
  bodies: () => string[];
  spans: () => ExportedSpan[];
  close: () => Promise<void>;
}> {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces')
        exports.push({ contentType: String(req.headers['content-type']), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const flatten = (attrs: Array<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> =>
    Object.fromEntries(attrs.map((a) => [a.key, Object.values(a.value)[0]]));
  const bodies = (): string[] => exports.filter((e) => e.contentType === 'application/json').map((e) => e.body.toString('utf8'));
  const spans = (): ExportedSpan[] =>
    bodies().flatMap((b) =>
      (
        JSON.parse(b) as {
          resourceSpans: Array<{ resource: { attributes: any }; scopeSpans: Array<{ spans: Array<Record<string, any>> }> }>;
        }
      ).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((s) => ({
            traceId: s.traceId as string,
            spanId: s.spanId as string,
            parentSpanId: (s.parentSpanId as string | undefined) ?? '',
            name: s.name as string,
            kind: s.kind as number,
            attributes: flatten(s.attributes),
            service: String(flatten(rs.resource.attributes)['service.name']),
            raw: s,
          })),
        ),
      ),
    );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    bodies,
    spans,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SERVER = 2;
const CLIENT = 3;

describe('traces over OTLP/HTTP (child process, PostgreSQL)', function () {
  this.timeout(120_000);
  let url: string | null;
  let app: TestApp;
  let receiver: Receiver;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let server: ServerProcess | null = null;
  let redis: string | null;

  before(async function () {
    url = await databaseUrl();
    if (url === null) this.skip(); // PostgreSQL statement spans need the service on a PostgreSQL it can reach
    // The in-process app only creates the agent and the catalogue: its worker is off.
    app = await startTestApp({ env: { ...DEV_ENV, WEBHOOK_WORKER: 'off' } });
    await app.service.core.catalogue.seed.execute();
    receiver = await startReceiver();
    collector = await startCollector();
    redis = await testRedisUrl();
  });
  afterEach(() => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    server = null;
  });
  after(async () => {
    await collector?.close();
    await receiver?.close();
    await app?.stop();
  });

  const call = async (path: string, init: RequestInit) => {
    const res = await fetch(`${server!.url}${path}`, init);
    return { status: res.status, requestId: res.headers.get('x-request-id'), body: (await res.json()) as Record<string, any> };
  };

  it('when a request comes with a traceparent, then its server span continues the trace with the route template, the request id and PostgreSQL (and Redis) child spans, the log line names the span, a webhook attempt has its own span, and no attribute holds the key, the secret or the body', async () => {
    const agent = await buildAgent(app.service);
    // The rate limits count in Redis when one answers, so its commands are traced too.
    const prefix = uniqueRedisPrefix();
    const limits = redis === null ? {} : { RATE_LIMITS: 'on', RATE_LIMIT_STORE: 'redis', REDIS_URL: redis, REDIS_KEY_PREFIX: prefix };
    // Nothing is exported before the exit: the last spans are flushed as the service stops.
    server = await spawnServer(
      ENTRY,
      {
        DATABASE_URL: url!,
        ...DEV_ENV,
        ...limits,
        WEBHOOK_POLL_MS: '100',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      await freePort(),
    );
    const as = { 'X-API-KEY': agent.apiKey };
    const contact = { name: 'Traced Contact', email: 'traced-contact@example.com' };
    const { endpoint: ep, order } = await orderWatchedBy(call, agent.apiKey, receiver.url, contact);

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    // The key also rides in the query string, where a careless caller might put it.
    const read = await call(`/api/v1/orders/${String(order.body.id)}?api_key=${agent.apiKey}`, {
      headers: { ...as, traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(read.status).to.equal(200);
    // The receiver serves the file's other tests too: the order's delivery is the one of its event.
    const delivered = () => receiver.received.find((r) => (JSON.parse(r.body) as { data?: { id?: unknown } }).data?.id === order.body.id);
    await eventually(async () => delivered() !== undefined, 20_000, 'the webhook delivery');

    server.child.kill('SIGTERM');
    expect((await server.exited()).code).to.equal(0);
    expect(collector.bodies(), 'spans flushed before the exit').to.not.be.empty;
    const spans = collector.spans();

    const serverSpans = spans.filter((s) => s.traceId === traceId && s.kind === SERVER);
    expect(serverSpans).to.have.length(1);
    const span = serverSpans[0]!;
    expect(span.parentSpanId).to.equal(parentId);
    expect(span.service).to.equal('partner-booking-wallet');
    expect(span.name).to.equal('GET /api/v1/orders/:orderId');
    expect(span.attributes).to.include({
      'http.request.method': 'GET',
      'http.route': '/api/v1/orders/:orderId',
      'request.id': read.requestId,
    });
    expect(Number(span.attributes['http.response.status_code'])).to.equal(200);
    expect(span.attributes).to.not.have.property('url.query');

    const statements = spans.filter((s) => s.traceId === traceId && s.attributes['db.system.name'] === 'postgresql');
    expect(statements, 'PostgreSQL spans in the request trace').to.not.be.empty;
    for (const s of statements) expect(String(s.attributes['db.query.text'])).to.match(/\$1/);
    if (redis !== null) {
      // The command's name alone: its arguments (the counters' keys) are not recorded.
      const commands = spans.filter((s) => s.traceId === traceId && s.attributes['db.system.name'] === 'redis');
      expect(commands, 'Redis spans in the request trace').to.not.be.empty;
      for (const s of commands) expect(String(s.attributes['db.query.text'])).to.match(/^[a-z]+$/i);
    }

    // The access log line of that request names its trace and its server span.
    const line = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.requestId === read.requestId);
    expect(line, 'the access log line').to.not.equal(undefined);
    expect(line).to.include({ trace_id: traceId, span_id: span.spanId });

    // The database may hold other tests' deliveries, attempted by this process too (a retry of one
    // is a later attempt): the order's is the one of its event, the receiver's `webhook-id`.
    const eventId = delivered()!.headers['webhook-id'];
    const attempts = spans.filter((s) => s.name === 'webhook delivery attempt' && s.attributes['webhook.event.id'] === eventId);
    expect(attempts).to.have.length.greaterThanOrEqual(1);
    const attempt = attempts[0]!;
    expect(attempt.kind).to.equal(CLIENT);
    expect(attempt.attributes).to.include({
      'webhook.event.type': 'order.confirmed',
      'webhook.attempt': 1,
      'webhook.delivered': true,
      'server.address': '127.0.0.1',
    });
    expect(Number(attempt.attributes['http.response.status_code'])).to.equal(200);
    expect(
      spans.some(
        (s) => s.traceId === attempt.traceId && s.parentSpanId === attempt.spanId && s.attributes['db.system.name'] === 'postgresql',
      ),
    ).to.equal(true);

    // No attribute anywhere holds the key, the webhook secret, the receiver's path or a body's field.
    const exported = collector.bodies().join('\n');
    for (const secret of [agent.apiKey, 'pbk_', String(ep.body.secret), '/hooks', contact.email, contact.name, prefix]) {
      expect(exported, secret).to.not.include(secret);
    }
  });

  it('when a key is sent in the URL path, as X-Request-Id and as User-Agent, then no span attribute and no log line holds it', async () => {
    const agent = await buildAgent(app.service);
    server = await spawnServer(
      ENTRY,
      {
        DATABASE_URL: url!,
        ...DEV_ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      await freePort(),
    );
    const traceId = '6bf92f3577b34da6a3ce929d0e0e4736';
    const secret = { 'X-API-KEY': agent.apiKey, 'X-Request-Id': agent.apiKey, 'User-Agent': `curl/8 ${agent.apiKey}` };
    const answered: Array<string | null> = [];
    for (const path of [`/api/v1/orders/${agent.apiKey}`, `/api/v1/${agent.apiKey}/x`]) {
      const res = await fetch(`${server.url}${path}`, { headers: { ...secret, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      await res.text();
      expect(res.status).to.be.oneOf([400, 404]);
      answered.push(res.headers.get('x-request-id'));
    }
    server.child.kill('SIGTERM');
    expect((await server.exited()).code).to.equal(0);
    const spans = collector.spans().filter((s) => s.traceId === traceId && s.kind === SERVER);
    expect(spans).to.have.length(2);
    expect(spans.map((s) => s.attributes['url.path']).sort()).to.deep.equal(['/api/v1/[redacted]/x', '/api/v1/orders/[redacted]']);
    for (const s of spans) expect(s.attributes['user_agent.original']).to.equal('curl/8 [redacted]');
    expect(spans.map((s) => s.attributes['request.id']).sort()).to.deep.equal([...answered].sort());
    for (const id of answered) expect(id).to.match(/^req_/);
    const body = agent.apiKey.slice(8);
    expect(collector.bodies().join('\n')).to.not.include(body);
    expect(server.output()).to.not.include(body);
  });

  it('when only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, then spans go there as OTLP protobuf (the default protocol) under OTEL_SERVICE_NAME', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4736';
    const serviceName = 'pbw-traced-elsewhere';
    server = await spawnServer(
      ENTRY,
      {
        DATABASE_URL: url!,
        ...DEV_ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_PROTOCOL: undefined,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
        OTEL_SERVICE_NAME: serviceName,
      },
      await freePort(),
    );
    const res = await fetch(`${server.url}/healthz`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(res.status).to.equal(200);
    server.child.kill('SIGTERM');
    expect((await server.exited()).code).to.equal(0);
    const ours = collector.exports.filter((e) => e.body.includes(Buffer.from(traceId, 'hex')));
    expect(ours, 'an export holding the trace').to.have.length.greaterThanOrEqual(1);
    expect(ours[0]!.contentType).to.equal('application/x-protobuf');
    expect(ours[0]!.body.includes(Buffer.from(serviceName))).to.equal(true);
  });

  it('when no OTLP endpoint is set, then nothing is traced: the log line carries no trace id', async () => {
    server = await spawnServer(
      ENTRY,
      { DATABASE_URL: url!, ...DEV_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined },
      await freePort(),
    );
    const res = await fetch(`${server.url}/healthz`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(res.status).to.equal(200);
    server.child.kill('SIGTERM');
    expect((await server.exited()).code).to.equal(0);
    const line = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));
    expect(line, 'the access log line').to.not.equal(undefined);
    expect(line).to.not.have.property('trace_id');
  });
});
