import { expect } from 'chai';
import { adminProcess, type AdminRun } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';
import { buildAgent, eventually, unique, type TestAgent } from '../support/builders.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { runAdmin } from '../../src/adapters/cli/admin.js';
import { ADMIN_COMMANDS, adminUseCases } from '../../src/bootstrap/admin-commands.js';

const pickupAt = (): string => new Date(Date.now() + 3 * 86_400_000).toISOString();

/** A transfer quote (sedan, Suvarnabhumi to Silom) for the agent's key: its channel and price. */
async function quote(app: TestApp, apiKey: string): Promise<{ id: string; channel: { code: string }; price: { amount: number } }> {
  const res = await app.request(
    '/api/v1/airport-transfer/quotes',
    json(
      'POST',
      { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: pickupAt(), passengers: 1 },
      { 'X-API-KEY': apiKey },
    ),
  );
  expect(res.status).to.equal(201);
  return (await res.json()) as { id: string; channel: { code: string }; price: { amount: number } };
}

/** A second channel in the same currency, 20 % dearer than the agent's own (which has no markup). */
async function dearerChannel(app: TestApp): Promise<string> {
  const code = `DEAR-${unique()}`;
  await app.service.core.admin.createChannel.execute({ code, name: `Dear ${code}`, currency: 'THB', markupBps: 2_000 });
  return code;
}

/** Each line of a command's stdout is one JSON object, and there is exactly one line. */
const oneObject = (out: AdminRun | { stdout: string }): Record<string, unknown> => {
  const lines = out.stdout.split('\n');
  expect(lines, out.stdout).to.have.length(2);
  expect(lines[1]).to.equal('');
  const parsed: unknown = JSON.parse(lines[0]!);
  expect(parsed).to.be.an('object').and.not.be.an('array');
  return parsed as Record<string, unknown>;
};

