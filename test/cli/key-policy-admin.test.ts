import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { adminProcess, type AdminRun } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';

describe('key policies and the security trail on the admin command line (separate processes on PostgreSQL)', function () {
  this.timeout(300_000);
  let url: string | null;
  const admin = (...args: string[]): Promise<AdminRun> => adminProcess(url!, ...args);
  const ok = (run: AdminRun): Record<string, unknown> => {
    expect(run.code, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  let agentId: string;

  before(async function () {
    url = await databaseUrl();
    if (url === null) this.skip();
    const code = `KP-${randomBytes(4).toString('hex').toUpperCase()}`;
    ok(await admin('channel', 'create', '--code', code, '--name', 'Key policies', '--currency', 'THB', '--markup-bps', '0', '--json'));
    agentId = ok(await admin('agent', 'create', '--name', 'Policy Agent', '--channel', code, '--products', 'express-bus', '--json'))[
      'agentId'
    ] as string;
  });

  it('when the operator issues keys with and without a policy, then key list shows name, scopes, allowlist and expiry', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    expiresAt.setUTCMilliseconds(0);
    const narrow = ok(
      await admin(
        'key',
        'issue',
        '--agent',
        agentId,
        '--name',
        'reporting',
        '--scopes',
        'orders:read,trips:read',
        '--allowed-ips',
        '192.0.2.0/24,2001:db8::/32',
        '--expires-at',
        expiresAt.toISOString(),
        '--json',
      ),
    );
    const full = ok(await admin('key', 'issue', '--agent', agentId, '--json'));
    const listed = ok(await admin('key', 'list', '--agent', agentId, '--json'))['data'] as Array<Record<string, unknown>>;
    expect(listed.find((k) => k['id'] === narrow['keyId'])).to.deep.include({
      name: 'reporting',
      scopes: ['trips:read', 'orders:read'],
      allowedIps: ['192.0.2.0/24', '2001:db8::/32'],
      expiresAt: expiresAt.toISOString(),
      createdByKeyId: null,
    });
    expect(listed.find((k) => k['id'] === full['keyId'])).to.deep.include({ name: null, scopes: ['*'], allowedIps: [] });
    const text = await admin('key', 'list', '--agent', agentId);
    expect(text.stdout.split('\n')[0]).to.match(/^ID\s+NAME\s+PREFIX\s+STATUS\s+REVOKED REASON\s+SCOPES\s+ALLOWED IPS/);
    expect(text.stdout).to.include('trips:read,orders:read');
  });

  it('when a scope, an address range or a time is not valid, then key issue is refused and no key is made', async () => {
    const before = (ok(await admin('key', 'list', '--agent', agentId, '--json'))['data'] as unknown[]).length;
    const badScope = await admin('key', 'issue', '--agent', agentId, '--scopes', 'orders:delete', '--json');
    expect(badScope.code).to.equal(1);
    expect((JSON.parse(badScope.stderr) as { error: { reason: string } }).error.reason).to.equal('invalid-request');
    const badCidr = await admin('key', 'issue', '--agent', agentId, '--allowed-ips', '192.0.2.1/24', '--json');
    expect(badCidr.code).to.equal(1);
    const past = await admin('key', 'issue', '--agent', agentId, '--expires-at', '2001-01-01T00:00:00Z', '--json');
    expect(past.code).to.equal(1);
    const notATime = await admin('key', 'issue', '--agent', agentId, '--expires-at', 'tomorrow', '--json');
    expect(notATime.code).to.equal(2);
    expect((ok(await admin('key', 'list', '--agent', agentId, '--json'))['data'] as unknown[]).length).to.equal(before);
  });

  it('when the operator issues and revokes a key as leaked, then events list shows it done by the operator, newest first, filtered by type', async () => {
    const issued = ok(await admin('key', 'issue', '--agent', agentId, '--json'));
    ok(await admin('key', 'revoke', '--key', issued['keyId'] as string, '--leaked', '--json'));
    const all = ok(await admin('events', 'list', '--agent', agentId, '--json'));
    const events = all['data'] as Array<{
      type: string;
      actor: { kind: string };
      subject: { id: string };
      details: Record<string, unknown>;
    }>;
    const mine = events.filter((e) => e.subject.id === issued['keyId']);
    expect(mine.map((e) => e.type)).to.deep.equal(['api_key.leak_reported', 'api_key.revoked', 'api_key.created']);
    expect(mine.every((e) => e.actor.kind === 'operator')).to.equal(true);
    expect(mine[1]!.details['reason']).to.equal('leaked');
    expect(JSON.stringify(all)).to.not.match(/pbk_[0-9A-Za-z]{20,}/);
    const onlyCreated = ok(await admin('events', 'list', '--agent', agentId, '--type', 'api_key.created', '--limit', '2', '--json'));
    const page = onlyCreated['data'] as Array<{ type: string }>;
    expect(page).to.have.length(2);
    expect(page.every((e) => e.type === 'api_key.created')).to.equal(true);
    expect(onlyCreated['nextCursor']).to.be.a('string');
  });

  it('when events list names neither an agent nor a tenant, or a bad type, then it is refused', async () => {
    expect((await admin('events', 'list', '--json')).code).to.equal(2);
    expect((await admin('events', 'list', '--agent', agentId, '--tenant', 'tnt_x', '--json')).code).to.equal(2);
    const badType = await admin('events', 'list', '--agent', agentId, '--type', 'api_key.nope', '--json');
    expect(badType.code).to.equal(1);
    expect((JSON.parse(badType.stderr) as { error: { reason: string } }).error.reason).to.equal('invalid-request');
  });
});
