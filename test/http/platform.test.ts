import { expect } from 'chai';
import { reasonIn } from '../support/errors.js';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonBody } from '../../src/adapters/http/request-guards.js';
import { errorHandler, notFoundHandler } from '../../src/adapters/http/errors.js';
import { requestId } from '../../src/adapters/http/request-context.js';
import { silentLog, startTestApp, type TestApp } from '../support/app.js';

describe('platform behaviour', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.stop());

  it('when the caller sends a sane X-Request-Id, then it is echoed; an insane one is replaced', async () => {
    const kept = await app.request('/healthz', { headers: { 'X-Request-Id': 'abc-123.X:y_z' } });
    expect(kept.headers.get('x-request-id')).to.equal('abc-123.X:y_z');
    const replaced = await app.request('/healthz', { headers: { 'X-Request-Id': 'a b<script>' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^req_/);
    const long = await app.request('/healthz', { headers: { 'X-Request-Id': 'x'.repeat(300) } });
    expect(long.headers.get('x-request-id')).to.match(/^req_/);
  });

  it('when /healthz and /readyz are called, then both answer 200 with the database up', async () => {
    expect((await app.request('/healthz')).status).to.equal(200);
    const ready = await app.request('/readyz');
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready' });
  });

  it('when an unknown root path is called, then 404 not-found problem+json', async () => {
    const res = await app.request('/nowhere');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(((await res.json()) as { reason: string }).reason).to.equal('not-found');
  });

  it('when any response is sent, then there is no X-Powered-By header', async () => {
    expect((await app.request('/healthz')).headers.get('x-powered-by')).to.equal(null);
  });
});

describe('JSON request bodies', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    const a = express();
    a.use(requestId);
    a.post('/echo', jsonBody, (req, res) => {
      res.json({ got: req.body });
    });
    a.use(notFoundHandler);
    a.use(errorHandler(silentLog));
    server = http.createServer(a);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const post = (body: string | undefined, type?: string) =>
    fetch(url, { method: 'POST', ...(type ? { headers: { 'content-type': type } } : {}), ...(body === undefined ? {} : { body }) });
  const reason = reasonIn;

  it('when the body is malformed JSON, then 400 malformed-json without parser detail', async () => {
    const res = await post('{"a":', 'application/json');
    expect(res.status).to.equal(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.reason).to.equal('malformed-json');
    expect(JSON.stringify(body)).not.to.match(/SyntaxError|at JSON|position/);
  });

  it('when the body is JSON but not an object (a scalar, null, an array), then 400 invalid-request at the root', async () => {
    for (const text of ['"text"', '42', 'true', 'null', '[]']) {
      const res = await post(text, 'application/json');
      expect(res.status, text).to.equal(400);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.reason, text).to.equal('invalid-request');
      expect(body.errors, text).to.deep.equal([{ path: '(root)', message: 'must be a JSON object' }]);
    }
  });

  it('when the body is not JSON, then 415 unsupported-media-type', async () => {
    const res = await post('a=1', 'application/x-www-form-urlencoded');
    expect(res.status).to.equal(415);
    expect(await reason(res)).to.equal('unsupported-media-type');
    expect((await post('{"a":1}', 'text/plain')).status).to.equal(415);
  });

  it('when the body is over 64 KiB, then 413 payload-too-large', async () => {
    const res = await post(JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), 'application/json');
    expect(res.status).to.equal(413);
    expect(await reason(res)).to.equal('payload-too-large');
  });

  it('when the body is just under the limit, then it is accepted', async () => {
    const res = await post(JSON.stringify({ pad: 'x'.repeat(60 * 1024) }), 'application/json');
    expect(res.status).to.equal(200);
  });

  it('when there is no body, then the route sees an empty object', async () => {
    const res = await post(undefined);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ got: {} });
  });

  it('when JSON with a charset or +json type is sent, then it is parsed', async () => {
    expect((await post('{"a":1}', 'application/json; charset=utf-8')).status).to.equal(200);
    expect((await post('{"a":1}', 'application/merge-patch+json')).status).to.equal(200);
  });
});
