import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { adminProcess } from '../support/cli.js';
import { HOUR_MS, ManualClock } from '../support/clock.js';
import { databaseUrl } from '../support/database.js';

const roll = (app: TestApp, apiKey: string, idempotencyKey: string): Promise<Response> =>
  app.request(
    '/api/v1/keys/current/roll',
    json('POST', { overlapSeconds: 3600 }, { 'X-API-KEY': apiKey, 'Idempotency-Key': idempotencyKey }),
  );

/**
 * The retention purge (CONTRACT §5.4) as the operator runs it (`admin purge`, the use case behind
 * it): idempotency records past their retention are counted by a dry run, removed by the purge,
 * and the records still answering retries stay.
 */
for (const memory of [true, false]) {
  describe(`retention purge (${memory ? 'memory' : 'database'})`, () => {
    const clock = new ManualClock();
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ memory, clock });
    });
    after(() => app.stop());

    it('when idempotency records are past their retention, then a dry run counts them and removes nothing, the purge removes them, and a recent one still replays', async () => {
      const agent = await buildAgent(app.service);
      const oldKey = randomUUID();
      const old = await clock.shifted(-49 * HOUR_MS, () => roll(app, agent.apiKey, oldKey));
      expect(old.status).to.equal(201);
      const { apiKey: newer } = (await old.json()) as { apiKey: string };
      const recentKey = randomUUID();
      expect((await roll(app, newer, recentKey)).status).to.equal(201);

      const purge = app.service.core.admin.purgeExpired;
      const dry = await purge.execute({ dryRun: true });
      expect(dry).to.include({ dryRun: true });
      expect(dry.idempotencyRecords, 'the record of 49 hours ago').to.be.at.least(1);
      expect((await purge.execute({ dryRun: true })).idempotencyRecords, 'a dry run removes nothing').to.equal(dry.idempotencyRecords);

      const done = await purge.execute({ dryRun: false });
      expect(done).to.include({ dryRun: false });
      expect(done.idempotencyRecords).to.be.at.least(1);
      expect((await purge.execute({ dryRun: true })).idempotencyRecords, 'nothing past retention is left').to.equal(0);

      const replay = await roll(app, newer, recentKey);
      expect(replay.status, 'the record of a minute ago still answers its retry').to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    });
  });
}

describe('admin purge (separate process on PostgreSQL)', function () {
  this.timeout(120_000);
  it('when the operator runs purge --dry-run and purge, then each prints what it counted or removed as one JSON object', async function () {
    const url = await databaseUrl();
    if (url === null) this.skip();
    const dry = await adminProcess(url, 'purge', '--dry-run', '--json');
    expect(dry.code, dry.stderr).to.equal(0);
    const counted = JSON.parse(dry.stdout) as Record<string, unknown>;
    expect(counted).to.include({ dryRun: true });
    expect(counted).to.have.all.keys(
      'dryRun',
      'webhookDeliveries',
      'webhookEvents',
      'idempotencyRecords',
      'webhookCutoff',
      'idempotencyCutoff',
      'securityEvents',
      'securityEventCutoff',
    );
    const run = await adminProcess(url, 'purge', '--json');
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.include({ dryRun: false });
    const after = JSON.parse((await adminProcess(url, 'purge', '--dry-run', '--json')).stdout) as Record<string, number>;
    expect(after.idempotencyRecords).to.equal(0);
  });
});