describe('agent admin commands (separate processes on PostgreSQL)', function () {
  this.timeout(300_000);
  let url: string | null;
  let app: TestApp;
  const admin = (...args: string[]): Promise<AdminRun> => adminProcess(url!, ...args);

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

  it('when an agent is moved with set-channel, then its next quote has the new channel and price, and a quote from before is refused', async () => {
    const agent = await buildAgent(app.service, { markupBps: 0 });
    const target = await dearerChannel(app);
    const before = await quote(app, agent.apiKey);
    expect(before.channel.code).to.equal(agent.channelCode);

    const moved = await admin('agent', 'set-channel', '--agent', agent.agentId, '--channel', target, '--json');
    expect(moved.code, moved.stderr).to.equal(0);
    expect(oneObject(moved)).to.deep.equal({ agentId: agent.agentId, channel: target, previousChannel: agent.channelCode });

    // The service hears of the change through the database within a second.
    await eventually(async () => (await quote(app, agent.apiKey)).channel.code === target, 2_000, 'quotes use the new channel');
    const after = await quote(app, agent.apiKey);
    expect(after.price.amount).to.equal(Math.round((before.price.amount * 12_000) / 10_000));
    const order = await app.request(
      '/api/v1/orders',
      json(
        'POST',
        { quoteId: before.id, contact: { name: 'Malee S.', email: 'malee@example.com' } },
        {
          'X-API-KEY': agent.apiKey,
          'Idempotency-Key': `cli-${unique()}`,
        },
      ),
    );
    expect(order.status).to.equal(409);
    expect(((await order.json()) as { reason: string }).reason).to.equal('quote-channel-mismatch');

    const [shown, text] = await Promise.all([
      admin('agent', 'show', '--agent', agent.agentId, '--json'),
      admin('agent', 'show', '--agent', agent.agentId),
    ]);
    const details = oneObject(shown);
    expect(details).to.deep.include({
      agentId: agent.agentId,
      status: 'ACTIVE',
      channel: target,
      channelName: `Dear ${target}`,
      currency: 'THB',
      markupBps: 2_000,
      discountBps: 0,
      entitlements: ['airport-transfer', 'express-bus'],
      usableKeys: 1,
      totalKeys: 1,
    });
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(new RegExp(`^agentId: ${agent.agentId}$`, 'm'));
    expect(text.stdout).to.match(new RegExp(`^channel: ${target}$`, 'm'));
    expect(text.stdout).to.match(/^entitlements: airport-transfer,express-bus$/m);
    expect(text.stdout).to.match(/^usableKeys: 1$/m);
    expect(
      text.stdout
        .trimEnd()
        .split('\n')
        .every((l) => /^[a-zA-Z.]+: \S/.test(l)),
    ).to.equal(true);
    expect(shown.stdout + text.stdout).not.to.include(agent.apiKey);
  });

  it('when set-channel or show names an unknown agent or channel, then a clear error with its reason goes to stderr, exit 1, and nothing changes', async () => {
    const agent = await buildAgent(app.service);
    const [noChannel, noChannelText, noAgent, noShow] = await Promise.all([
      admin('agent', 'set-channel', '--agent', agent.agentId, '--channel', `NONE-${unique()}`, '--json'),
      admin('agent', 'set-channel', '--agent', agent.agentId, '--channel', 'NOPE-X'),
      admin('agent', 'set-channel', '--agent', `agt_${unique()}`, '--channel', agent.channelCode, '--json'),
      admin('agent', 'show', '--agent', `agt_${unique()}`, '--json'),
    ]);
    for (const [out, reason] of [
      [noChannel, 'channel-not-found'],
      [noAgent, 'agent-not-found'],
      [noShow, 'agent-not-found'],
    ] as const) {
      expect(out.code).to.equal(1);
      expect(out.stdout).to.equal('');
      expect(JSON.parse(out.stderr).error.reason).to.equal(reason);
    }
    expect(noChannelText.code).to.equal(1);
    expect(noChannelText.stdout).to.equal('');
    expect(noChannelText.stderr).to.equal('error: No such channel.\n');
    expect((await app.service.ports.agentDirectory.findAgent(agent.agentId))?.channelCode).to.equal(agent.channelCode);
  });

  it('when any list command runs, then --json is exactly { data: [...] } without secrets, and the text is an aligned table with a header row', async () => {
    const agent = await buildAgent(app.service, { channelCode: `LST-${unique()}` });
    const tenant = await app.service.core.admin.createTenant.execute({ name: `Lst ${unique()}` });
    const password = `a long password ${unique()}`;
    const user = await app.service.core.admin.createWalletUser.execute(tenant.tenantId, {
      email: `lst-${unique()}@example.com`,
      password,
      externalUserRef: `lst-${unique()}`,
    });
    const secrets = [agent.apiKey, tenant.clientSecret, password];
    const lists: Array<{ args: string[]; mine: (r: Record<string, unknown>) => boolean }> = [
      { args: ['agent', 'list'], mine: (r) => r.agentId === agent.agentId },
      { args: ['agent', 'list', '--channel', agent.channelCode], mine: (r) => r.agentId === agent.agentId },
      { args: ['key', 'list', '--agent', agent.agentId], mine: (r) => r.id === agent.keyId },
      { args: ['channel', 'list'], mine: (r) => r.code === agent.channelCode },
      { args: ['tenant', 'list'], mine: (r) => r.tenantId === tenant.tenantId },
      { args: ['user', 'list', '--tenant', tenant.tenantId], mine: (r) => r.userId === user.id },
    ];
    const runs = await batches(
      lists.map((l) => async () => ({ ...l, asJson: await admin(...l.args, '--json'), text: await admin(...l.args) })),
    );
    for (const { args, mine, asJson, text } of runs) {
      const what = args.join(' ');
      expect(asJson.code, `${what}: ${asJson.stderr}`).to.equal(0);
      const body = oneObject(asJson);
      expect(Object.keys(body), what).to.deep.equal(['data']);
      const data = body.data as Record<string, unknown>[];
      const record = data.find(mine);
      expect(record, `${what}: the record made here`).to.be.an('object');
      for (const r of data) for (const k of Object.keys(r)) expect(k, what).not.to.match(/hash|clientSecret|password|^apiKey$/i);
      for (const s of secrets) expect(asJson.stdout + text.stdout, what).not.to.include(s);

      expect(text.code, `${what}: ${text.stderr}`).to.equal(0);
      const columns = ADMIN_COMMANDS.find((c) => what.startsWith(c.name))!.output as { table: string[] };
      const [head, ...rows] = text.stdout.trimEnd().split('\n');
      const headers = columns.table.map((f) => f.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toUpperCase());
      expect(head!.split(/ {2,}/), what).to.deep.equal(headers);
      // (Tests running beside this one may add rows between the two runs: find the row by its id.)
      const row = rows.find((r) => r.startsWith(`${shown(record![columns.table[0]!])} `));
      expect(row, `${what}: the row made here`).to.be.a('string');
      // Every column starts where its header starts.
      const starts = headers.map((h) => head!.indexOf(h));
      columns.table.forEach((field, i) => {
        expect(row!.slice(starts[i]!), `${what}: ${field}`).to.match(new RegExp(`^${escape(shown(record![field]))}( |$)`));
        if (i > 0) expect(row![starts[i]! - 1], `${what}: ${field}`).to.equal(' ');
      });
      for (const line of [head!, ...rows]) expect(line, what).not.to.match(/ $/);
    }
  });
});

