import { expect } from 'chai';
import { twoInstances, type TestApp } from '../support/app.js';
import { eventually } from '../support/builders.js';
import { basicAuth, buildTenant, formPost, type TestTenant } from '../support/wallet-builders.js';

/** A tenant rotates its client secret; its backend switches during the overlap, on any instance. */
describe('client secret rotation (two secrets during the overlap)', () => {
  const apps = twoInstances();
  let tenant: TestTenant;
  beforeEach(async () => {
    tenant = await buildTenant(apps.a.service);
  });

  const tokenWith = async (app: TestApp, secret: string, how: 'basic' | 'post' = 'basic') => {
    const res =
      how === 'basic'
        ? await app.request(
            '/oauth/token',
            formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, secret) }),
          )
        : await app.request(
            '/oauth/token',
            formPost({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: secret }),
          );
    return { status: res.status, body: (await res.json()) as { error?: string; access_token?: string } };
  };
  const rotate = (overlapSeconds: number) => apps.a.service.core.admin.rotateClientSecret.execute(tenant.tenantId, overlapSeconds);
  const introspectWith = async (app: TestApp, secret: string) =>
    (await app.request('/oauth/introspect', formPost({ token: 'x' }, { authorization: basicAuth(tenant.clientId, secret) }))).status;

  it('when the secret is rotated with an overlap, then both secrets work on every instance until it ends, then the old one is invalid_client', async function () {
    this.timeout(30_000);
    // Both instances have the tenant (and its one secret) cached.
    expect((await tokenWith(apps.a, tenant.clientSecret)).status).to.equal(200);
    expect((await tokenWith(apps.b, tenant.clientSecret)).status).to.equal(200);
    const rotated = await rotate(6);
    expect(Object.keys(rotated).sort()).to.deep.equal(['clientId', 'clientSecret', 'previousSecretValidUntil', 'tenantId']);
    expect(rotated).to.include({ tenantId: tenant.tenantId, clientId: tenant.clientId });
    expect(rotated.clientSecret)
      .to.match(/^pbcs_[0-9a-f]{64}$/)
      .and.not.equal(tenant.clientSecret);
    const endsAt = rotated.previousSecretValidUntil!.getTime();
    expect(endsAt - Date.now()).to.be.within(3000, 6000);
    await eventually(async () => (await tokenWith(apps.b, rotated.clientSecret)).status === 200, 1000, 'B takes the new secret');
    for (const app of [apps.a, apps.b]) {
      for (const secret of [tenant.clientSecret, rotated.clientSecret]) {
        expect((await tokenWith(app, secret, 'basic')).status).to.equal(200);
        expect((await tokenWith(app, secret, 'post')).status).to.equal(200);
        expect(await introspectWith(app, secret)).to.equal(200);
      }
    }
    await new Promise((r) => setTimeout(r, Math.max(0, endsAt - Date.now()) + 50));
    for (const app of [apps.a, apps.b]) {
      const old = await tokenWith(app, tenant.clientSecret);
      expect(old.status).to.equal(401);
      expect(old.body.error).to.equal('invalid_client');
      expect(await introspectWith(app, tenant.clientSecret)).to.equal(401);
      expect((await tokenWith(app, rotated.clientSecret)).status).to.equal(200);
    }
  });

  it('when the secret is rotated without an overlap, then the old secret is refused at once on A and within a second on B', async () => {
    expect((await tokenWith(apps.b, tenant.clientSecret)).status).to.equal(200);
    const rotated = await rotate(0);
    expect(rotated.previousSecretValidUntil).to.equal(null);
    expect((await tokenWith(apps.a, tenant.clientSecret)).status).to.equal(401);
    await eventually(async () => (await tokenWith(apps.b, tenant.clientSecret)).status === 401, 1000, 'B refuses the old secret');
    expect((await tokenWith(apps.b, rotated.clientSecret)).status).to.equal(200);
  });

  it('when the secret is rotated twice, then only the latest two work: the first one ends at the second rotation', async () => {
    const first = await rotate(3600);
    const second = await rotate(3600);
    expect((await tokenWith(apps.a, tenant.clientSecret)).status).to.equal(401);
    expect((await tokenWith(apps.a, first.clientSecret)).status).to.equal(200);
    expect((await tokenWith(apps.a, second.clientSecret)).status).to.equal(200);
  });

  it('when the overlap is out of range or the tenant unknown, then the rotation is refused and nothing changes', async () => {
    const use = apps.a.service.core.admin.rotateClientSecret;
    for (const overlap of [-1, 1.5, 31 * 24 * 3600]) {
      const err = await use.execute(tenant.tenantId, overlap).catch((e: { reason: string }) => e);
      expect((err as { reason: string }).reason).to.equal('invalid-request');
    }
    expect(((await use.execute('tnt_nobody', 60).catch((e: { reason: string }) => e)) as { reason: string }).reason).to.equal(
      'tenant-not-found',
    );
    expect((await tokenWith(apps.a, tenant.clientSecret)).status).to.equal(200);
  });
});
