import { expect } from 'chai';
import { orderRecord } from '../support/booking-builders.js';
import { Webhook } from 'standardwebhooks';
import { AesGcmSecretSealer } from '../../src/adapters/crypto/secret-sealer.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { WebhookDeliveryWorker } from '../../src/adapters/webhooks/delivery-worker.js';
import { webhookSignature } from '../../src/adapters/webhooks/sender.js';
import { DnsWebhookUrlGuard } from '../../src/adapters/webhooks/url-guard.js';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { retryDelayAfter } from '../../src/domain/webhooks/endpoint.js';
import { orderChanged } from '../../src/domain/webhooks/events.js';
import { silentLog } from '../support/app.js';
import { eventually } from '../support/builders.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { reasonOf } from '../support/errors.js';
import { randomBytes } from 'node:crypto';

const order = orderRecord;

describe('webhook URL guard', () => {
  const strict = (answers: Record<string, string[]>) =>
    new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: false }, async (host) =>
      (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

  it('when a name resolves only to public addresses, then it passes and the first address is the one to connect to', async () => {
    expect(await strict({ 'hooks.example': ['93.184.216.34', '2606:2800:220:1::1'] }).check('https://hooks.example/in')).to.deep.equal({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('when any address of the name is private, loopback, link-local or mapped loopback, then invalid-webhook-url', async () => {
    for (const bad of ['10.0.0.5', '127.0.0.1', '169.254.169.254', '::ffff:127.0.0.1', 'fe80::1', '100.64.1.1', '192.0.2.1']) {
      expect(await reasonOf(strict({ 'hooks.example': ['93.184.216.34', bad] }).check('https://hooks.example/in')), bad).to.equal(
        'invalid-webhook-url',
      );
    }
  });

  it('when a name does not resolve, then invalid-webhook-url', async () => {
    expect(await reasonOf(strict({}).check('https://nowhere.example/in'))).to.equal('invalid-webhook-url');
  });
});

describe('webhook delivery worker', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => receiver.close());

  const setUp = async (resolve: (host: string) => Promise<Array<{ address: string; family: number }>>) => {
    const store = new MemoryWebhookStore(new SystemClock());
    const sealer = new AesGcmSecretSealer(randomBytes(32));
    const guard = new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: true }, resolve);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const port = new URL(receiver.url).port;
    await store.createEndpoint(
      {
        id: 'whe_1',
        owner: { kind: 'agent', id: 'agt_1' },
        url: `http://hooks.example:${port}/in`,
        events: ['order.confirmed'],
        description: null,
        status: 'active',
        createdAt: new Date(),
        sealedSecret: sealer.seal(secret),
      },
      10,
    );
    const worker = new WebhookDeliveryWorker(
      store,
      sealer,
      guard,
      { schedule: [60], pollMs: 50, concurrency: 4, timeoutMs: 10_000, leaseSeconds: 60 },
      silentLog,
    );
    return { store, worker, secret };
  };

  it('when the name resolves to the checked address, then the connection goes to that address (not to a second lookup) and the delivery verifies', async () => {
    const { store, worker, secret } = await setUp(async () => [{ address: '127.0.0.1', family: 4 }]);
    store.record([orderChanged(order('agt_1'), null, new Date())]);
    worker.start();
    try {
      // `hooks.example` exists in no DNS: the request can only arrive through the pinned address.
      await eventually(async () => receiver.received.length === 1, 5_000, 'delivery');
    } finally {
      await worker.stop();
    }
    const w = receiver.received[0]!;
    expect(w.headers.host).to.match(/^hooks\.example:/);
    expect((new Webhook(secret).verify(w.body, w.headers) as { type: string }).type).to.equal('order.confirmed');
  });

  it('when the name resolves to a forbidden address at delivery time (DNS rebinding), then nothing is sent and the attempt is retried later', async () => {
    let rebound = false;
    const { store, secret } = await setUp(async () => [{ address: rebound ? '127.0.0.1' : '93.184.216.34', family: 4 }]);
    const strictGuard = new DnsWebhookUrlGuard({ allowInsecure: true, allowPrivate: false }, async () => [
      { address: rebound ? '127.0.0.1' : '93.184.216.34', family: 4 },
    ]);
    expect(await strictGuard.check('http://hooks.example/in')).to.deep.equal({ address: '93.184.216.34', family: 4 });
    rebound = true;
    store.record([orderChanged(order('agt_1'), null, new Date())]);
    const claims = await store.claimDue(10, 60);
    expect(claims).to.have.length(1);
    // The worker's guard is the strict one now: the rebound name is refused before any connection.
    const worker = new WebhookDeliveryWorker(
      store,
      { seal: (s) => s, open: () => secret },
      strictGuard,
      { schedule: [60, 60], pollMs: 50, concurrency: 4, timeoutMs: 10_000, leaseSeconds: 60 },
      silentLog,
    );
    await store.finish(claims[0]!, { delivered: false, statusCode: null, retryInSeconds: 0 });
    worker.start();
    await new Promise((r) => setTimeout(r, 500));
    await worker.stop();
    expect(receiver.received).to.have.length(0);
    const [delivery] = (await store.listDeliveries({ kind: 'agent', id: 'agt_1' }, 'whe_1', null, 10))!;
    expect(delivery).to.include({ status: 'pending', attempts: 2, lastStatusCode: null });
  });

  it('when the signature is computed, then it is the Standard Webhooks v1 HMAC the library accepts', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"type":"order.confirmed"}';
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': webhookSignature(secret, 'evt_1', ts, body),
    };
    expect(new Webhook(secret).verify(body, headers)).to.deep.equal({ type: 'order.confirmed' });
  });

  it('when attempts fail, then the schedule gives n + 1 attempts in all', () => {
    expect([1, 2, 3].map((n) => retryDelayAfter(n, [5, 300]))).to.deep.equal([5, 300, null]);
  });

  it('when a sealed secret is opened with another key or altered, then it fails', () => {
    const a = new AesGcmSecretSealer(randomBytes(32));
    const sealed = a.seal('whsec_abc');
    expect(a.open(sealed)).to.equal('whsec_abc');
    expect(() => new AesGcmSecretSealer(randomBytes(32)).open(sealed)).to.throw(/another key/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_abd').toString('base64url');
    expect(() => a.open(parts.join('.'))).to.throw();
  });
});
