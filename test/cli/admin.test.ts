import { expect } from 'chai';
import { adminProcess } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';
import { buildAgent, eventually, unique } from '../support/builders.js';
import { MAX_LIVE_KEYS_PER_AGENT } from '../../src/domain/identity/api-key.js';
import { runAdmin } from '../../src/adapters/cli/admin.js';
import { THAILAND_CATALOGUE } from '../../src/adapters/catalogue/thailand.js';
import { ADMIN_COMMANDS, adminUseCases } from '../../src/bootstrap/admin-commands.js';
import { openService } from '../../src/bootstrap/service.js';
import { json, silentLog, startTestApp, testConfig, type TestApp } from '../support/app.js';

/** Each admin command runs as a separate process on the test database. */
const admin = adminProcess;

describe('admin command line (separate processes on PostgreSQL)', function () {
  this.timeout(180_000);
  let url: string | null;
  let app: TestApp;

  before(async function () {
    url = await databaseUrl();
    // The embedded PGlite of a test run lives in this process; another process cannot open it.
    if (url === null) this.skip();
    app = await startTestApp();
  });
  after(async () => {
    if (app) await app.stop();
  });

  it('when an operator creates a channel, an agent and a key, then the key works over HTTP; revoked as leaked, it does not', async () => {
    const code = `OPS-${unique()}`;
    const ch = await admin(
      url!,
      'channel',
      'create',
      '--code',
      code,
      '--name',
      'Ops',
      '--currency',
      'THB',
      '--markup-bps',
      '300',
      '--json',
    );
    expect(ch.code, ch.stderr).to.equal(0);
    expect(JSON.parse(ch.stdout)).to.deep.equal({ code });
    const ag = await admin(
      url!,
      'agent',
      'create',
      '--name',
      'Ops Agent',
      '--channel',
      code,
      '--products',
      'express-bus',
      '--discount-bps',
      '50',
      '--json',
    );
    const { agentId } = JSON.parse(ag.stdout) as { agentId: string };
    expect(agentId).to.match(/^agt_/);
    const key = await admin(url!, 'key', 'issue', '--agent', agentId, '--expires-in-days', '30', '--json');
    const issued = JSON.parse(key.stdout) as { keyId: string; apiKey: string };
    expect(Object.keys(issued).sort()).to.deep.equal(['apiKey', 'keyId']);
    expect(issued.apiKey).to.match(/^pbk_/);

    const account = await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': issued.apiKey } });
    expect(account.status).to.equal(200);
    expect(((await account.json()) as { entitlements: string[] }).entitlements).to.deep.equal(['express-bus']);

    const suspended = await admin(url!, 'agent', 'suspend', '--agent', agentId, '--json');
    expect(JSON.parse(suspended.stdout)).to.deep.equal({ agentId, status: 'SUSPENDED' });
    const deadline = Date.now() + 1000;
    let status = 0;
    while (Date.now() < deadline && status !== 403) {
      status = (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': issued.apiKey } })).status;
    }
    expect(status).to.equal(403);
    expect(JSON.parse((await admin(url!, 'agent', 'activate', '--agent', agentId, '--json')).stdout)).to.deep.equal({
      agentId,
      status: 'ACTIVE',
    });

    const revoked = await admin(url!, 'key', 'revoke', '--key', issued.keyId, '--leaked', '--json');
    expect(JSON.parse(revoked.stdout)).to.deep.equal({
      keyId: issued.keyId,
      status: 'REVOKED',
      revokedReason: 'leaked',
      rolledKeysRevoked: [],
    });
    const after = Date.now() + 1000;
    while (Date.now() < after && status !== 401) {
      status = (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': issued.apiKey } })).status;
    }
    expect(status).to.equal(401);
  });

  it('when catalogue seed runs twice, then both runs succeed and the shipped catalogue is there once', async () => {
    for (let run = 0; run < 2; run++) {
      const out = await admin(url!, 'catalogue', 'seed', '--json');
      expect(out.code, out.stderr).to.equal(0);
      // The counts are of whole tables, which other tests on the database add schedules to.
      const counts = JSON.parse(out.stdout) as { locations: number; cities: number; schedules: number };
      expect(counts.locations).to.be.at.least(THAILAND_CATALOGUE.locations.length);
      expect(counts.cities).to.be.at.least(THAILAND_CATALOGUE.cities.length);
      expect(counts.schedules).to.be.at.least(THAILAND_CATALOGUE.schedules.length);
    }
    for (const city of THAILAND_CATALOGUE.cities) {
      const res = await app.request(`/api/v1/express-bus/cities?q=${encodeURIComponent(city.name.toLowerCase())}`);
      const found = ((await res.json()) as { data: Array<{ id: string }> }).data.filter((c) => c.id === city.id);
      expect(found, city.id).to.have.length(1);
    }
  });

  it('when demo seed --reset runs, then it prints one JSON object with a working key', async () => {
    const out = await admin(url!, 'demo', 'seed', '--reset', '--json');
    expect(out.code, out.stderr).to.equal(0);
    const creds = JSON.parse(out.stdout) as { apiKey: string };
    expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': creds.apiKey } })).status).to.equal(200);
  });

  it('when demo seed --reset runs again, then the demo key it issued before, and keys rolled from it, stop working', async function () {
    this.timeout(180_000);
    const first = JSON.parse((await admin(url!, 'demo', 'seed', '--reset', '--json')).stdout) as { apiKey: string; keyId: string };
    const rolledRes = await app.request('/api/v1/keys/current/roll', json('POST', { overlapSeconds: 600 }, { 'X-API-KEY': first.apiKey }));
    expect(rolledRes.status).to.equal(201);
    const rolled = (await rolledRes.json()) as { apiKey: string; key: { id: string } };
    const out = await admin(url!, 'demo', 'seed', '--reset', '--json');
    expect(out.code, out.stderr).to.equal(0);
    const second = JSON.parse(out.stdout) as { apiKey: string; keyId: string; revokedKeyIds: string[] };
    expect(second.revokedKeyIds).to.include.members([first.keyId, rolled.key.id]);
    expect(second.revokedKeyIds).to.not.include(second.keyId);
    const status = async (key: string) => (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } })).status;
    // The service hears of the revocation through the database within a second.
    await eventually(async () => (await status(first.apiKey)) === 401, 2_000, 'the earlier demo key is refused');
    expect(await status(rolled.apiKey)).to.equal(401);
    expect(await status(second.apiKey)).to.equal(200);
  });

  it('when an agent holds the most keys, then key issue is refused with too-many-keys and exit code 1', async () => {
    const agent = await buildAgent(app.service);
    for (let i = 1; i < MAX_LIVE_KEYS_PER_AGENT; i++) await app.service.core.admin.issueApiKey.execute({ agentId: agent.agentId });
    const out = await admin(url!, 'key', 'issue', '--agent', agent.agentId, '--json');
    expect(out.code).to.equal(1);
    expect(out.stdout).to.equal('');
    expect(JSON.parse(out.stderr).error.reason).to.equal('too-many-keys');
    const text = await admin(url!, 'key', 'issue', '--agent', agent.agentId);
    expect(text.code).to.equal(1);
    expect(text.stderr).to.match(/^error: An agent holds at most 50 keys that are not revoked/);
    expect(text.stdout).to.not.match(/pbk_/);
  });

  it('when demo seed runs on an existing demo, then it issues nothing and the credentials issued before keep working', async function () {
    this.timeout(180_000);
    const first = JSON.parse((await admin(url!, 'demo', 'seed', '--reset', '--json')).stdout) as { apiKey: string; agentId: string };
    const again = await admin(url!, 'demo', 'seed', '--json');
    expect(again.code, again.stderr).to.equal(0);
    const second = JSON.parse(again.stdout) as Record<string, unknown>;
    expect(second).to.include({ created: false, issued: false, agentId: first.agentId });
    expect(second).not.to.have.property('apiKey');
    expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': first.apiKey } })).status).to.equal(200);
    const text = await admin(url!, 'demo', 'seed');
    expect(text.stdout).to.include('nothing was changed').and.include('demo seed --reset');
  });

  it('when a flag is missing or unknown, then usage goes to stderr with exit code 2 and stdout stays empty', async () => {
    const missing = await admin(url!, 'channel', 'create', '--code', 'X', '--json');
    expect(missing.code).to.equal(2);
    expect(missing.stdout).to.equal('');
    expect(JSON.parse(missing.stderr).error.reason).to.equal('usage');
    const unknownFlag = await admin(url!, 'agent', 'suspend', '--agent', 'agt_x', '--force');
    expect(unknownFlag.code).to.equal(2);
    expect(unknownFlag.stderr).to.match(/usage: agent suspend/);
  });

  it('when the operation is refused, then the reason goes to stderr with exit code 1', async () => {
    const out = await admin(url!, 'key', 'revoke', '--key', `key_${unique()}`, '--json');
    expect(out.code).to.equal(1);
    expect(out.stdout).to.equal('');
    expect(JSON.parse(out.stderr)).to.deep.include({
      error: { reason: 'key-not-found', message: out.stderr && JSON.parse(out.stderr).error.message },
    });
  });
});

