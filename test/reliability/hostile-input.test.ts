import { expect } from 'chai';
import express from 'express';
import net from 'node:net';
import pino from 'pino';
import { z } from 'zod';
import { jsonBody } from '../../src/adapters/http/request-guards.js';
import { parseBody } from '../../src/adapters/http/validate.js';
import { listen, openService, type RunningServer } from '../../src/bootstrap/service.js';
import { silentLog, testConfig } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { testDatabase } from '../support/database.js';

/** Sends raw bytes and returns everything the server wrote before closing (or after `ms`). */
function raw(port: number, bytes: string, ms = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (): void => {
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      // One complete response is enough.
      const [head, body = ''] = got.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head ?? '');
      if (length && Buffer.byteLength(body) >= Number(length[1])) {
        clearTimeout(timer);
        done();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
const bodyOf = (response: string): Record<string, unknown> => JSON.parse(response.split('\r\n\r\n')[1] ?? '{}') as Record<string, unknown>;

describe('hostile input', () => {
  let running: RunningServer;
  let port: number;
  let agent: TestAgent;
  before(async () => {
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1', HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '800' });
    const service = await openService(config, silentLog, { db: await testDatabase() });
    running = await listen(service, config, silentLog);
    port = Number(new URL(running.url).port);
    agent = await buildAgent(service);
  });
  after(async () => {
    running.server.closeAllConnections();
    await new Promise<void>((r) => running.server.close(() => r()));
    await running.service.close();
  });

  it('when any response is sent, then the API’s security headers are on and X-Powered-By is off', async () => {
    for (const path of ['/healthz', '/api/v1/agent/account', '/nowhere', '/openapi/booking-api.yaml']) {
      const res = await fetch(`${running.url}${path}`);
      expect(res.headers.get('x-powered-by'), path).to.equal(null);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('content-security-policy'), path).to.equal("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), path).to.equal('DENY');
      expect(res.headers.get('strict-transport-security'), path).to.be.a('string');
      expect(res.headers.get('referrer-policy'), path).to.equal('no-referrer');
      expect(res.headers.get('cross-origin-resource-policy'), path).to.equal('same-origin');
    }
  });

  it('when the HTML reference page or its assets are sent, then they carry helmet’s document headers and a CSP that lets the page run', async () => {
    for (const path of ['/docs', '/docs/swagger-ui.css']) {
      const res = await fetch(`${running.url}${path}`);
      expect(res.status, path).to.equal(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).to.include("default-src 'self'");
      expect(csp, path).to.include("script-src 'self'");
      expect(csp, path).to.include("object-src 'none'");
      expect(res.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN');
      expect(res.headers.get('cross-origin-opener-policy'), path).to.equal('same-origin');
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
    }
  });

  it('when X-API-KEY is sent twice, then 400 invalid-request, even if both copies are the valid key', async () => {
    for (const second of [agent.apiKey, 'other']) {
      const res = await raw(
        port,
        `GET /api/v1/agent/account HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${agent.apiKey}\r\nX-Api-Key: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(res)).to.equal(400);
      expect(res).to.match(/content-type: application\/problem\+json/i);
      expect(bodyOf(res)).to.include({ reason: 'invalid-request' });
    }
  });

  it('when Authorization or Idempotency-Key is sent twice, then 400 invalid-request', async () => {
    for (const header of ['Authorization: Bearer a', 'Idempotency-Key: k1']) {
      const res = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\n${header}\r\n${header}2\r\nConnection: close\r\n\r\n`);
      expect(statusOf(res), header).to.equal(400);
      expect(bodyOf(res)).to.include({ reason: 'invalid-request' });
    }
  });

  it('when a header value holds a bare CR, a bare LF or another control character, then 400 problem+json and nothing is injected', async () => {
    const attempts = [
      `GET /api/v1/agent/account HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${agent.apiKey}\rX-Injected: 1\r\nConnection: close\r\n\r\n`,
      `GET /api/v1/agent/account HTTP/1.1\r\nHost: x\r\nX-API-KEY: abc\nSet-Cookie: a=b\r\nConnection: close\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\u0001b\r\nConnection: close\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Thing: a\r\n folded\r\nConnection: close\r\n\r\n`,
    ];
    for (const attempt of attempts) {
      const res = await raw(port, attempt);
      expect(statusOf(res), JSON.stringify(attempt)).to.equal(400);
      expect(res).to.match(/content-type: application\/problem\+json/i);
      expect(res).not.to.match(/x-injected|set-cookie/i);
    }
  });

  it('when the request line is garbage, then 400 problem+json, never a stack', async () => {
    const res = await raw(port, 'FLY /\u0000 HTTP/9\r\n\r\n');
    expect(statusOf(res)).to.equal(400);
    expect(res).not.to.match(/\bat \S+:\d+/);
  });

  it('when a client sends its headers too slowly, then the server answers 408 and closes (headersTimeout)', async function () {
    this.timeout(10_000);
    const started = Date.now();
    const res = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let got = '';
      socket.on('data', (c: Buffer) => (got += c.toString()));
      socket.on('close', () => resolve(got));
      socket.on('error', () => resolve(got));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
      socket.on('close', () => clearInterval(drip));
    });
    expect(statusOf(res)).to.equal(408);
    expect(Date.now() - started).to.be.below(3000);
    expect(running.server.headersTimeout).to.equal(500);
    expect(running.server.requestTimeout).to.equal(800);
  });

  it('when a path holds broken percent-encoding, then 400 or 404 problem+json, never 500', async () => {
    for (const path of ['/api/v1/%E0%A4%A', '/%', '/api/v1/agent/account/%zz', '/api/v1/airport-transfer/locations?q=%E0%A4%A']) {
      const res = await fetch(`${running.url}${path}`, { headers: { 'X-API-KEY': agent.apiKey } });
      expect(res.status, path).to.be.below(500);
      expect(res.headers.get('content-type') ?? '', path).to.match(/json/);
    }
  });

  it('when query keys are __proto__ or constructor, then they change nothing', async () => {
    const res = await fetch(
      `${running.url}/api/v1/airport-transfer/locations?q=bkk&__proto__[limit]=1&constructor[prototype][polluted]=1&__proto__=x`,
    );
    expect(res.status).to.equal(200);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(({} as Record<string, unknown>).limit).to.equal(undefined);
  });
});

describe('__proto__ and constructor keys in JSON bodies', () => {
  it('when a body carries them at any depth, then the parsed input has neither and no prototype is touched', async () => {
    const schema = z.object({ name: z.string(), contact: z.object({ email: z.string() }) });
    const app = express();
    app.post('/x', jsonBody, (req, res) => {
      const parsed = parseBody(schema, req);
      res.json({
        keys: Object.keys(parsed),
        contactKeys: Object.keys(parsed.contact),
        protoIsObject: Object.getPrototypeOf(parsed) === Object.prototype,
        isAdmin: (parsed as Record<string, unknown>).isAdmin ?? null,
        contactIsAdmin: (parsed.contact as Record<string, unknown>).isAdmin ?? null,
      });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const body =
        '{"name":"n","__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}},' +
        '"contact":{"email":"e@x","__proto__":{"isAdmin":true}}}';
      const res = await fetch(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/x`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(await res.json()).to.deep.equal({
        keys: ['name', 'contact'],
        contactKeys: ['email'],
        protoIsObject: true,
        isAdmin: null,
        contactIsAdmin: null,
      });
      expect(({} as Record<string, unknown>).isAdmin).to.equal(undefined);
    } finally {
      server.close();
    }
  });
});

describe('requests the HTTP parser refuses', () => {
  let running: RunningServer;
  let port: number;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1' });
    const service = await openService(config, silentLog, { db: await testDatabase() });
    running = await listen(service, config, log);
    port = Number(new URL(running.url).port);
  });
  after(async () => {
    running.server.closeAllConnections();
    await new Promise<void>((r) => running.server.close(() => r()));
    await running.service.close();
  });

  it('when the method is unknown or the framing is a smuggling shape, then the answer carries a request id (header and body) and leaves one log line with it', async () => {
    const attempts = [
      'FLY / HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd',
      'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n',
    ];
    for (const attempt of attempts) {
      const before = lines.length;
      const res = await raw(port, attempt);
      const what = JSON.stringify(attempt);
      expect(statusOf(res), what).to.equal(400);
      const header = /\r\nX-Request-Id: (\S+)\r\n/i.exec(res)?.[1];
      expect(header, what).to.match(/^req_[A-Za-z0-9_-]{16}$/);
      expect(bodyOf(res).requestId, what).to.equal(header);
      const logged = lines.slice(before).filter((l) => l.requestId === header);
      expect(logged, what).to.have.length(1);
      expect(logged[0]).to.include({ status: 400, msg: 'request' });
    }
  });
});
