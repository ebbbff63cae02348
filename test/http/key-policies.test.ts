import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';
import { BOOKING_OPERATIONS } from '../../src/adapters/http/operations.js';
import type { Scope } from '../../src/domain/identity/key-policy.js';
import { BOOKING_SECURITY_EVENT_TYPES } from '../../src/domain/security-events/security-event.js';
import { bodyWithLivemode } from '../../src/adapters/webhooks/payloads.js';

type Body = Record<string, any>;

/**
 * Restricted keys over HTTP on the test database (CONTRACT §5.1 and the booking half of §5.2):
 * scopes on every operation, keys that make and revoke keys, lineage on a leak, allowlists,
 * expiry, and the agent's security trail. The client's address is set with X-Forwarded-For
 * (`TRUST_PROXY` on).
 */
describe('key policies and the agent security trail over HTTP', () => {
  const clock = new ManualClock();
  let app: TestApp;
  /** Every plaintext key the service showed in this file, none of which may appear in a stored answer or event. */
  const shown: string[] = [];

  const call = async (method: string, path: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit =
      body === undefined
        ? { method, headers: { 'X-API-KEY': apiKey, ...headers } }
        : json(method, body, { 'X-API-KEY': apiKey, ...headers });
    const res = await app.request(path, init);
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Body, headers: res.headers };
  };
  const issue = async (agentId: string, scopes?: string[], allowedIps?: string[]) => {
    const key = await app.service.core.admin.issueApiKey.execute({
      agentId,
      ...(scopes === undefined ? {} : { scopes }),
      ...(allowedIps === undefined ? {} : { allowedIps }),
    });
    shown.push(key.apiKey);
    return { apiKey: key.apiKey, keyId: key.keyId };
  };
  const create = async (apiKey: string, body: Body, headers: Record<string, string> = {}) => {
    const r = await call('POST', '/api/v1/keys', apiKey, body, headers);
    if (typeof r.body.apiKey === 'string') shown.push(r.body.apiKey);
    return r;
  };
  const created = async (apiKey: string, scopes: string[] = ['*'], extra: Body = {}) => {
    const r = await create(apiKey, { name: `k-${unique()}`, scopes, ...extra });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return { apiKey: r.body.apiKey as string, keyId: r.body.key.id as string, key: r.body.key as Body };
  };
  const account = async (apiKey: string, from?: string) =>
    (await call('GET', '/api/v1/agent/account', apiKey, undefined, from === undefined ? {} : { 'X-Forwarded-For': from })).status;
  const events = async (apiKey: string, query = '') => {
    const r = await call('GET', `/api/v1/security-events${query}`, apiKey);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.data as Body[];
  };

  let schedule: BusSchedule;
  const date = dateAhead(20);

  before(async () => {
    app = await startTestApp({
      env: { TRUST_PROXY: '1', WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_WORKER: 'off' },
      clock,
    });
    schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 40, baseAmount: 12_345 });
  });
  after(async () => {
    clock.reset();
    if (app !== undefined) await dropTestSchedules(app.service.db!.knex);
    await app?.stop();
  });

  describe('scopes', () => {
    const pathOf = (template: string) => template.replace(/\{[^}]+\}/g, 'x_unknown1');
    const other = (scope: Scope): Scope => (scope === 'account:read' ? 'trips:read' : 'account:read');

    for (const op of BOOKING_OPERATIONS) {
      const scope = op.scope ?? null;
      if (scope === null) continue;
      it(`when ${op.method.toUpperCase()} ${op.path} is called with a key without ${scope}, then 403 insufficient-scope naming it; with it, the key passes`, async () => {
        const agent = await buildAgent(app.service);
        const without = await issue(agent.agentId, [other(scope)]);
        const withIt = await issue(agent.agentId, [scope]);
        const body = op.method === 'get' || op.method === 'delete' ? undefined : {};
        const refused = await call(op.method.toUpperCase(), pathOf(op.path), without.apiKey, body);
        expect([refused.status, refused.body.reason, refused.body.requiredScope]).to.deep.equal([403, 'insufficient-scope', scope]);
        const passed = await call(op.method.toUpperCase(), pathOf(op.path), withIt.apiKey, body);
        expect(passed.status, JSON.stringify(passed.body)).not.to.equal(403);
        expect(passed.status).not.to.equal(401);
      });
    }

    it('when a key holds one scope only, then it may still roll itself and report its own leak; the rolled key keeps its scopes and allowlist', async () => {
      const agent = await buildAgent(app.service);
      const narrow = await issue(agent.agentId, ['account:read'], ['203.0.113.0/24']);
      const rolled = await call('POST', '/api/v1/keys/current/roll', narrow.apiKey, {}, { 'X-Forwarded-For': '203.0.113.5' });
      expect(rolled.status, JSON.stringify(rolled.body)).to.equal(201);
      shown.push(rolled.body.apiKey);
      expect(rolled.body.key.scopes).to.deep.equal(['account:read']);
      expect(rolled.body.key.allowedIps).to.deep.equal(['203.0.113.0/24']);
      const leak = await call('POST', '/api/v1/keys/current/report-leak', rolled.body.apiKey, {}, { 'X-Forwarded-For': '203.0.113.5' });
      expect(leak.status, JSON.stringify(leak.body)).to.equal(200);
    });

    it('when a key holds quotes:write, then it still cannot quote a product its agent is not entitled to', async () => {
      const agent = await buildAgent(app.service, { products: ['express-bus'] });
      const key = await issue(agent.agentId, ['quotes:write']);
      const r = await call('POST', '/api/v1/airport-transfer/quotes', key.apiKey, {
        fromLocationId: 'loc_bkk',
        toLocationId: 'loc_bkk_silom',
        pickupAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        passengers: 1,
      });
      expect([r.status, r.body.reason]).to.deep.equal([403, 'not-entitled']);
    });
  });

  describe('POST /api/v1/keys and DELETE /api/v1/keys/{keyId}', () => {
    it('when a key creates a key, then 201 with the key once and its metadata: name, scopes, allowedIps, createdByKeyId', async () => {
      const agent = await buildAgent(app.service);
      const r = await create(agent.apiKey, {
        name: ' nightly report ',
        scopes: ['orders:read', 'orders:read'],
        allowedIps: ['203.0.113.7'],
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.apiKey).to.match(/^pbk_/);
      expect(r.body.key).to.include({ name: 'nightly report', createdByKeyId: agent.keyId, status: 'ACTIVE', revokedReason: null });
      expect(r.body.key.scopes).to.deep.equal(['orders:read']);
      expect(r.body.key.allowedIps).to.deep.equal(['203.0.113.7/32']);
      const listed = await call('GET', '/api/v1/keys', agent.apiKey);
      expect(listed.body.data.find((k: Body) => k.id === r.body.key.id)).to.deep.equal(r.body.key);
      expect(JSON.stringify(listed.body)).not.to.include(r.body.apiKey);
    });

    it('when a key asks for a scope it does not hold, then 403 scope-not-held; `*` only from a full key', async () => {
      const agent = await buildAgent(app.service);
      const manager = await issue(agent.agentId, ['keys:manage', 'orders:read']);
      for (const scopes of [['orders:write'], ['*'], ['orders:read', 'orders:cancel']]) {
        const r = await create(manager.apiKey, { name: 'x', scopes });
        expect([r.status, r.body.reason], JSON.stringify(scopes)).to.deep.equal([403, 'scope-not-held']);
      }
      expect((await create(manager.apiKey, { name: 'x', scopes: ['orders:read'] })).status).to.equal(201);
      expect((await create(agent.apiKey, { name: 'x', scopes: ['*'] })).status).to.equal(201);
      const bad = await create(agent.apiKey, { name: 'x', scopes: ['orders:fly'] });
      expect([bad.status, bad.body.reason]).to.deep.equal([400, 'invalid-request']);
    });

    it('when an agent holds 50 keys that are not revoked, then the 51st create answers 409 too-many-keys', async () => {
      const agent = await buildAgent(app.service);
      for (let i = 1; i < 50; i++) await created(agent.apiKey, ['account:read']);
      const r = await create(agent.apiKey, { name: 'one too many', scopes: ['account:read'] });
      expect([r.status, r.body.reason]).to.deep.equal([409, 'too-many-keys']);
    });

    it('when a create is retried with its Idempotency-Key, then the replay has the metadata without apiKey; another key of the agent with the same Idempotency-Key gets its own key', async () => {
      const agent = await buildAgent(app.service);
      const sibling = await issue(agent.agentId);
      const idem = { 'Idempotency-Key': `idem-${unique()}` };
      const body = { name: 'replayed', scopes: ['orders:read'] };
      const first = await create(agent.apiKey, body, idem);
      expect(first.status).to.equal(201);
      const replay = await create(agent.apiKey, body, idem);
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body).not.to.have.property('apiKey');
      expect(replay.body.key.id).to.equal(first.body.key.id);
      const theirs = await create(sibling.apiKey, body, idem);
      expect(theirs.status).to.equal(201);
      expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
      expect(theirs.body.apiKey).to.be.a('string').and.not.equal(first.body.apiKey);
      expect(theirs.body.key.id).not.to.equal(first.body.key.id);
      expect(theirs.body.key.createdByKeyId).to.equal(sibling.keyId);
    });

    it('when a key deletes a key it created, directly or through keys it created, then 204; itself, a sibling or another agent’s key answers 404', async () => {
      const agent = await buildAgent(app.service);
      const stranger = await buildAgent(app.service);
      const sibling = await issue(agent.agentId);
      const child = await created(agent.apiKey);
      const grandchild = await created(child.apiKey);
      for (const target of [agent.keyId, sibling.keyId, stranger.keyId, 'key_unknown']) {
        const r = await call('DELETE', `/api/v1/keys/${target}`, agent.apiKey);
        expect([r.status, r.body.reason], target).to.deep.equal([404, 'key-not-found']);
      }
      const up = await call('DELETE', `/api/v1/keys/${agent.keyId}`, child.apiKey);
      expect(up.status).to.equal(404);
      expect(await account(agent.apiKey)).to.equal(200);
      expect(await account(sibling.apiKey)).to.equal(200);
      expect(await account(stranger.apiKey)).to.equal(200);
      const del = await call('DELETE', `/api/v1/keys/${grandchild.keyId}`, agent.apiKey);
      expect(del.status).to.equal(204);
      expect(await account(grandchild.apiKey)).to.equal(401);
      const listed = await call('GET', '/api/v1/keys', agent.apiKey);
      expect(listed.body.data.find((k: Body) => k.id === grandchild.keyId)).to.include({ status: 'REVOKED', revokedReason: 'revoked' });
      expect((await call('DELETE', `/api/v1/keys/${child.keyId}`, agent.apiKey)).status).to.equal(204);
      expect(await account(child.apiKey)).to.equal(401);
    });

    it('when a key is reported leaked, then every key created from it or from keys rolled from it, at any depth, is revoked as leaked, and their orders cannot be cancelled', async () => {
      const agent = await buildAgent(app.service);
      const survivor = await issue(agent.agentId);
      const child = await created(agent.apiKey);
      const rolled = await call('POST', '/api/v1/keys/current/roll', child.apiKey, { overlapSeconds: 600 });
      expect(rolled.status).to.equal(201);
      shown.push(rolled.body.apiKey);
      const grandchild = await created(rolled.body.apiKey as string);
      const q = await call('POST', '/api/v1/express-bus/quotes', grandchild.apiKey, { tripId: tripIdOf(schedule, date), passengers: 1 });
      expect(q.status, JSON.stringify(q.body)).to.equal(201);
      const o = await call('POST', '/api/v1/orders', grandchild.apiKey, {
        quoteId: q.body.id,
        contact: { name: 'Malee S.', email: 'malee@example.com' },
      });
      expect(o.status, JSON.stringify(o.body)).to.equal(201);
      const orderId = o.body.id as string;
      const leak = await call('POST', '/api/v1/keys/current/report-leak', agent.apiKey, {});
      expect(leak.status).to.equal(200);
      for (const k of [agent.apiKey, child.apiKey, rolled.body.apiKey as string, grandchild.apiKey]) expect(await account(k)).to.equal(401);
      expect(await account(survivor.apiKey)).to.equal(200);
      const keys = (await call('GET', '/api/v1/keys', survivor.apiKey)).body.data as Body[];
      for (const id of [child.keyId, rolled.body.key.id as string, grandchild.keyId]) {
        expect(
          keys.find((k) => k.id === id),
          id,
        ).to.include({ status: 'REVOKED', revokedReason: 'leaked' });
      }
      const cancel = await call('POST', `/api/v1/orders/${orderId}/cancel`, survivor.apiKey, {});
      expect([cancel.status, cancel.body.reason]).to.deep.equal([409, 'booked-with-leaked-key']);
    });
  });

  describe('allowlists and expiry', () => {
    it('when a key allows IPv4 and IPv6 ranges, then requests from inside pass and from outside get 403 ip-not-allowed, roll and leak report included', async () => {
      const agent = await buildAgent(app.service);
      const pinned = await created(agent.apiKey, ['*'], { allowedIps: ['203.0.113.0/24', '2001:db8:1::/48'] });
      expect(await account(pinned.apiKey, '203.0.113.200')).to.equal(200);
      expect(await account(pinned.apiKey, '::ffff:203.0.113.9')).to.equal(200);
      expect(await account(pinned.apiKey, '2001:db8:1:ffff::42')).to.equal(200);
      for (const from of ['198.51.100.1', '203.0.114.1', '2001:db8:2::1', '::1']) {
        const r = await call('GET', '/api/v1/agent/account', pinned.apiKey, undefined, { 'X-Forwarded-For': from });
        expect([r.status, r.body.reason], from).to.deep.equal([403, 'ip-not-allowed']);
      }
      for (const action of ['roll', 'report-leak']) {
        const r = await call('POST', `/api/v1/keys/current/${action}`, pinned.apiKey, {}, { 'X-Forwarded-For': '198.51.100.1' });
        expect([r.status, r.body.reason], action).to.deep.equal([403, 'ip-not-allowed']);
      }
      expect(await account(pinned.apiKey, '203.0.113.1')).to.equal(200);
    });

    it('when a key’s expiresAt passes, then it answers 401 invalid-api-key', async () => {
      const agent = await buildAgent(app.service);
      const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
      const short = await created(agent.apiKey, ['account:read'], { expiresAt });
      expect(short.key.expiresAt).to.equal(expiresAt);
      expect(await account(short.apiKey)).to.equal(200);
      clock.advance(2 * 3_600_000);
      try {
        const r = await call('GET', '/api/v1/agent/account', short.apiKey);
        expect([r.status, r.body.reason]).to.deep.equal([401, 'invalid-api-key']);
      } finally {
        clock.advance(-2 * 3_600_000);
      }
    });

    it('when a key pinned to 127.0.0.1/32 and expiring in an hour creates a key with no allowlist and no expiry, then the new key has the creator’s; with none, wider or 2099, 403 policy-not-held naming the field', async () => {
      const agent = await buildAgent(app.service);
      const expiresAt = new Date(clock.now().getTime() + 3_600_000);
      const pinned = await app.service.core.admin.issueApiKey.execute({ agentId: agent.agentId, allowedIps: ['127.0.0.1/32'], expiresAt });
      shown.push(pinned.apiKey);
      const child = await created(pinned.apiKey, ['*']);
      expect(child.key.allowedIps).to.deep.equal(['127.0.0.1/32']);
      expect(child.key.expiresAt).to.equal(expiresAt.toISOString());
      expect(await account(child.apiKey, '127.0.0.2')).to.equal(403);
      const wider: Array<[Body, string]> = [
        [{ allowedIps: [] }, 'allowedIps'],
        [{ allowedIps: ['127.0.0.0/8'] }, 'allowedIps'],
        [{ allowedIps: ['127.0.0.1/32', '10.0.0.1'] }, 'allowedIps'],
        [{ allowedIps: ['::/0'] }, 'allowedIps'],
        [{ expiresAt: null }, 'expiresAt'],
        [{ expiresAt: '2099-01-01T00:00:00Z' }, 'expiresAt'],
        [{ expiresAt: new Date(expiresAt.getTime() + 1000).toISOString() }, 'expiresAt'],
      ];
      for (const [extra, field] of wider) {
        const r = await create(pinned.apiKey, { name: 'wider', scopes: ['orders:read'], ...extra });
        expect([r.status, r.body.reason, r.body.field], JSON.stringify(extra)).to.deep.equal([403, 'policy-not-held', field]);
      }
      // As narrow or narrower passes: the same range, its IPv4-mapped IPv6 form, an earlier expiry.
      const sooner = new Date(expiresAt.getTime() - 60_000).toISOString();
      const narrow = await created(pinned.apiKey, ['orders:read'], {
        allowedIps: ['127.0.0.1', '::ffff:127.0.0.1/128'],
        expiresAt: sooner,
      });
      expect(narrow.key.expiresAt).to.equal(sooner);
      const same = await created(pinned.apiKey, ['orders:read'], { expiresAt: expiresAt.toISOString() });
      expect(same.key.allowedIps).to.deep.equal(['127.0.0.1/32']);
      // The child's child holds it too.
      const grandchild = await create(child.apiKey, { name: 'x', scopes: ['orders:read'], allowedIps: ['127.0.0.0/24'] });
      expect([grandchild.status, grandchild.body.reason, grandchild.body.field]).to.deep.equal([403, 'policy-not-held', 'allowedIps']);
      expect((await call('GET', '/api/v1/keys', agent.apiKey)).body.data.filter((k: Body) => k.name === 'wider')).to.deep.equal([]);
    });

    it('when a key allows IPv4 and IPv6 ranges, then a key it creates may hold only ranges inside them', async () => {
      const agent = await buildAgent(app.service);
      const ranges = await issue(agent.agentId, ['*'], ['203.0.113.0/24', '2001:db8:1::/48']);
      const from = { 'X-Forwarded-For': '203.0.113.5' };
      const ask = (allowedIps: string[]) => create(ranges.apiKey, { name: `r-${unique()}`, scopes: ['account:read'], allowedIps }, from);
      for (const inside of [['203.0.113.128/25', '2001:db8:1:42::/64'], ['203.0.113.7'], ['::ffff:203.0.113.0/120'], ['2001:db8:1::1']]) {
        const r = await ask(inside);
        expect(r.status, `${JSON.stringify(inside)} ${JSON.stringify(r.body)}`).to.equal(201);
      }
      for (const outside of [
        ['203.0.112.0/23'],
        ['203.0.114.1'],
        ['2001:db8::/32'],
        ['2001:db8:2::/48'],
        ['203.0.113.0/24', '198.51.100.0/24'],
        ['::ffff:0:0/96'],
      ]) {
        const r = await ask(outside);
        expect([r.status, r.body.reason, r.body.field], JSON.stringify(outside)).to.deep.equal([403, 'policy-not-held', 'allowedIps']);
      }
      const inherited = await create(ranges.apiKey, { name: 'same', scopes: ['account:read'] }, from);
      expect(inherited.body.key.allowedIps).to.deep.equal(['203.0.113.0/24', '2001:db8:1::/48']);
      expect(inherited.body.key.expiresAt).to.equal(null);
    });

    it('when a key expiring sooner than a roll’s overlap is rolled, then previousKeyValidUntil is its own expiry, and the old key stops then', async () => {
      const agent = await buildAgent(app.service);
      const expiresAt = new Date(clock.now().getTime() + 600_000);
      const short = await app.service.core.admin.issueApiKey.execute({ agentId: agent.agentId, expiresAt });
      shown.push(short.apiKey);
      const r = await call('POST', '/api/v1/keys/current/roll', short.apiKey, { overlapSeconds: 3600 });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      shown.push(r.body.apiKey);
      expect(r.body.previousKeyValidUntil).to.equal(expiresAt.toISOString());
      expect(r.body.key.expiresAt).to.equal(expiresAt.toISOString());
      const listed = (await call('GET', '/api/v1/keys', agent.apiKey)).body.data.find((k: Body) => k.id === short.keyId);
      expect(listed).to.include({ status: 'ACTIVE', expiresAt: expiresAt.toISOString() });
      // A shorter overlap stays as asked.
      const other = await app.service.core.admin.issueApiKey.execute({ agentId: agent.agentId, expiresAt });
      const before = clock.now().getTime();
      const brief = await call('POST', '/api/v1/keys/current/roll', other.apiKey, { overlapSeconds: 60 });
      expect(Date.parse(brief.body.previousKeyValidUntil)).to.be.within(before + 60_000, before + 61_000);
    });
  });

  describe('GET /api/v1/security-events', () => {
    it('when an agent’s keys and endpoints change and a key is refused, then every booking event type is in its trail, with actor, subject, ip and request id', async () => {
      const agent = await buildAgent(app.service);
      const reader = await created(agent.apiKey, ['events:read']);
      const child = await created(agent.apiKey, ['account:read'], { allowedIps: ['203.0.113.0/24'] });
      // Refused: wrong address, then a scope it lacks.
      expect(await account(child.apiKey, '198.51.100.1')).to.equal(403);
      expect((await call('GET', '/api/v1/orders', child.apiKey, undefined, { 'X-Forwarded-For': '203.0.113.1' })).status).to.equal(403);
      const endpoint = await call('POST', '/api/v1/webhook-endpoints', agent.apiKey, {
        url: 'http://127.0.0.1:9/pbw',
        events: ['order.confirmed'],
      });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
      expect((await call('DELETE', `/api/v1/webhook-endpoints/${endpoint.body.id}`, agent.apiKey)).status).to.equal(204);
      expect((await call('DELETE', `/api/v1/keys/${child.keyId}`, agent.apiKey)).status).to.equal(204);
      const spare = await created(agent.apiKey);
      const rolled = await call('POST', '/api/v1/keys/current/roll', spare.apiKey, { overlapSeconds: 0 }, { 'X-Request-Id': 'req-roll-1' });
      expect(rolled.status).to.equal(201);
      shown.push(rolled.body.apiKey);
      expect((await call('POST', '/api/v1/keys/current/report-leak', rolled.body.apiKey, {})).status).to.equal(200);

      const trail = await events(reader.apiKey, '?limit=100');
      const types = new Set(trail.map((e) => e.type));
      for (const type of BOOKING_SECURITY_EVENT_TYPES) expect(types.has(type), type).to.equal(true);
      for (const e of trail) {
        expect(Object.keys(e).sort()).to.deep.equal([
          'actor',
          'details',
          'id',
          'ip',
          'livemode',
          'occurredAt',
          'requestId',
          'subject',
          'type',
        ]);
        expect(['api-key', 'operator', 'system']).to.include(e.actor.kind);
      }
      const roll = trail.find((e) => e.type === 'api_key.rolled')!;
      expect(roll).to.deep.include({
        actor: { kind: 'api-key', id: spare.keyId },
        subject: { kind: 'api_key', id: spare.keyId },
        requestId: 'req-roll-1',
      });
      const refusals = trail.filter((e) => e.type === 'api_key.refused');
      expect(refusals.map((e) => e.details.reason).sort()).to.deep.equal(['insufficient-scope', 'ip-not-allowed']);
      expect(refusals.find((e) => e.details.reason === 'ip-not-allowed')!.ip).to.equal('198.51.100.1');
      expect(refusals.find((e) => e.details.reason === 'insufficient-scope')!.details.requiredScope).to.equal('orders:read');
      const revoked = trail.filter((e) => e.type === 'api_key.revoked').map((e) => e.details.reason);
      expect(revoked).to.include.members(['revoked', 'rotated', 'leaked']);
      // Newest first, and the type filter.
      const times = trail.map((e) => Date.parse(e.occurredAt));
      expect(times).to.deep.equal([...times].sort((a, b) => b - a));
      const filtered = await events(reader.apiKey, '?type=webhook_endpoint.created,webhook_endpoint.deleted');
      expect(filtered.map((e) => e.type).sort()).to.deep.equal(['webhook_endpoint.created', 'webhook_endpoint.deleted']);
      const page = await call('GET', '/api/v1/security-events?limit=2', reader.apiKey);
      expect(page.body.data).to.have.length(2);
      const next = await call('GET', `/api/v1/security-events?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`, reader.apiKey);
      expect(next.body.data[0].id).to.equal(trail[2]!.id);
      for (const bad of ['?type=nope', '?limit=0', '?limit=101', '?since=yesterday']) {
        expect((await call('GET', `/api/v1/security-events${bad}`, reader.apiKey)).status, bad).to.equal(400);
      }
    });

    it('when an endpoint subscribes to a security event type, then the event is queued for it with the event as the API returns it as data', async () => {
      const agent = await buildAgent(app.service);
      const reader = await created(agent.apiKey, ['events:read']);
      const endpoint = await call('POST', '/api/v1/webhook-endpoints', agent.apiKey, {
        url: 'http://127.0.0.1:9/trail',
        events: ['api_key.created', 'api_key.refused'],
      });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
      const narrow = await created(agent.apiKey, ['account:read']);
      expect((await call('GET', '/api/v1/orders', narrow.apiKey)).status).to.equal(403);
      const deliveries = await call('GET', `/api/v1/webhook-endpoints/${endpoint.body.id}/deliveries?limit=100`, agent.apiKey);
      expect(deliveries.status).to.equal(200);
      expect((deliveries.body.data as Body[]).map((d) => d.type).sort()).to.deep.equal(['api_key.created', 'api_key.refused']);
      const trail = await events(reader.apiKey, '?type=api_key.created,api_key.refused');
      const bodies = await app.service.db!.knex.raw<{ rows: Array<{ body: string }> }>(
        `SELECT e.body FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.endpoint_id = ?`,
        [endpoint.body.id],
      );
      // As every delivery sends it: with the owner's mode, in data too.
      const sent = bodies.rows.map((r) => JSON.parse(bodyWithLivemode(r.body, true)) as Body);
      const createdEvent = trail.find((e) => e.type === 'api_key.created' && e.subject.id === narrow.keyId)!;
      expect(sent.find((b) => b.type === 'api_key.created')!.data).to.deep.equal(createdEvent);
      expect(sent.find((b) => b.type === 'api_key.refused')!.data).to.deep.equal(trail.find((e) => e.type === 'api_key.refused'));
    });

    it('when a key is refused again and again within a minute, then one event per reason and minute is recorded', async () => {
      const agent = await buildAgent(app.service);
      const reader = await created(agent.apiKey, ['events:read']);
      const narrow = await created(agent.apiKey, ['account:read']);
      const minuteStart = Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1_000;
      clock.set(new Date(minuteStart));
      try {
        for (let i = 0; i < 5; i++) expect((await call('GET', '/api/v1/orders', narrow.apiKey)).status).to.equal(403);
        expect((await events(reader.apiKey, '?type=api_key.refused')).length).to.equal(1);
        clock.set(new Date(minuteStart + 60_000));
        for (let i = 0; i < 3; i++) expect((await call('GET', '/api/v1/orders', narrow.apiKey)).status).to.equal(403);
        expect((await events(reader.apiKey, '?type=api_key.refused')).length).to.equal(2);
      } finally {
        clock.reset();
      }
    });

    it('when two agents read their trails, then each sees its own events only', async () => {
      const a = await buildAgent(app.service);
      const b = await buildAgent(app.service);
      const readerA = await created(a.apiKey, ['events:read']);
      const readerB = await created(b.apiKey, ['events:read']);
      await created(a.apiKey, ['orders:read']);
      const aEvents = await events(readerA.apiKey, '?limit=100');
      const bEvents = await events(readerB.apiKey, '?limit=100');
      const aIds = new Set(aEvents.map((e) => e.id));
      expect(bEvents.some((e) => aIds.has(e.id))).to.equal(false);
      expect(bEvents.some((e) => e.subject.id === readerA.keyId || e.actor.id === a.keyId)).to.equal(false);
      expect(aEvents.some((e) => e.subject.id === readerA.keyId)).to.equal(true);
    });

    it('when every answer was stored and every event recorded, then no plaintext key appears in either', async () => {
      expect(shown.length).to.be.greaterThan(50);
      const stored = await app.service.db!.knex.raw<{ rows: Array<{ text: string }> }>(
        `SELECT coalesce(body, '') AS text FROM idempotency_keys UNION ALL SELECT row_to_json(e)::text AS text FROM security_events e`,
      );
      const all = stored.rows.map((r) => r.text).join('\n');
      for (const apiKey of shown) expect(all.includes(apiKey), 'a plaintext key is stored').to.equal(false);
      for (const apiKey of shown) expect(all.includes(apiKey.slice(4, 20)), 'part of a plaintext key is stored').to.equal(false);
    });
  });
});