describe('agent admin commands (in process; on the test database and in memory)', () => {
  for (const memory of [false, true]) {
    describe(memory ? 'in memory' : 'on the test database', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(memory ? { memory: true } : {});
        await app.service.core.catalogue.seed.execute();
      });
      after(async () => {
        await app?.stop();
      });
      const go = (...args: string[]) => runAdmin(args, ADMIN_COMMANDS, async () => adminUseCases(app.service));

      it('when agents are listed, shown and moved, then each command prints one JSON object and the quote price follows the move', async () => {
        const a: TestAgent = await buildAgent(app.service, { markupBps: 0 });
        const b = await buildAgent(app.service, { channelCode: a.channelCode });
        const target = await dearerChannel(app);
        const listed = oneObject(await go('agent', 'list', '--channel', a.channelCode, '--json'));
        expect((listed.data as { agentId: string }[]).map((x) => x.agentId)).to.have.members([a.agentId, b.agentId]);
        const before = await quote(app, a.apiKey);

        const moved = await go('agent', 'set-channel', '--agent', a.agentId, '--channel', target);
        expect(moved.exitCode, moved.stderr).to.equal(0);
        expect(moved.stdout).to.equal(`agentId: ${a.agentId}\nchannel: ${target}\npreviousChannel: ${a.channelCode}\n`);
        await eventually(async () => (await quote(app, a.apiKey)).channel.code === target, 2_000, 'quotes use the new channel');
        expect((await quote(app, a.apiKey)).price.amount).to.equal(Math.round((before.price.amount * 12_000) / 10_000));
        expect((await quote(app, b.apiKey)).price.amount).to.equal(before.price.amount);

        const left = oneObject(await go('agent', 'list', '--channel', a.channelCode, '--json'));
        expect((left.data as { agentId: string }[]).map((x) => x.agentId)).to.deep.equal([b.agentId]);
        const all = oneObject(await go('agent', 'list', '--json'));
        expect((all.data as { agentId: string; channel: string }[]).find((x) => x.agentId === a.agentId)?.channel).to.equal(target);
        const unknownChannel = await go('agent', 'list', '--channel', `NONE-${unique()}`, '--json');
        expect(unknownChannel.exitCode).to.equal(1);
        expect(unknownChannel.stdout).to.equal('');
        expect(JSON.parse(unknownChannel.stderr).error.reason).to.equal('channel-not-found');
      });

      it('when a key is revoked, then agent show counts it among the keys but not among the usable ones', async () => {
        const a = await buildAgent(app.service);
        await go('key', 'issue', '--agent', a.agentId, '--json');
        await go('key', 'revoke', '--key', a.keyId, '--json');
        expect(oneObject(await go('agent', 'show', '--agent', a.agentId, '--json'))).to.include({ usableKeys: 1, totalKeys: 2 });
      });
    });
  }
});

async function batches<T>(jobs: readonly (() => Promise<T>)[], width = 3): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += width) out.push(...(await Promise.all(jobs.slice(i, i + width).map((j) => j()))));
  return out;
}

/** How a table shows a JSON value: `-` for nothing, lists joined by commas. */
const shown = (v: unknown): string =>
  v === null || v === undefined ? '-' : Array.isArray(v) ? (v.length === 0 ? '-' : v.join(',')) : String(v as string | number);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
