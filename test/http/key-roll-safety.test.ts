import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, issueKey, unique } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';
import { expectMatchesSpec } from '../support/openapi.js';
import { MAX_LIVE_KEYS_PER_AGENT } from '../../src/domain/identity/api-key.js';

type Body = Record<string, any>;

/** A whole API key (prefix, 43 characters of body, 6 of checksum), as opposed to its display prefix. */
const WHOLE_KEY = /pbk_[0-9A-Za-z]{49}/;

/**
 * What a key roll may not do: replay another key's roll, keep the new key's plaintext at rest,
 * or add keys without bound. Through the real app, on the test database and in memory.
 */
for (const mode of ['database', 'memory'] as const) {
  describe(`key rolls: idempotency, stored answers and the bound on keys (${mode})`, () => {
    const clock = new ManualClock();
    let app: TestApp;

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body; headers: Headers }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
    };
    const roll = (apiKey: string, body: unknown = {}, headers: Record<string, string> = {}) =>
      call('/api/v1/keys/current/roll', json('POST', body, { 'X-API-KEY': apiKey, ...headers }));
    const keysOf = async (apiKey: string): Promise<Body[]> => {
      const r = await call('/api/v1/keys', { headers: { 'X-API-KEY': apiKey } });
      expect(r.status).to.equal(200);
      return r.body.data as Body[];
    };
    const liveCount = async (apiKey: string) => (await keysOf(apiKey)).filter((k) => k.status === 'ACTIVE').length;
    /** An agent with `n` keys that work (its first key included). */
    const agentWithKeys = async (n: number) => {
      const agent = await buildAgent(app.service);
      const keys = [{ apiKey: agent.apiKey, keyId: agent.keyId }];
      for (let i = 1; i < n; i++) keys.push(await issueKey(app.service, agent.agentId));
      return { agent, keys };
    };

    before(async () => {
      app = await startTestApp({ clock, ...(mode === 'memory' ? { memory: true } : {}) });
    });
    afterEach(() => clock.reset());
    after(async () => {
      await app.stop();
    });

    describe('Idempotency-Key of a roll', () => {
      it('when another key of the agent sends the same Idempotency-Key, then it rolls itself, never replays the first key’s roll', async () => {
        const agent = await buildAgent(app.service);
        const sibling = await issueKey(app.service, agent.agentId);
        const idem = { 'Idempotency-Key': `roll-${unique()}` };
        const first = await roll(agent.apiKey, { overlapSeconds: 60 }, idem);
        expect(first.status).to.equal(201);
        const second = await roll(sibling.apiKey, { overlapSeconds: 60 }, idem);
        expect(second.status, JSON.stringify(second.body)).to.equal(201);
        expect(second.headers.get('idempotent-replayed')).to.equal(null);
        expect(second.body.apiKey).to.match(/^pbk_/).and.not.equal(first.body.apiKey);
        expect(second.body.key).to.include({ rolledFromKeyId: sibling.keyId });
        expect(second.body.key.id).to.not.equal(first.body.key.id);
        // The sibling's own leak report reaches the key its roll made.
        const leak = await call('/api/v1/keys/current/report-leak', json('POST', {}, { 'X-API-KEY': sibling.apiKey }));
        expect(leak.body.rolledKeys.map((k: Body) => k.id)).to.deep.equal([second.body.key.id]);
        // The first key's retry still replays its own roll.
        const again = await roll(agent.apiKey, { overlapSeconds: 60 }, idem);
        expect([again.status, again.headers.get('idempotent-replayed'), again.body.key.id]).to.deep.equal([201, 'true', first.body.key.id]);
      });

      it('when a roll is replayed, then the answer is the first one without apiKey, and the key works', async () => {
        const agent = await buildAgent(app.service);
        const idem = `roll-${unique()}`;
        const first = await roll(agent.apiKey, { overlapSeconds: 120 }, { 'Idempotency-Key': idem });
        expect(first.status).to.equal(201);
        expect(first.body.apiKey).to.match(WHOLE_KEY);
        const again = await roll(agent.apiKey, { overlapSeconds: 120 }, { 'Idempotency-Key': idem });
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.headers.get('cache-control')).to.equal('no-store');
        const { apiKey, ...metadata } = first.body;
        expect(again.body).to.deep.equal(metadata);
        expect(JSON.stringify(again.body)).to.not.include(apiKey);
        expectMatchesSpec('rollCurrentKey', again.status, again.body);
        expect((await call('/api/v1/agent/account', { headers: { 'X-API-KEY': apiKey } })).status).to.equal(200);
        expect((await keysOf(apiKey)).map((k) => k.id)).to.deep.equal([agent.keyId, first.body.key.id]);
      });

      it('when a roll is stored for replay, then the database holds no plaintext key', async function () {
        if (mode === 'memory') this.skip(); // what is at rest is the database's
        const agent = await buildAgent(app.service);
        const idem = `roll-${unique()}`;
        const first = await roll(agent.apiKey, {}, { 'Idempotency-Key': idem });
        expect(first.status).to.equal(201);
        // Read straight from the table: the service offers no read of stored answers, and the
        // defect is what anyone with database or backup access could read there.
        const rows = (await app.service.db!.knex('idempotency_keys').where({ key: idem }).select('scope', 'body', 'state')) as Body[];
        expect(rows).to.have.length(1);
        expect(rows[0]!.body).to.include(first.body.key.id);
        expect(rows[0]!.body).to.not.include(first.body.apiKey);
        expect(rows[0]!.body).to.not.match(WHOLE_KEY);
        expect(rows[0]).to.include({ state: 'DONE', scope: `agent:${agent.agentId}:key:${agent.keyId}` });
      });
    });

    describe(`at most ${MAX_LIVE_KEYS_PER_AGENT} keys not revoked per agent`, () => {
      it('when the agent holds the most keys, then a roll with an overlap is 409 too-many-keys, one with none is not, and the operator cannot issue more', async () => {
        const { agent, keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT);
        const refused = await roll(keys[1]!.apiKey, { overlapSeconds: 60 });
        expect([refused.status, refused.body.reason]).to.deep.equal([409, 'too-many-keys']);
        expect(refused.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(refused.body.message).to.include(String(MAX_LIVE_KEYS_PER_AGENT));
        expectMatchesSpec('rollCurrentKey', refused.status, refused.body);
        expect(await liveCount(agent.apiKey)).to.equal(MAX_LIVE_KEYS_PER_AGENT);
        // The refused roll changed nothing: the key still rolls once there is room.
        const swap = await roll(keys[1]!.apiKey, { overlapSeconds: 0 });
        expect(swap.status, JSON.stringify(swap.body)).to.equal(201);
        expect(await liveCount(agent.apiKey)).to.equal(MAX_LIVE_KEYS_PER_AGENT);
        let issued: unknown = null;
        try {
          await issueKey(app.service, agent.agentId);
        } catch (err) {
          issued = err;
        }
        expect((issued as { reason?: string } | null)?.reason).to.equal('too-many-keys');
        expect(await liveCount(agent.apiKey)).to.equal(MAX_LIVE_KEYS_PER_AGENT);
      });

      it('when a rolled key is in its overlap, then it counts until the overlap ends', async () => {
        const { keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT - 1);
        const first = await roll(keys[0]!.apiKey, { overlapSeconds: 600 });
        expect(first.status).to.equal(201);
        const blocked = await roll(keys[1]!.apiKey, { overlapSeconds: 600 });
        expect([blocked.status, blocked.body.reason]).to.deep.equal([409, 'too-many-keys']);
        clock.advance(600_000);
        const after = await roll(keys[1]!.apiKey, { overlapSeconds: 600 });
        expect(after.status, JSON.stringify(after.body)).to.equal(201);
      });

      it('when rolls of several keys of one agent race, then no more than the bound are made', async () => {
        const { agent, keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT - 2);
        const results = await Promise.all(keys.slice(0, 6).map((k) => roll(k.apiKey, { overlapSeconds: 600 })));
        expect(results.map((r) => r.status).sort()).to.deep.equal([201, 201, 409, 409, 409, 409]);
        for (const r of results.filter((x) => x.status === 409)) expect(r.body.reason).to.equal('too-many-keys');
        expect(await liveCount(agent.apiKey)).to.equal(MAX_LIVE_KEYS_PER_AGENT);
      });
    });

    describe('expiresAt of a rolled key', () => {
      it('when a rolled key’s overlap has ended, then its expiresAt still shows when the overlap ended', async () => {
        const agent = await buildAgent(app.service, { expiresInDays: 30 });
        const rolled = await roll(agent.apiKey, { overlapSeconds: 600 });
        expect(rolled.status).to.equal(201);
        const during = (await keysOf(rolled.body.apiKey)).find((k) => k.id === agent.keyId);
        expect(during).to.include({ status: 'ACTIVE', expiresAt: rolled.body.previousKeyValidUntil });
        clock.advance(600_000);
        const after = (await keysOf(rolled.body.apiKey)).find((k) => k.id === agent.keyId);
        expect(after).to.include({
          status: 'REVOKED',
          revokedReason: 'rotated',
          revokedAt: rolled.body.previousKeyValidUntil,
          expiresAt: rolled.body.previousKeyValidUntil,
        });
        // The new key keeps the old key's own expiry.
        const fresh = (await keysOf(rolled.body.apiKey)).find((k) => k.id === rolled.body.key.id);
        expect(Date.parse(fresh!.expiresAt)).to.be.greaterThan(Date.parse(rolled.body.previousKeyValidUntil) + 29 * 86_400_000);
      });
    });
  });
}
