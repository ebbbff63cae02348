import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { WebhookDeliveryWorker } from '../../src/adapters/webhooks/delivery-worker.js';
import { addressRefusal, DnsWebhookUrlGuard, type Resolve } from '../../src/adapters/webhooks/url-guard.js';
import { type EventOwner, orderChanged } from '../../src/domain/webhooks/events.js';
import { silentLog } from '../support/app.js';
import { orderRecord } from '../support/booking-builders.js';
import { eventually } from '../support/builders.js';
import { startDnsStub, type DnsStub } from '../support/dns-server.js';
import { reasonOf } from '../support/errors.js';

const agentA: EventOwner = { kind: 'agent', id: 'agt_A' };
const agentB: EventOwner = { kind: 'agent', id: 'agt_B' };

describe('webhook URL guard: addresses', () => {
  const strict = new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: false }, async () => []);
  const relaxed = new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: true }, async () => []);

  const refusedEverywhere = [
    // cloud metadata and host-services addresses, and IPv6 forms carrying them
    '169.254.169.254',
    '168.63.129.16',
    '100.100.100.200',
    '192.0.0.192',
    '169.254.170.2',
    'fd00:ec2::254',
    'fd20:ce::254',
    '::ffff:169.254.169.254',
    '::ffff:168.63.129.16',
    '::a9fe:a9fe',
    '64:ff9b::a83f:8110',
    '2002:a83f:8110::1',
  ];
  const refusedUnlessPrivate = [
    '::7f00:1', // [::127.0.0.1] as the URL parser writes it
    '::a00:1', // ::10.0.0.1, IPv4-compatible
    '::5db8:d822', // ::93.184.216.34: the whole deprecated ::/96 is refused
    '64:ff9b::a00:1', // NAT64 of a private address
    '64:ff9b::7f00:1',
    '2002:7f00:1::1', // 6to4
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '4000::1', // outside 2000::/3
    '100::1',
    '::1',
    '::',
    '127.0.0.1',
    '10.1.2.3',
    '::ffff:10.1.2.3',
    '100.64.0.1',
    '0.0.0.0',
    'fe80::1',
    'fc00::1',
  ];

  for (const address of refusedEverywhere) {
    it(`when a host is ${address}, then it is refused even with WEBHOOK_ALLOW_PRIVATE=on`, async () => {
      expect(addressRefusal(address, true), address).to.be.a('string');
      expect(addressRefusal(address, false), address).to.be.a('string');
      const url = `https://${address.includes(':') ? `[${address}]` : address}/in`;
      expect(await reasonOf(relaxed.check(url)), url).to.equal('invalid-webhook-url');
      expect(await reasonOf(strict.check(url)), url).to.equal('invalid-webhook-url');
    });
  }

  for (const address of refusedUnlessPrivate) {
    it(`when a host is ${address}, then it is refused unless private addresses are allowed`, async () => {
      expect(addressRefusal(address, false), address).to.be.a('string');
      expect(addressRefusal(address, true), address).to.equal(null);
    });
  }

  it('when the URL says [::127.0.0.1] or [::10.0.0.1], then invalid-webhook-url', async () => {
    for (const url of ['https://[::127.0.0.1]/in', 'https://[::10.0.0.1]/in', 'https://[::ffff:7f00:1]/in']) {
      expect(await reasonOf(strict.check(url)), url).to.equal('invalid-webhook-url');
    }
  });

  it('when a name resolves to a metadata address, then it is refused even with private addresses allowed', async () => {
    const guard = new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: true }, async () => [
      { address: '169.254.169.254', family: 4 },
    ]);
    expect(await reasonOf(guard.check('https://metadata.google.internal/computeMetadata/v1/'))).to.equal('invalid-webhook-url');
  });

  it('when an address is public unicast (IPv4, IPv6 in 2000::/3, mapped, NAT64 of a public address), then it passes', () => {
    for (const address of ['93.184.216.34', '2606:2800:220:1::1', '::ffff:93.184.216.34', '64:ff9b::5db8:d822', '8.8.8.8']) {
      expect(addressRefusal(address, false), address).to.equal(null);
    }
  });

  it('when the host is localhost or a name under it, then it is the loopback without a lookup', async () => {
    let asked = 0;
    const guard = new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: true }, async () => {
      asked += 1;
      return [];
    });
    expect(await guard.check('http://localhost:8080/in')).to.deep.equal({ address: '127.0.0.1', family: 4 });
    expect(await guard.check('http://hooks.localhost/in')).to.deep.equal({ address: '127.0.0.1', family: 4 });
    expect(asked).to.equal(0);
    expect(await reasonOf(new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: false }).check('https://localhost/in'))).to.equal(
      'invalid-webhook-url',
    );
  });
});

