import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { buildOperator, buildTransferRoute, type TestTransferRoute } from '../../src/testing/fixtures.js';
import type { SigningKeyRing } from '../../src/adapters/jose/signing-keys.js';
import { expectResponseMatchesSpec } from '../support/openapi.js';

type Body = Record<string, any>;
const run = promisify(execFile);

/** Whether poppler's `pdftoppm` is installed (Debian `poppler-utils`; `.ci/run` installs it). */
const hasPdftoppm = async (): Promise<boolean> =>
  run('pdftoppm', ['-v']).then(
    () => true,
    () => false,
  );

/** Every page of a PDF rendered to PNG by poppler, at `dpi`. */
async function pagesOf(pdf: Buffer, dpi = 150, keep?: string): Promise<PNG[]> {
  const dir = await mkdtemp(join(tmpdir(), 'voucher-'));
  try {
    await writeFile(join(dir, 'v.pdf'), pdf);
    await run('pdftoppm', ['-png', '-r', String(dpi), join(dir, 'v.pdf'), join(dir, 'page')]);
    const files = (await readdir(dir)).filter((f) => f.startsWith('page') && f.endsWith('.png')).sort();
    if (keep !== undefined && files[0] !== undefined) await writeFile(keep, await readFile(join(dir, files[0])));
    return Promise.all(files.map(async (f) => PNG.sync.read(await readFile(join(dir, f)))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of a PDF as poppler's pdftotext reads it (layout kept), to check what a person reads on the page. */
async function textOf(pdf: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voucher-'));
  try {
    await writeFile(join(dir, 'v.pdf'), pdf);
    return (await run('pdftotext', ['-layout', join(dir, 'v.pdf'), '-'])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text a QR code in the image holds, or null when none is found. */
const qrIn = (png: PNG): string | null =>
  jsQR.default(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength), png.width, png.height)?.data ?? null;

/** Vouchers (CONTRACT §6.5) through the real app, on the test database and in memory. */
for (const mode of ['database', 'memory'] as const) {
  describe(`vouchers over HTTP (${mode})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let agent: TestAgent;
    let stranger: TestAgent;
    let route: TestTransferRoute;
    let operatorKey: string;
    let otherOperatorKey: string;
    const pickupAt = `${dateAhead(25)}T03:00:00.000Z`;
    const contact = { name: 'Malee Srisuk', email: 'malee@example.com' };
    const passengers = [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }];

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body; res: Response }> => {
      const res = await app.request(path, init);
      const type = res.headers.get('content-type') ?? '';
      const body = (type.includes('json') ? await res.json() : { bytes: Buffer.from(await res.arrayBuffer()) }) as Body;
      return { status: res.status, body, res };
    };
    const asKey = (key: string, extra: Record<string, string> = {}) => ({ 'X-API-KEY': key, ...extra });
    const voucherJson = (orderId: string, key = agent.apiKey) =>
      call(`/api/v1/orders/${orderId}/voucher`, { headers: asKey(key, { Accept: 'application/json' }) });
    const redeem = (code: string, key = operatorKey, headers: Record<string, string> = {}) =>
      call('/operator/v1/vouchers/redeem', json('POST', { code }, asKey(key, headers)));
    /** A PENDING order of the on-request operator, for two passengers. */
    const pending = async (): Promise<Body> => {
      const q = await call(
        '/api/v1/airport-transfer/quotes',
        json(
          'POST',
          { fromLocationId: route.fromLocationId, toLocationId: route.toLocationId, pickupAt, passengers: 2 },
          asKey(agent.apiKey),
        ),
      );
      expect(q.status, JSON.stringify(q.body)).to.equal(201);
      const o = await call('/api/v1/orders', json('POST', { quoteId: q.body.id, contact, passengers }, asKey(agent.apiKey)));
      expect(o.body.status, JSON.stringify(o.body)).to.equal('PENDING');
      return o.body;
    };
    /** A CONFIRMED order: pending, then confirmed by its operator with its reference. */
    const confirmed = async (): Promise<Body> => {
      const order = await pending();
      const c = await call(`/operator/v1/orders/${order.id}/confirm`, json('POST', { operatorReference: 'SAT-20417' }, asKey(operatorKey)));
      expect(c.body.status, JSON.stringify(c.body)).to.equal('CONFIRMED');
      return order;
    };
    const jwks = async (): Promise<JSONWebKeySet> => {
      const r = await call('/.well-known/jwks.json');
      expect(r.status).to.equal(200);
      return r.body as JSONWebKeySet;
    };

    before(async () => {
      app = await startTestApp({
        memory: mode === 'memory',
        env: { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_WORKER: 'off' },
      });
      await app.service.core.catalogue.seed.execute();
      route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 50, operator: { confirmation: 'on-request' } });
      const other = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 1 });
      operatorKey = (await app.service.core.admin.issueOperatorKey.execute(route.operator.code)).apiKey;
      otherOperatorKey = (await app.service.core.admin.issueOperatorKey.execute(other.operator.code)).apiKey;
      agent = await buildAgent(app.service);
      stranger = await buildAgent(app.service);
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    it('when the order is not confirmed yet, then 409 voucher-not-available; another agent’s order is 404', async () => {
      const order = await pending();
      const early = await call(`/api/v1/orders/${order.id}/voucher`, { headers: asKey(agent.apiKey) });
      expect([early.status, early.body.reason]).to.deep.equal([409, 'voucher-not-available']);
      expect((await voucherJson(order.id)).body.reason).to.equal('voucher-not-available');
      await call(`/operator/v1/orders/${order.id}/confirm`, json('POST', { operatorReference: 'SAT-1' }, asKey(operatorKey)));
      const other = await voucherJson(order.id, stranger.apiKey);
      expect([other.status, other.body.reason]).to.deep.equal([404, 'order-not-found']);
      const pdf = await call(`/api/v1/orders/${order.id}/voucher`, { headers: asKey(stranger.apiKey) });
      expect([pdf.status, pdf.body.reason]).to.deep.equal([404, 'order-not-found']);
    });

    it('when a confirmed order’s voucher is fetched, then a one-page PDF by default and its data as JSON', async () => {
      const order = await confirmed();
      const pdf = await call(`/api/v1/orders/${order.id}/voucher`, { headers: asKey(agent.apiKey) });
      expect(pdf.status).to.equal(200);
      expect(pdf.res.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(pdf.res.headers.get('cache-control')).to.equal('no-store');
      expect((pdf.body.bytes as Buffer).subarray(0, 5).toString('latin1')).to.equal('%PDF-');
      const pages = (pdf.body.bytes as Buffer).toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? [];
      expect(pages).to.have.length(1);

      // Both answers are as the published file documents them.
      const path = `/api/v1/orders/${order.id}/voucher`;
      await expectResponseMatchesSpec('getVoucher', await app.request(path, { headers: asKey(agent.apiKey) }));
      await expectResponseMatchesSpec(
        'getVoucher',
        await app.request(path, { headers: asKey(agent.apiKey, { Accept: 'application/json' }) }),
      );
      const data = await voucherJson(order.id);
      expect(data.status, JSON.stringify(data.body)).to.equal(200);
      expect(Object.keys(data.body).sort()).to.deep.equal(['code', 'format', 'livemode', 'orderId', 'qr', 'validFrom', 'validUntil']);
      expect(data.body).to.include({ orderId: order.id, format: 'QR' });
      expect(data.body.code.split('.')).to.have.length(3);
      expect(Date.parse(data.body.validUntil)).to.be.greaterThan(Date.parse(pickupAt));
      expect(Date.parse(data.body.validFrom)).to.be.at.most(Date.now() + 1000);
      // The QR image is a PNG data URL that decodes to the code itself.
      expect(data.body.qr).to.match(/^data:image\/png;base64,/);
      const png = PNG.sync.read(Buffer.from(data.body.qr.slice('data:image/png;base64,'.length), 'base64'));
      expect(qrIn(png)).to.equal(data.body.code);
    });

    it('when a scanner verifies the code with jose against the served JWKS only, then its header and claims are as published', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const keys = await jwks();
      const { payload, protectedHeader } = await jwtVerify(code, createLocalJWKSet(keys), { typ: 'voucher+jwt' });
      expect(protectedHeader.typ).to.equal('voucher+jwt');
      expect(keys.keys.map((k) => k.kid)).to.include(protectedHeader.kid);
      expect(keys.keys.find((k) => k.kid === protectedHeader.kid)?.alg).to.equal(protectedHeader.alg);
      expect(Object.keys(payload).sort()).to.deep.equal(['iat', 'oid', 'op', 'pax', 'sta']);
      expect(payload).to.include({ oid: order.id, op: route.operator.code, pax: 2, sta: Date.parse(pickupAt) / 1000 });
      expect(payload.iat).to.be.closeTo(Math.floor(Date.now() / 1000), 60);
      // An altered payload does not verify: the scanner refuses it offline too.
      const [h, , s] = code.split('.');
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, pax: 9 })).toString('base64url')}.${s}`;
      let refused = false;
      await jwtVerify(forged, createLocalJWKSet(keys), { typ: 'voucher+jwt' }).catch(() => (refused = true));
      expect(refused).to.equal(true);
    });

    it('when the operator redeems a voucher, then 200 once with the passengers, 409 the second time, 404 for another operator', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const other = await redeem(code, otherOperatorKey);
      expect([other.status, other.body.reason]).to.deep.equal([404, 'order-not-found']);
      const first = await redeem(code);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.deep.equal({ orderId: order.id, redeemedAt: first.body.redeemedAt, passengers, livemode: true });
      expect(Date.parse(first.body.redeemedAt)).to.be.closeTo(Date.now(), 10_000);
      const again = await redeem(code);
      expect([again.status, again.body.reason]).to.deep.equal([409, 'voucher-already-redeemed']);
      const documented = await app.request('/operator/v1/vouchers/redeem', json('POST', { code }, asKey(operatorKey)));
      await expectResponseMatchesSpec('redeemVoucher', documented);
      // Another code of the same order (signed later) is the same voucher.
      const later = (await voucherJson(order.id)).body.code as string;
      expect((await redeem(later)).body.reason).to.equal('voucher-already-redeemed');
    });

    it('when a code is altered, forged, unparseable or of another typ, then 400 invalid-voucher and nothing is redeemed', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const [h, p, s] = code.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Body;
      const altered = `${h}.${Buffer.from(JSON.stringify({ ...claims, pax: 5 })).toString('base64url')}.${s}`;
      const flipped = `${h}.${p}.${s.slice(0, -2)}${s.slice(-2) === 'AA' ? 'AB' : 'AA'}`;
      const header = decodeProtectedHeader(code);
      // Signed with the service's own key, but as a wallet access token: never a voucher.
      const ring = app.service.ports.signingKeys as unknown as SigningKeyRing;
      const { key } = await ring.current();
      const otherTyp = await new SignJWT(claims).setProtectedHeader({ alg: header.alg!, kid: header.kid!, typ: 'at+jwt' }).sign(key);
      const foreign = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: header.kid!, typ: 'voucher+jwt' })
        .sign(new TextEncoder().encode('a secret anyone could choose, 32+ bytes long'));
      for (const bad of [altered, flipped, otherTyp, foreign, 'not-a-code', `${h}.${p}`]) {
        const r = await redeem(bad);
        expect([r.status, r.body.reason], bad).to.deep.equal([400, 'invalid-voucher']);
      }
      expect((await redeem(code)).status).to.equal(200);
    });

    it('when the order is cancelled, then its voucher is void: 410 voucher-void, and no voucher is served', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const cancelled = await call(`/api/v1/orders/${order.id}/cancel`, json('POST', {}, asKey(agent.apiKey)));
      expect(cancelled.body.status, JSON.stringify(cancelled.body)).to.equal('CANCELLED');
      const r = await redeem(code);
      expect([r.status, r.body.reason]).to.deep.equal([410, 'voucher-void']);
      expect((await voucherJson(order.id)).body.reason).to.equal('voucher-not-available');
    });

    it('when a voucher is redeemed, then the agent’s endpoint gets order.voucher_redeemed for that order, once', async () => {
      const endpoint = await call(
        '/api/v1/webhook-endpoints',
        json('POST', { url: 'http://127.0.0.1:9/hooks/vouchers', events: ['order.voucher_redeemed'] }, asKey(agent.apiKey)),
      );
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      expect((await redeem(code)).status).to.equal(200);
      expect((await redeem(code)).status).to.equal(409);
      const deliveries = await call(`/api/v1/webhook-endpoints/${endpoint.body.id}/deliveries`, { headers: asKey(agent.apiKey) });
      expect(deliveries.body.data.map((d: Body) => d.type)).to.deep.equal(['order.voucher_redeemed']);
      const log = app.service.ports.webhooks as unknown as {
        eventsFor?: (o: { kind: 'agent'; id: string }) => Promise<Array<{ type: string; body: string }>>;
      };
      if (log.eventsFor !== undefined) {
        const events = (await log.eventsFor({ kind: 'agent', id: agent.agentId })).filter((e) => e.type === 'order.voucher_redeemed');
        expect(events).to.have.length(1);
        const sent = JSON.parse(events[0]!.body) as Body;
        expect(sent.data).to.include({ id: order.id, status: 'CONFIRMED', previousStatus: 'CONFIRMED' });
        expect(sent.data.voucherRedeemedAt).to.be.a('string');
      }
      await call(`/api/v1/webhook-endpoints/${endpoint.body.id}`, { method: 'DELETE', headers: asKey(agent.apiKey) });
    });

    it('when a redeem is retried with its Idempotency-Key, then the first answer is replayed, not a 409', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const key = { 'Idempotency-Key': `redeem-${order.id}` };
      const first = await redeem(code, operatorKey, key);
      expect(first.status).to.equal(200);
      const retry = await redeem(code, operatorKey, key);
      expect(retry.status).to.equal(200);
      expect(retry.res.headers.get('idempotent-replayed')).to.equal('true');
      expect(retry.body).to.deep.equal(first.body);
    });

    it('when the signing key is rotated, then a voucher signed before still verifies against the JWKS and redeems', async () => {
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const before = decodeProtectedHeader(code).kid;
      const rotated = await app.service.core.admin.rotateSigningKey.execute();
      expect(rotated.previousKid).to.equal(before);
      const fresh = (await voucherJson(order.id)).body.code as string;
      expect(decodeProtectedHeader(fresh).kid).to.equal(rotated.kid);
      await jwtVerify(code, createLocalJWKSet(await jwks()), { typ: 'voucher+jwt' });
      expect((await redeem(code)).status).to.equal(200);
    });

    it('when the PDF is rendered to an image, then it is one page whose QR code decodes to the voucher’s code', async function () {
      if (!(await hasPdftoppm())) {
        // Only this check needs poppler; `.ci/run` installs it (Debian poppler-utils). The title says why it was skipped.
        this.test!.title += ' (skipped: pdftoppm is not installed; apt-get install poppler-utils)';
        this.skip();
      }
      const order = await confirmed();
      const pdf = await call(`/api/v1/orders/${order.id}/voucher`, { headers: asKey(agent.apiKey) });
      const pages = await pagesOf(pdf.body.bytes as Buffer, 150, mode === 'database' ? join(tmpdir(), 'voucher-1.png') : undefined);
      expect(pages).to.have.length(1);
      // A4 at 150 dpi: about 1240 × 1754 pixels.
      expect(pages[0]!.width).to.be.closeTo(1240, 2);
      expect(pages[0]!.height).to.be.closeTo(1754, 2);
      const code = qrIn(pages[0]!);
      expect(code, 'a QR code on the page').to.be.a('string');
      const keys = createLocalJWKSet(await jwks());
      const { payload } = await jwtVerify(code!, keys, { typ: 'voucher+jwt' });
      expect(payload).to.include({ oid: order.id, op: route.operator.code, pax: 2 });
      // What a person reads: the trip, the pickup in the operator's zone (03:00 UTC is 10:00 in
      // Bangkok), the passengers, the operator and its reference, the order.
      const text = await textOf(pdf.body.bytes as Buffer);
      for (const seen of [
        'Travel voucher',
        'Airport transfer',
        `Fleet Test Point ${route.operator.code.slice('TEST-T-'.length)} A`,
        'PICKUP',
        '10:00',
        'local time, Asia/Bangkok (UTC+07:00)',
        '1. Malee Srisuk',
        '2. Anan Srisuk',
        route.operator.name,
        'SAT-20417',
        order.id,
      ]) {
        expect(text, seen).to.include(seen);
      }
    });

    it('when a bus order’s page is read, then it names the cities, the departure in the operator’s zone and the arrival', async function () {
      if (!(await hasPdftoppm())) {
        this.test!.title += ' (skipped: pdftotext is not installed; apt-get install poppler-utils)';
        this.skip();
      }
      const schedule = await buildSchedule(app.service.ports.catalogue, {
        seatCapacity: 5,
        operator: buildOperator({ timezone: 'Asia/Bangkok' }),
      });
      const date = dateAhead(21);
      const q = await call(
        '/api/v1/express-bus/quotes',
        json('POST', { tripId: tripIdOf(schedule, date), passengers: 2 }, asKey(agent.apiKey)),
      );
      expect(q.status, JSON.stringify(q.body)).to.equal(201);
      const o = await call('/api/v1/orders', json('POST', { quoteId: q.body.id, contact, passengers }, asKey(agent.apiKey)));
      expect(o.body.status, JSON.stringify(o.body)).to.equal('CONFIRMED');
      const pdf = await call(`/api/v1/orders/${o.body.id}/voucher`, { headers: asKey(agent.apiKey) });
      expect(pdf.status).to.equal(200);
      const text = await textOf(pdf.body.bytes as Buffer);
      for (const seen of [
        'Express bus',
        'Bangkok',
        'Pattaya',
        'DEPARTURE',
        '10:00',
        'local time, Asia/Bangkok (UTC+07:00)',
        'ARRIVAL',
        '12:30',
        schedule.operator.name,
      ]) {
        expect(text, seen).to.include(seen);
      }
    });

    it('when ten redeems of one code race, then exactly one is 200 and the rest 409', async function () {
      if (mode === 'database' && app.service.db?.target.kind !== 'postgres') {
        // PGlite has one connection: it cannot show contention; the real server does.
        this.skip();
      }
      const order = await confirmed();
      const { code } = (await voucherJson(order.id)).body as { code: string };
      const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(code)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).to.deep.equal([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.reason === 'voucher-already-redeemed')).to.equal(true);
    });
  });
}
