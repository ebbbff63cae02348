import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { randomInt } from 'node:crypto';
import { startTestApp, silentLog, type TestApp } from '../support/app.js';
import { buildAgent, eventually } from '../support/builders.js';
import { testDatabase } from '../support/database.js';
import { createRateLimits } from '../../src/adapters/http/rate-limits.js';
import { errorHandler } from '../../src/adapters/http/errors.js';
import { requestId } from '../../src/adapters/http/request-context.js';
import { KnexRateLimitStore } from '../../src/adapters/knex/rate-limit-store.knex.js';
import { DEFAULT_RATE_LIMIT_RULES, loadConfig } from '../../src/bootstrap/config.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { freePort } from '../../scripts/private-postgres.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET from a loopback address of our choosing, so each test is its own client IP. */
const getFrom = (base: string, path: string, localAddress: string, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { localAddress, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });

const freshIp = (): string => `127.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;

/** A TCP relay to Redis that a test can stop (cutting every connection) and start again on the same port. */
async function tcpProxy(target: string): Promise<{ port: number; start(): Promise<void>; stop(): Promise<void> }> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const port = await freePort();
  const start = async (): Promise<void> => {
    server = net.createServer((client) => {
      const upstream = net.connect({ host: hostname, port: Number(targetPort || 6379) });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await start();
  return { port, start, stop };
}

const LOCATIONS = '/api/v1/airport-transfer/locations?q=bkk';

describe('request-rate limits', () => {
  describe('public autocomplete, per IP, counted in Redis by every instance', () => {
    let a: TestApp;
    let b: TestApp;
    before(async function () {
      const redis = await testRedisUrl();
      if (redis === null) this.skip();
      // One prefix for this run: both instances share it, no other run does.
      const env = { RATE_LIMITS: 'on', RATE_LIMIT_PUBLIC: '3/60', REDIS_URL: redis as string, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
      a = await startTestApp({ env });
      b = await startTestApp({ env });
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
    });

    it('when an IP exceeds the limit, then 429 rate-limited problem+json with Retry-After and RateLimit-* headers', async () => {
      const ip = freshIp();
      const remaining: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const ok = await getFrom(a.url, LOCATIONS, ip);
        expect(ok.status).to.equal(200);
        expect(ok.headers['ratelimit-limit']).to.equal('3');
        remaining.push(String(ok.headers['ratelimit-remaining']));
      }
      expect(remaining).to.deep.equal(['2', '1', '0']);
      const limited = await getFrom(a.url, '/api/v1/express-bus/cities?q=bang', ip);
      expect(limited.status).to.equal(429);
      expect(limited.headers['content-type']).to.match(/^application\/problem\+json/);
      const body = JSON.parse(limited.body) as Record<string, unknown>;
      expect(body).to.include({ status: 429, reason: 'rate-limited' });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).to.be.within(1, 60);
      expect(limited.headers['ratelimit-remaining']).to.equal('0');
      expect(Number(limited.headers['ratelimit-reset'])).to.be.within(1, 60);
      // Another IP is not affected.
      expect((await getFrom(a.url, LOCATIONS, freshIp())).status).to.equal(200);
    });

    it('when requests from one IP are spread over two instances, then they share one count', async () => {
      const ip = freshIp();
      expect((await getFrom(a.url, LOCATIONS, ip)).status).to.equal(200);
      expect((await getFrom(b.url, LOCATIONS, ip)).status).to.equal(200);
      expect((await getFrom(a.url, LOCATIONS, ip)).status).to.equal(200);
      expect((await getFrom(b.url, LOCATIONS, ip)).status).to.equal(429);
    });

    it('when health and unknown paths are called, then the public limiter does not count them', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i += 1) expect((await getFrom(a.url, '/healthz', ip)).status).to.equal(200);
      expect((await getFrom(a.url, LOCATIONS, ip)).headers['ratelimit-remaining']).to.equal('2');
    });
  });

  describe('booking surface, per API key', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { RATE_LIMITS: 'on', RATE_LIMIT_BOOKING: '2/60', RATE_LIMIT_PUBLIC: '1000/60' } });
    });
    after(() => app.stop());

    it('when one key exceeds its limit, then it gets 429 while another key of the same IP still gets 200', async () => {
      const one = await buildAgent(app.service);
      const two = await buildAgent(app.service);
      const ip = freshIp();
      const as = (key: string) => getFrom(app.url, '/api/v1/agent/account', ip, { 'X-API-KEY': key });
      expect((await as(one.apiKey)).status).to.equal(200);
      expect((await as(one.apiKey)).status).to.equal(200);
      const limited = await as(one.apiKey);
      expect(limited.status).to.equal(429);
      expect(JSON.parse(limited.body)).to.include({ reason: 'rate-limited' });
      expect(limited.headers['retry-after']).to.be.a('string');
      expect((await as(two.apiKey)).status).to.equal(200);
    });

    it('when the key is missing or invalid, then authentication answers first (401), uncounted', async () => {
      const ip = freshIp();
      for (let i = 0; i < 4; i += 1) {
        expect((await getFrom(app.url, '/api/v1/agent/account', ip, { 'X-API-KEY': 'nope' })).status).to.equal(401);
      }
    });
  });

  describe('switched off and in memory', () => {
    it('when RATE_LIMITS=off, then no request is limited and no RateLimit headers are sent', async () => {
      const app = await startTestApp({ env: { RATE_LIMITS: 'off', RATE_LIMIT_PUBLIC: '1/60' } });
      try {
        const ip = freshIp();
        for (let i = 0; i < 5; i += 1) {
          const res = await getFrom(app.url, LOCATIONS, ip);
          expect(res.status).to.equal(200);
          expect(res.headers['ratelimit-limit']).to.equal(undefined);
        }
      } finally {
        await app.stop();
      }
    });

    it('when persistence is in memory, then the limits hold with the in-process store', async () => {
      const app = await startTestApp({ memory: true, env: { RATE_LIMITS: 'on', RATE_LIMIT_PUBLIC: '2/60' } });
      try {
        const ip = freshIp();
        expect((await getFrom(app.url, LOCATIONS, ip)).status).to.equal(200);
        expect((await getFrom(app.url, LOCATIONS, ip)).status).to.equal(200);
        expect((await getFrom(app.url, LOCATIONS, ip)).status).to.equal(429);
      } finally {
        await app.stop();
      }
    });

    it('when no RATE_LIMIT_* is set, then limits are on with the documented defaults', async () => {
      const app = await startTestApp({ env: { RATE_LIMITS: 'on' } });
      try {
        const res = await getFrom(app.url, LOCATIONS, freshIp());
        expect(res.headers['ratelimit-limit']).to.equal(String(DEFAULT_RATE_LIMIT_RULES.public.limit));
      } finally {
        await app.stop();
      }
    });
  });

  describe('one budget in Redis across instances, and a Redis that fails', () => {
    let redis: string;
    before(async function () {
      const url = await testRedisUrl();
      if (url === null) this.skip();
      redis = url as string;
    });

    it('when one key sends 40 concurrent requests split over two instances, then exactly its limit is admitted', async () => {
      const env = { RATE_LIMITS: 'on', RATE_LIMIT_BOOKING: '10/60', REDIS_URL: redis, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
      const a = await startTestApp({ env });
      const b = await startTestApp({ env });
      try {
        const agent = await buildAgent(a.service);
        const statuses = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            ((i % 2 === 0 ? a : b) as TestApp)
              .request('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey } })
              .then((r) => r.status),
          ),
        );
        expect(statuses.filter((s) => s === 200)).to.have.length(10);
        expect(statuses.filter((s) => s === 429)).to.have.length(30);
      } finally {
        await a.stop();
        await b.stop();
      }
    });

    it('when failed authentications of one address land on two instances, then they count together', async () => {
      const env = { RATE_LIMITS: 'on', RATE_LIMIT_AUTH_FAILURES: '3/60', REDIS_URL: redis, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
      const a = await startTestApp({ env });
      const b = await startTestApp({ env });
      try {
        const ip = freshIp();
        const bad = (app: TestApp) => getFrom(app.url, '/api/v1/agent/account', ip, { 'X-API-KEY': 'pbk_not-a-key' });
        expect((await bad(a)).status).to.equal(401);
        expect((await bad(b)).status).to.equal(401);
        expect((await bad(a)).status).to.equal(401);
        expect((await bad(b)).status).to.equal(429);
        expect((await bad(a)).status).to.equal(429);
      } finally {
        await a.stop();
        await b.stop();
      }
    });

    it('when REDIS_URL points at a closed port, then the service starts and answers every request unlimited (fail open)', async () => {
      const env = {
        RATE_LIMITS: 'on',
        RATE_LIMIT_PUBLIC: '1/60',
        RATE_LIMIT_AUTH_FAILURES: '1/60',
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      };
      const app = await startTestApp({ env });
      try {
        const ip = freshIp();
        for (let i = 0; i < 4; i += 1) {
          const res = await getFrom(app.url, LOCATIONS, ip);
          expect(res.status).to.equal(200);
          expect(res.headers['ratelimit-limit']).to.equal(undefined);
          expect((await getFrom(app.url, '/api/v1/agent/account', ip, { 'X-API-KEY': 'pbk_not-a-key' })).status).to.equal(401);
        }
      } finally {
        await app.stop();
      }
    });

    it('when Redis goes away and comes back, then requests pass meanwhile and the limits hold again after', async function () {
      this.timeout(30_000);
      const proxy = await tcpProxy(redis);
      const env = {
        RATE_LIMITS: 'on',
        RATE_LIMIT_PUBLIC: '2/60',
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: uniqueRedisPrefix(),
      };
      const app = await startTestApp({ env });
      try {
        const ip = freshIp();
        expect((await getFrom(app.url, LOCATIONS, ip)).headers['ratelimit-remaining']).to.equal('1');
        await proxy.stop();
        for (let i = 0; i < 4; i += 1) expect((await getFrom(app.url, LOCATIONS, ip)).status).to.equal(200);
        await proxy.start();
        // The client reconnects by itself (backoff up to 1 s); then the count resumes where Redis kept it.
        await eventually(async () => (await getFrom(app.url, LOCATIONS, ip)).status === 429, 10_000, 'limits back with Redis');
      } finally {
        await app.stop();
        await proxy.stop();
      }
    });
  });

  describe('the shared-store rule at start', () => {
    it('when several processes are configured with limits counted in memory, then the configuration is refused with what to set', () => {
      for (const env of [{ CLUSTER_WORKERS: '2' }, { SERVICE_INSTANCES: '3' }]) {
        expect(() => loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', ...env })).to.throw(
          /rate limits are counted in process memory.*Set REDIS_URL/,
        );
      }
      expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).to.throw(/RATE_LIMIT_STORE=redis needs REDIS_URL/);
    });

    it('when several processes share Redis (or limits are off), then the configuration is accepted', () => {
      const base = { DATABASE_URL: 'postgres://x@127.0.0.1/db', CLUSTER_WORKERS: '2' };
      expect(loadConfig({ ...base, REDIS_URL: 'redis://127.0.0.1:6379' }).rateLimitStore).to.deep.equal({
        kind: 'redis',
        url: 'redis://127.0.0.1:6379',
        prefix: 'pbw:rl:',
      });
      expect(loadConfig({ ...base, RATE_LIMITS: 'off' }).rateLimits).to.equal(false);
      expect(loadConfig({ ...base, RATE_LIMIT_STORE: 'postgres' }).rateLimitStore).to.deep.equal({ kind: 'postgres' });
      expect(loadConfig({}).rateLimitStore).to.deep.equal({ kind: 'memory' });
    });
  });

  describe('the database store', () => {
    it('when many increments of one key race, then each gets a distinct count', async () => {
      const store = new KnexRateLimitStore((await testDatabase()).knex, `race-${freshIp()}:`);
      store.init({ windowMs: 60_000 } as never);
      const counts = await Promise.all(Array.from({ length: 20 }, () => store.increment('k')));
      expect(counts.map((c) => c.totalHits).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      await store.decrement('k');
      expect((await store.get('k'))?.totalHits).to.equal(19);
      await store.resetKey('k');
      expect(await store.get('k')).to.equal(undefined);
    });

    it('when the window has passed, then the count starts again at 1', async () => {
      const store = new KnexRateLimitStore((await testDatabase()).knex, `window-${freshIp()}:`);
      store.init({ windowMs: 300 } as never);
      expect((await store.increment('k')).totalHits).to.equal(1);
      expect((await store.increment('k')).totalHits).to.equal(2);
      await new Promise((r) => setTimeout(r, 400));
      expect((await store.increment('k')).totalHits).to.equal(1);
    });
  });

  describe('the named limiters for the wallet routes', () => {
    let server: http.Server;
    let base: string;
    before(async () => {
      const rules = {
        public: { limit: 1, windowSeconds: 60 },
        booking: { limit: 1, windowSeconds: 60 },
        login: { limit: 1, windowSeconds: 60 },
        token: { limit: 1, windowSeconds: 60 },
        delegated: { limit: 1, windowSeconds: 60 },
        payments: { limit: 1, windowSeconds: 60 },
      };
      const limits = createRateLimits({ enabled: true, rules, store: () => undefined });
      const app = express();
      app.use(requestId);
      // Stand-ins for the bearer middleware: the principal comes from test headers here.
      app.use((req, res, next) => {
        const user = req.headers['x-test-user'];
        const client = req.headers['x-test-client'];
        if (typeof user === 'string')
          res.locals.wallet = { kind: 'user', tenantId: 'ten_1', userId: user, amr: ['pwd'], act: null, clientId: 'cli_1' };
        else if (typeof client === 'string') res.locals.wallet = { kind: 'machine', tenantId: 'ten_1', clientId: client };
        next();
      });
      const ok: express.RequestHandler = (_req, res) => void res.json({ ok: true });
      app.post('/auth/login', limits.login, ok);
      app.post('/oauth/token', express.urlencoded({ extended: false }), limits.token, ok);
      app.post('/auth/delegated-token', limits.delegated, ok);
      app.post('/me/payments', limits.payments, ok);
      app.use(errorHandler(silentLog));
      server = http.createServer(app);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    const post = (path: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) }).then((r) => r.status);

    it('when one user pays too often, then that user is limited and another is not', async () => {
      expect(await post('/me/payments', { 'x-test-user': 'usr_a' })).to.equal(200);
      expect(await post('/me/payments', { 'x-test-user': 'usr_a' })).to.equal(429);
      expect(await post('/me/payments', { 'x-test-user': 'usr_b' })).to.equal(200);
    });

    it('when one client asks for tokens too often (Basic or form), then that client is limited and another is not', async () => {
      const basic = (id: string) => ({ authorization: `Basic ${Buffer.from(`${id}:secret`).toString('base64')}` });
      expect(await post('/oauth/token', basic('cli_a'))).to.equal(200);
      expect(
        await post('/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'client_id=cli_a&client_secret=x'),
      ).to.equal(429);
      expect(await post('/oauth/token', basic('cli_b'))).to.equal(200);
    });

    it('when one client mints delegated tokens too often, then that client is limited and another is not', async () => {
      expect(await post('/auth/delegated-token', { 'x-test-client': 'cli_x' })).to.equal(200);
      expect(await post('/auth/delegated-token', { 'x-test-client': 'cli_x' })).to.equal(429);
      expect(await post('/auth/delegated-token', { 'x-test-client': 'cli_y' })).to.equal(200);
    });

    it('when one IP tries to log in too often, then it gets 429 rate-limited', async () => {
      expect(await post('/auth/login')).to.equal(200);
      expect(await post('/auth/login')).to.equal(429);
    });
  });
});