describe('admin commands (in process, in memory)', () => {
  it('when commands are chained, then each prints one JSON object and the rules hold', async () => {
    const service = await openService(testConfig({ PERSISTENCE: 'memory' }), silentLog);
    const use = async () => adminUseCases(service);
    const go = async (...args: string[]) => runAdmin([...args, '--json'], ADMIN_COMMANDS, use);
    try {
      expect(JSON.parse((await go('channel', 'create', '--code', 'M1', '--name', 'M', '--currency', 'USD')).stdout)).to.deep.equal({
        code: 'M1',
      });
      const dup = await go('channel', 'create', '--code', 'M1', '--name', 'M', '--currency', 'USD');
      expect(dup.exitCode).to.equal(1);
      expect(JSON.parse(dup.stderr).error.reason).to.equal('channel-exists');
      const bad = await go('channel', 'create', '--code', 'M2', '--name', 'M', '--currency', 'dollars');
      expect(JSON.parse(bad.stderr).error.reason).to.equal('invalid-request');
      const products = await go('agent', 'create', '--name', 'A', '--channel', 'M1', '--products', 'helicopter');
      expect(products.exitCode).to.equal(1);
      const notInt = await go('agent', 'create', '--name', 'A', '--channel', 'M1', '--discount-bps', '1.5');
      expect(notInt.exitCode).to.equal(2);
      const { agentId } = JSON.parse((await go('agent', 'create', '--name', 'A', '--channel', 'M1')).stdout);
      const days = await go('key', 'issue', '--agent', agentId, '--expires-in-days', '0');
      expect(JSON.parse(days.stderr).error.reason).to.equal('invalid-request');
      const noAgent = await go('key', 'issue', '--agent', 'agt_nobody');
      expect(JSON.parse(noAgent.stderr).error.reason).to.equal('agent-not-found');
      const { keyId } = JSON.parse((await go('key', 'issue', '--agent', agentId)).stdout);
      expect(JSON.parse((await go('key', 'revoke', '--key', keyId)).stdout)).to.deep.equal({
        keyId,
        status: 'REVOKED',
        revokedReason: 'operator',
        rolledKeysRevoked: [],
      });
      expect(JSON.parse((await go('key', 'revoke', '--key', keyId, '--leaked')).stdout).revokedReason).to.equal('leaked');
      const unknown = await go('frobnicate');
      expect(unknown.exitCode).to.equal(2);
    } finally {
      await service.close();
    }
  });
});

