import { expect } from 'chai';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { adminProcess } from '../support/cli.js';
import { createPostgresPorts } from '../../src/bootstrap/ports.js';
import type { PortSet } from '../../src/bootstrap/ports.js';
import { eventually, unique } from '../support/builders.js';
import { databaseUrl } from '../support/database.js';

const admin = adminProcess;

/** The settings every one of the three commands prints. */
const SETTINGS_FIELDS = ['authMethod', 'clientId', 'dpopRequired', 'jwksKeys', 'kids', 'tenantId'];

describe('tenant OAuth client settings commands (separate processes on PostgreSQL)', function () {
  this.timeout(180_000);
  let url: string | null;
  let dir: string;
  let ports: PortSet;
  before(async function () {
    url = await databaseUrl();
    if (url === null) this.skip();
    dir = await mkdtemp(join(tmpdir(), 'pbw-jwks-'));
    // An instance with its own tenant cache, kept fresh by the database's change feed.
    ports = await createPostgresPorts({ connectionString: url });
    await ports.start();
  });
  after(async () => {
    if (ports) await ports.stop();
  });

  const newTenant = async (): Promise<{ tenantId: string; clientId: string }> =>
    JSON.parse((await admin(url!, 'tenant', 'create', '--name', `Keys ${unique()}`, '--json')).stdout) as {
      tenantId: string;
      clientId: string;
    };

  const jwksFile = async (content: unknown): Promise<string> => {
    const path = join(dir, `${unique()}.json`);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('when an operator registers keys, picks private_key_jwt and requires DPoP, then the JSON says so and a running instance sees it within a second', async () => {
    const tenant = await newTenant();
    // The running instance has the tenant cached with the defaults.
    expect(await ports.tenants.findTenant(tenant.tenantId)).to.include({ authMethod: 'client_secret', dpopRequired: false });
    const es = await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey);
    const ed = await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).publicKey);
    const path = await jwksFile({
      keys: [
        { ...es, kid: 'es-1', use: 'sig' },
        { ...ed, kid: 'ed-1' },
      ],
    });

    const set = await admin(url!, 'tenant', 'set-jwks', '--tenant', tenant.tenantId, '--jwks-file', path, '--json');
    expect(set.code, set.stderr).to.equal(0);
    const view = JSON.parse(set.stdout) as Record<string, unknown>;
    expect(Object.keys(view).sort()).to.deep.equal(SETTINGS_FIELDS);
    expect(view).to.deep.include({ tenantId: tenant.tenantId, clientId: tenant.clientId, authMethod: 'client_secret', jwksKeys: 2 });
    expect(view.kids).to.deep.equal(['es-1', 'ed-1']);
    // The security trail records the operator's change, with the kids and never the keys.
    const trail = await admin(url!, 'events', 'list', '--tenant', tenant.tenantId, '--type', 'client.jwks_updated', '--json');
    expect(trail.code, trail.stderr).to.equal(0);
    const [updated, ...more] = (JSON.parse(trail.stdout) as { data: Array<Record<string, unknown>> }).data;
    expect(more).to.have.length(0);
    expect(updated).to.deep.include({
      type: 'client.jwks_updated',
      actor: { kind: 'operator', id: 'operator' },
      subject: { kind: 'client', id: tenant.clientId },
      details: { keys: 2, kids: ['es-1', 'ed-1'] },
    });
    expect(trail.stdout).not.to.include(String(es.x));

    const method = await admin(url!, 'tenant', 'set-auth-method', '--tenant', tenant.tenantId, '--method', 'private_key_jwt', '--json');
    expect(method.code, method.stderr).to.equal(0);
    expect(JSON.parse(method.stdout)).to.include({ authMethod: 'private_key_jwt', dpopRequired: false });

    const dpop = await admin(url!, 'tenant', 'set-dpop', '--tenant', tenant.tenantId, '--required', 'on', '--json');
    expect(dpop.code, dpop.stderr).to.equal(0);
    expect(JSON.parse(dpop.stdout)).to.include({ authMethod: 'private_key_jwt', dpopRequired: true, jwksKeys: 2 });

    await eventually(
      async () => {
        const t = await ports.tenants.findTenant(tenant.tenantId);
        return t?.dpopRequired === true && t.authMethod === 'private_key_jwt' && t.clientJwks?.keys.length === 2;
      },
      1_000,
      'the running instance sees the new settings',
    );
    const stored = (await ports.tenants.findTenantByClientId(tenant.clientId))!;
    expect(stored.clientJwks!.keys[0]).to.deep.equal({ kty: 'EC', alg: 'ES256', kid: 'es-1', crv: 'P-256', x: es.x, y: es.y });

    const off = await admin(url!, 'tenant', 'set-dpop', '--tenant', tenant.tenantId, '--required', 'off');
    expect(off.code, off.stderr).to.equal(0);
    expect(off.stdout).to.match(/^dpopRequired: false$/m);
    const back = await admin(url!, 'tenant', 'set-auth-method', '--tenant', tenant.tenantId, '--method', 'client_secret');
    expect(back.stdout).to.match(/^authMethod: client_secret$/m);
  });

  it('when the file holds a private or symmetric key, an unknown key type, an alg of another key type or is no JWK Set, then it is refused and nothing is stored', async () => {
    const tenant = await newTenant();
    const pair = await generateKeyPair('ES256', { extractable: true });
    const refused = [
      { keys: [await exportJWK(pair.privateKey)] },
      { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      { keys: [{ kty: 'EC', crv: 'P-384', x: 'AA', y: 'AA' }] },
      { keys: [{ ...(await exportJWK(pair.publicKey)), alg: 'Ed25519' }] },
      { keys: [] },
      'not json',
    ];
    for (const content of refused) {
      const out = await admin(url!, 'tenant', 'set-jwks', '--tenant', tenant.tenantId, '--jwks-file', await jwksFile(content), '--json');
      expect(out.code, JSON.stringify(content)).to.not.equal(0);
      expect((JSON.parse(out.stderr) as { error: { reason: string } }).error.reason).to.equal('invalid-request');
    }
    expect((await ports.tenants.findTenant(tenant.tenantId))?.clientJwks).to.equal(null);
  });

  it('when private_key_jwt is chosen before any key is registered, or a value or tenant is wrong, then the command refuses', async () => {
    const tenant = await newTenant();
    const early = await admin(url!, 'tenant', 'set-auth-method', '--tenant', tenant.tenantId, '--method', 'private_key_jwt', '--json');
    expect(early.code).to.not.equal(0);
    expect(JSON.parse(early.stderr)).to.deep.nested.include({ 'error.reason': 'invalid-request' });
    const badMethod = await admin(url!, 'tenant', 'set-auth-method', '--tenant', tenant.tenantId, '--method', 'none');
    expect(badMethod.code).to.not.equal(0);
    expect(badMethod.stderr).to.include('--method must be client_secret or private_key_jwt');
    const badValue = await admin(url!, 'tenant', 'set-dpop', '--tenant', tenant.tenantId, '--required', 'yes');
    expect(badValue.code).to.not.equal(0);
    expect(badValue.stderr).to.include('--required must be on or off');
    const ghost = await admin(url!, 'tenant', 'set-dpop', '--tenant', `tnt_${unique()}`, '--required', 'on', '--json');
    expect(JSON.parse(ghost.stderr)).to.deep.nested.include({ 'error.reason': 'tenant-not-found' });
    const missing = await admin(url!, 'tenant', 'set-jwks', '--tenant', tenant.tenantId, '--jwks-file', join(dir, 'absent.json'));
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.include('cannot be read');
  });
});
