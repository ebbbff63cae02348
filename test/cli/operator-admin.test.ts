import { expect } from 'chai';
import { runAdmin } from '../../src/adapters/cli/admin.js';
import { ADMIN_COMMANDS, adminUseCases } from '../../src/bootstrap/admin-commands.js';
import { openService } from '../../src/bootstrap/service.js';
import { buildTransferRoute } from '../../src/testing/fixtures.js';
import { json, silentLog, startTestApp, testConfig, type TestApp } from '../support/app.js';
import { buildAgent, unique } from '../support/builders.js';
import { adminProcess } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';

type Json = Record<string, unknown>;

describe('operator commands (separate processes on PostgreSQL)', function () {
  this.timeout(180_000);
  let url: string | null;
  let app: TestApp;

  before(async function () {
    url = await databaseUrl();
    // The embedded PGlite of a test run lives in this process; another process cannot open it.
    if (url === null) this.skip();
    app = await startTestApp();
    await app.service.core.catalogue.seed.execute();
  });
  after(async () => {
    if (app) await app.stop();
  });

  it('when an operator is created, then list and show print it with its confirmation mode and window', async () => {
    const code = `OPS-${unique()}`;
    const created = await adminProcess(
      url!,
      'operator',
      'create',
      '--code',
      code,
      '--name',
      'Chao Phraya Boats',
      '--timezone',
      'Asia/Bangkok',
      '--confirmation',
      'on-request',
      '--confirmation-window-minutes',
      '45',
      '--json',
    );
    expect(created.code, created.stderr).to.equal(0);
    const operator = {
      code,
      name: 'Chao Phraya Boats',
      timezone: 'Asia/Bangkok',
      confirmation: 'on-request',
      confirmationWindowMinutes: 45,
      livemode: true,
    };
    expect(JSON.parse(created.stdout)).to.deep.equal(operator);
    const listed = await adminProcess(url!, 'operator', 'list', '--json');
    expect(listed.code, listed.stderr).to.equal(0);
    const { data } = JSON.parse(listed.stdout) as { data: Json[] };
    expect(data.find((o) => o.code === code)).to.deep.equal(operator);
    // The shipped operators, with the default window where none is given.
    expect(data.find((o) => o.code === 'GULF-COAST-COACHES')).to.deep.include({ confirmation: 'instant', confirmationWindowMinutes: 120 });
    const shown = await adminProcess(url!, 'operator', 'show', '--operator', code, '--json');
    expect(JSON.parse(shown.stdout)).to.deep.equal({ ...operator, fleet: [] });
    const text = await adminProcess(url!, 'operator', 'show', '--operator', code);
    expect(text.stdout).to.include('confirmation: on-request');
  });

  it('when a code is taken, an operator is unknown or a value is bad, then a stable reason and the exit code of other commands', async () => {
    const code = `OPS-${unique()}`;
    const create = (...more: string[]) =>
      adminProcess(url!, 'operator', 'create', '--code', code, '--name', 'N', '--timezone', 'UTC', ...more, '--json');
    expect((await create()).code).to.equal(0);
    const again = await create();
    expect(again.code).to.equal(1);
    expect(JSON.parse(again.stderr).error.reason).to.equal('operator-exists');
    const zone = await adminProcess(
      url!,
      'operator',
      'create',
      '--code',
      `${code}-Z`,
      '--name',
      'N',
      '--timezone',
      'Mars/Olympus_Mons',
      '--json',
    );
    expect(zone.code).to.equal(1);
    expect(JSON.parse(zone.stderr).error).to.deep.include({ reason: 'invalid-request' });
    expect(JSON.parse(zone.stderr).error.message).to.match(/timezone/);
    const mode = await adminProcess(
      url!,
      'operator',
      'create',
      '--code',
      `${code}-M`,
      '--name',
      'N',
      '--timezone',
      'UTC',
      '--confirmation',
      'sometimes',
      '--json',
    );
    expect(mode.code).to.equal(2);
    expect(JSON.parse(mode.stderr).error.reason).to.equal('usage');
    const missing = await adminProcess(url!, 'operator', 'show', '--operator', 'NO-SUCH-OPERATOR', '--json');
    expect(missing.code).to.equal(1);
    expect(JSON.parse(missing.stderr).error.reason).to.equal('operator-not-found');
    const fleet = await adminProcess(
      url!,
      'operator',
      'set-fleet',
      '--operator',
      'NO-SUCH-OPERATOR',
      '--vehicle-class',
      'sedan',
      '--vehicles',
      '2',
      '--json',
    );
    expect(fleet.code).to.equal(1);
    expect(JSON.parse(fleet.stderr).error.reason).to.equal('operator-not-found');
    const vehicles = await adminProcess(
      url!,
      'operator',
      'set-fleet',
      '--operator',
      code,
      '--vehicle-class',
      'sedan',
      '--vehicles',
      '10001',
      '--json',
    );
    expect(JSON.parse(vehicles.stderr).error.reason).to.equal('invalid-request');
  });

  it('when a fleet of one is set, then a second transfer order in that pickup hour answers 409 sold-out over HTTP, and a cancel frees it', async () => {
    const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 4 });
    const set = await adminProcess(
      url!,
      'operator',
      'set-fleet',
      '--operator',
      route.operator.code,
      '--vehicle-class',
      'sedan',
      '--vehicles',
      '1',
      '--json',
    );
    expect(set.code, set.stderr).to.equal(0);
    expect(JSON.parse(set.stdout)).to.deep.equal({ operator: route.operator.code, vehicleClass: 'sedan', vehicles: 1 });
    const shown = JSON.parse((await adminProcess(url!, 'operator', 'show', '--operator', route.operator.code, '--json')).stdout) as Json;
    expect(shown.fleet).to.deep.equal([
      { vehicleClass: 'sedan', vehicles: 1 },
      { vehicleClass: 'suv', vehicles: 4 },
      { vehicleClass: 'van', vehicles: 4 },
    ]);
    const agent = await buildAgent(app.service);
    const headers = { 'x-api-key': agent.apiKey };
    const pickupAt = new Date(Date.now() + 20 * 86_400_000);
    pickupAt.setUTCMinutes(5, 0, 0);
    const quote = async (minutes: number) => {
      const res = await app.request(
        '/api/v1/airport-transfer/quotes',
        json(
          'POST',
          {
            fromLocationId: route.fromLocationId,
            toLocationId: route.toLocationId,
            pickupAt: new Date(pickupAt.getTime() + minutes * 60_000).toISOString(),
            passengers: 1,
            vehicleClass: 'sedan',
          },
          headers,
        ),
      );
      return { status: res.status, body: (await res.json()) as Json };
    };
    const order = async (quoteId: string) => {
      const res = await app.request(
        '/api/v1/orders',
        json('POST', { quoteId, contact: { name: 'Somchai', email: 'somchai@example.com' } }, headers),
      );
      return { status: res.status, body: (await res.json()) as Json };
    };
    const a = await quote(0);
    const b = await quote(30);
    expect(a.status).to.equal(201);
    expect(a.body).to.deep.include({ operator: { code: route.operator.code, name: route.operator.name }, confirmation: 'instant' });
    const first = await order(a.body.id as string);
    expect(first.status).to.equal(201);
    const second = await order(b.body.id as string);
    expect(second.status).to.equal(409);
    expect(second.body.reason).to.equal('sold-out');
    const third = await quote(50);
    expect(third.status).to.equal(409);
    expect(third.body.reason).to.equal('sold-out');
    const cancel = await app.request(`/api/v1/orders/${first.body.id as string}/cancel`, { method: 'POST', headers });
    expect(cancel.status).to.equal(200);
    expect((await order((await quote(50)).body.id as string)).status).to.equal(201);
  });

  it('when an operator key is issued, then it is pbo_ and shown once, only its hash is stored, and revoke marks it revoked', async () => {
    const code = `OPS-${unique()}`;
    expect((await adminProcess(url!, 'operator', 'create', '--code', code, '--name', 'N', '--timezone', 'UTC', '--json')).code).to.equal(0);
    const issued = await adminProcess(url!, 'operator', 'key', 'issue', '--operator', code, '--json');
    expect(issued.code, issued.stderr).to.equal(0);
    const { keyId, apiKey } = JSON.parse(issued.stdout) as { keyId: string; apiKey: string };
    expect(Object.keys(JSON.parse(issued.stdout) as Json)).to.deep.equal(['keyId', 'apiKey']);
    expect(keyId).to.match(/^opk_/);
    expect(apiKey).to.match(/^pbo_[0-9A-Za-z]{49}$/);
    const rows = (await app.service.db!.knex('operator_keys').where({ id: keyId })) as Json[];
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).not.to.include(apiKey);
    expect(JSON.stringify(rows)).not.to.include(apiKey.slice(4));
    expect(rows[0]).to.deep.include({ operator_code: code, revoked_at: null });
    const revoked = await adminProcess(url!, 'operator', 'key', 'revoke', '--key', keyId, '--json');
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.deep.include({ keyId, operator: code });
    expect((JSON.parse(revoked.stdout) as Json).revokedAt).to.be.a('string');
    const unknownKey = await adminProcess(url!, 'operator', 'key', 'revoke', '--key', 'opk_none', '--json');
    expect(unknownKey.code).to.equal(1);
    expect(JSON.parse(unknownKey.stderr).error.reason).to.equal('key-not-found');
    const unknownOperator = await adminProcess(url!, 'operator', 'key', 'issue', '--operator', 'NO-SUCH-OPERATOR-XYZ', '--json');
    expect(unknownOperator.code).to.equal(1);
    expect(JSON.parse(unknownOperator.stderr).error.reason).to.equal('operator-not-found');
  });
});