describe('admin commands for channels and keys (in process, on the test database)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.stop();
  });
  const go = async (...args: string[]) => {
    const out = await runAdmin([...args, '--json'], ADMIN_COMMANDS, async () => adminUseCases(app.service));
    return { ...out, json: out.stdout === '' ? null : JSON.parse(out.stdout) };
  };

  it('when a channel is updated, then only the given settings change and channel list shows them', async () => {
    const code = `UPD-${unique()}`;
    await go('channel', 'create', '--code', code, '--name', 'Upd', '--currency', 'THB', '--markup-bps', '100');
    const updated = await go('channel', 'update', '--code', code, '--free-cancellation-hours', '48', '--late-cancellation-fee-bps', '2500');
    expect(updated.json).to.deep.equal({
      code,
      name: 'Upd',
      currency: 'THB',
      markupBps: 100,
      freeCancellationHours: 48,
      lateCancellationFeeBps: 2500,
      maxHoldMinutes: 30,
    });
    const hold = await go('channel', 'update', '--code', code, '--max-hold-minutes', '15');
    expect(hold.json).to.include({ maxHoldMinutes: 15, freeCancellationHours: 48 });
    for (const bad of ['0', '1441']) {
      expect(JSON.parse((await go('channel', 'update', '--code', code, '--max-hold-minutes', bad)).stderr).error.reason, bad).to.equal(
        'invalid-request',
      );
    }
    const markup = await go('channel', 'update', '--code', code, '--markup-bps=-200');
    expect(markup.json).to.include({ markupBps: -200, freeCancellationHours: 48 });
    const listed = await go('channel', 'list');
    expect(Object.keys(listed.json)).to.deep.equal(['data']);
    expect((listed.json.data as Array<{ code: string }>).find((c) => c.code === code)).to.deep.equal(markup.json);
    expect(JSON.parse((await go('channel', 'update', '--code', `NONE-${unique()}`, '--markup-bps', '1')).stderr).error.reason).to.equal(
      'channel-not-found',
    );
    expect(
      JSON.parse((await go('channel', 'update', '--code', code, '--late-cancellation-fee-bps', '10001')).stderr).error.reason,
    ).to.equal('invalid-request');
    expect(JSON.parse((await go('channel', 'update', '--code', code, '--free-cancellation-hours=-1')).stderr).error.reason).to.equal(
      'invalid-request',
    );
    expect((await go('channel', 'update', '--code', code, '--markup-bps', 'ten')).exitCode).to.equal(2);
  });

  it('when a key rolled twice is revoked as leaked by the operator, then the whole lineage is, and key list shows it', async () => {
    const agent = await buildAgent(app.service);
    const roll = async (apiKey: string) => {
      const res = await app.request('/api/v1/keys/current/roll', json('POST', {}, { 'X-API-KEY': apiKey }));
      expect(res.status).to.equal(201);
      return (await res.json()) as { apiKey: string; key: { id: string } };
    };
    const second = await roll(agent.apiKey);
    const third = await roll(second.apiKey);
    const listed = await go('key', 'list', '--agent', agent.agentId);
    expect(listed.json.data.map((k: { id: string }) => k.id)).to.deep.equal([agent.keyId, second.key.id, third.key.id]);
    expect(listed.json.data[2]).to.include({ status: 'ACTIVE', rolledFromKeyId: second.key.id, revokedReason: null });
    expect(listed.json.data[0]).to.not.have.property('hash');
    const revoked = await go('key', 'revoke', '--key', agent.keyId, '--leaked');
    expect(revoked.json).to.deep.equal({
      keyId: agent.keyId,
      status: 'REVOKED',
      revokedReason: 'leaked',
      rolledKeysRevoked: [second.key.id, third.key.id],
    });
    const after = await go('key', 'list', '--agent', agent.agentId);
    for (const k of after.json.data) expect(k).to.include({ status: 'REVOKED', revokedReason: 'leaked' });
    for (const key of [agent.apiKey, second.apiKey, third.apiKey]) {
      expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } })).status).to.equal(401);
    }
    expect(JSON.parse((await go('key', 'list', '--agent', `agt_${unique()}`)).stderr).error.reason).to.equal('agent-not-found');
  });
});