describe('webhook URL guard: lookups', function () {
  this.timeout(20_000);
  let dns: DnsStub;
  before(async () => {
    dns = await startDnsStub({
      'ok.test': { a: ['127.0.0.1'] },
      'slow.test': { a: ['127.0.0.1'], delayMs: 700 },
      'stall.test': 'stall',
      'stall2.test': 'stall',
    });
  });
  after(async () => dns.close());

  const guardOn = (dnsTimeoutMs: number) =>
    new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: true, dnsTimeoutMs, dnsServers: [dns.server] });

  it('when the name server answers, then the name resolves through it (A records first)', async () => {
    expect(await guardOn(2000).check('https://ok.test/in', { owner: agentA })).to.deep.equal({ address: '127.0.0.1', family: 4 });
  });

  it('when the name server never answers, then invalid-webhook-url within the DNS timeout', async () => {
    const started = Date.now();
    expect(await reasonOf(guardOn(500).check('https://stall.test/in', { owner: agentA }))).to.equal('invalid-webhook-url');
    expect(Date.now() - started).to.be.below(1_000);
  });

  it('when the caller gives less time than the DNS timeout, then the lookup ends at the caller’s time', async () => {
    const started = Date.now();
    expect(await reasonOf(guardOn(5000).check('https://stall.test/in', { owner: agentA, withinMs: 300 }))).to.equal('invalid-webhook-url');
    expect(Date.now() - started).to.be.below(800);
  });

  it('when one owner has many lookups stalled, then another owner’s lookup answers at once', async () => {
    const guard = guardOn(2500);
    const stalled = Array.from({ length: 8 }, (_, i) =>
      reasonOf(guard.check(`https://${i % 2 ? 'stall' : 'stall2'}.test/in`, { owner: agentA })).then(() => Date.now()),
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    expect(await guard.check('https://ok.test/in', { owner: agentB })).to.deep.equal({ address: '127.0.0.1', family: 4 });
    const tookB = Date.now() - started;
    const ended = await Promise.all(stalled);
    expect(tookB).to.be.below(500);
    // A's lookups were all still running while B's answered.
    expect(Math.min(...ended)).to.be.greaterThan(started + tookB);
  });

  it('when an owner starts more lookups than its slots, then at most two run at once and the rest wait their turn', async () => {
    let running = 0;
    let most = 0;
    const resolve: Resolve = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 50));
      running -= 1;
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const guard = new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: false, dnsTimeoutMs: 3000 }, resolve);
    const results = await Promise.all(Array.from({ length: 7 }, () => guard.check('https://hooks.example/in', { owner: agentA })));
    expect(results).to.have.length(7);
    expect(most).to.equal(2);
    // Other owners have slots of their own.
    await Promise.all(
      [agentA, agentB, { kind: 'tenant', id: 'agt_A' } as EventOwner].map((owner) => guard.check('https://h.example/', { owner })),
    );
    expect(most).to.equal(3);
  });
});

describe('webhook delivery: the lookup counts in the attempt’s time', function () {
  this.timeout(20_000);
  let dns: DnsStub;
  let server: http.Server;
  let port: number;
  let hits = 0;
  before(async () => {
    dns = await startDnsStub({ 'stall.test': 'stall', 'slow.test': { a: ['127.0.0.1'], delayMs: 700 }, 'ok.test': { a: ['127.0.0.1'] } });
    // Answers 200 after 600 ms.
    server = http.createServer((req, res) => {
      hits += 1;
      req.resume();
      setTimeout(() => res.end('ok'), 600);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dns.close();
  });

  const attemptTo = async (host: string) => {
    const store = new MemoryWebhookStore(new SystemClock());
    await store.createEndpoint(
      {
        id: 'whe_1',
        owner: agentA,
        url: `http://${host}:${port}/in`,
        events: ['order.confirmed'],
        description: null,
        status: 'active',
        createdAt: new Date(),
        sealedSecret: 'sealed',
      },
      10,
    );
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const guard = new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: true, dnsTimeoutMs: 5000, dnsServers: [dns.server] });
    const worker = new WebhookDeliveryWorker(
      store,
      { seal: (s) => s, open: () => secret },
      guard,
      { schedule: [3600], pollMs: 50, concurrency: 4, timeoutMs: 1000, leaseSeconds: 60 },
      silentLog,
    );
    store.record([orderChanged(orderRecord(agentA.id), null, new Date())]);
    worker.start();
    const latest = async () => (await store.listDeliveries(agentA, 'whe_1', null, 1))![0]!;
    let took: number;
    try {
      took = await eventually(async () => (await latest()).lastAttemptAt !== null, 5_000, 'the attempt is recorded');
    } finally {
      await worker.stop();
    }
    return { delivery: await latest(), took };
  };

  it('when the lookup stalls, then the attempt fails within the attempt’s time (not the longer DNS timeout) and is retried later', async () => {
    const { delivery, took } = await attemptTo('stall.test');
    expect(delivery).to.include({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(took).to.be.below(2_000);
  });

  it('when the lookup and the answer each fit but not together, then the attempt fails: one deadline for both', async () => {
    const before = hits;
    const { delivery } = await attemptTo('slow.test');
    expect(hits).to.equal(before + 1);
    expect(delivery).to.include({ status: 'pending', attempts: 1, lastStatusCode: null });
  });

  it('when the lookup is quick, then the same receiver’s answer within the time delivers', async () => {
    const { delivery } = await attemptTo('ok.test');
    expect(delivery).to.include({ status: 'delivered', attempts: 1, lastStatusCode: 200 });
  });
});
