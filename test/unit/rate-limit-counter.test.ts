import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { MemoryStore } from 'express-rate-limit';
import { createRateLimits, WindowCounter } from '../../src/adapters/http/rate-limits.js';
import { requestId } from '../../src/adapters/http/request-context.js';

const RULES = {
  public: { limit: 2, windowSeconds: 60 },
  booking: { limit: 2, windowSeconds: 60 },
  login: { limit: 2, windowSeconds: 60 },
  token: { limit: 2, windowSeconds: 60 },
  delegated: { limit: 2, windowSeconds: 60 },
  payments: { limit: 2, windowSeconds: 60 },
};

/** A server whose one route is behind the public limiter, counted in memory or in a store. */
async function serve(inProcess: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const limits = createRateLimits({ enabled: true, rules: RULES, store: () => (inProcess ? undefined : new MemoryStore()) });
  const app = express();
  app.use(requestId);
  app.get('/x', limits.public, (_req, res) => {
    res.json({ ok: true });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const RATE_HEADERS = ['ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'content-type'];

async function answers(url: string): Promise<Array<{ status: number; headers: Record<string, string | null>; body: unknown }>> {
  const out = [];
  for (let i = 0; i < 3; i += 1) {
    const res = await fetch(url);
    const body = (await res.json()) as Record<string, unknown>;
    delete body.requestId;
    out.push({ status: res.status, headers: Object.fromEntries(RATE_HEADERS.map((h) => [h, res.headers.get(h)])), body });
  }
  return out;
}

describe('request-rate limits counted in this process', () => {
  it('when a client goes over the limit, then the answers are those of express-rate-limit with its memory store', async () => {
    const [own, reference] = await Promise.all([serve(true), serve(false)]);
    try {
      const [got, expected] = await Promise.all([answers(own.url), answers(reference.url)]);
      expect(got.map((a) => a.status)).to.deep.equal([200, 200, 429]);
      expect(got[2]!.headers).to.include({ 'ratelimit-policy': '2;w=60', 'ratelimit-remaining': '0', 'retry-after': '60' });
      expect(got).to.deep.equal(expected);
    } finally {
      await Promise.all([own.close(), reference.close()]);
    }
  });

  it('when a window ends, then the key counts from 1 again, and a key unseen for two windows is forgotten', () => {
    const counter = new WindowCounter(1000);
    const t0 = Date.now();
    expect(counter.increment('k', t0).hits).to.equal(1);
    expect(counter.increment('k', t0 + 500).hits).to.equal(2);
    expect(counter.get('k', t0 + 999)?.hits).to.equal(2);
    expect(counter.get('k', t0 + 1000)).to.equal(undefined);
    expect(counter.increment('k', t0 + 1000)).to.deep.equal({ hits: 1, resetAt: t0 + 2000 });
    // Another key keeps its open window across a rotation of the generations.
    counter.increment('other', t0 + 1900);
    expect(counter.get('other', t0 + 2100)?.hits).to.equal(1);
    expect(counter.get('k', t0 + 5000)).to.equal(undefined);
    expect(counter.increment('k', t0 + 5000).hits).to.equal(1);
  });
});