describe('the shipped demo (in memory, as a fresh install has it)', () => {
  it('when the demo is seeded, then each product has an instant and an on-request operator, and every transfer operator 4 of each class', async () => {
    const service = await openService(testConfig({ PERSISTENCE: 'memory' }), silentLog);
    const go = async (...args: string[]) =>
      JSON.parse((await runAdmin([...args, '--json'], ADMIN_COMMANDS, async () => adminUseCases(service))).stdout) as Json;
    try {
      await go('demo', 'seed');
      const { data } = (await go('operator', 'list')) as { data: Array<{ code: string; confirmation: string }> };
      const modesOf = (codes: Set<string>) => new Set(data.filter((o) => codes.has(o.code)).map((o) => o.confirmation));
      const { THAILAND_CATALOGUE } = await import('../../src/adapters/catalogue/thailand.js');
      const transfer = new Set(THAILAND_CATALOGUE.transferFares.map((f) => f.operatorCode));
      const bus = new Set(THAILAND_CATALOGUE.schedules.map((s) => s.operatorCode));
      expect(modesOf(transfer)).to.deep.equal(new Set(['instant', 'on-request']));
      expect(modesOf(bus)).to.deep.equal(new Set(['instant', 'on-request']));
      for (const code of transfer) {
        const shown = await go('operator', 'show', '--operator', code);
        expect(shown.fleet, code).to.deep.equal(['sedan', 'suv', 'van'].map((vehicleClass) => ({ vehicleClass, vehicles: 4 })));
      }
    } finally {
      await service.close();
    }
  });
});
