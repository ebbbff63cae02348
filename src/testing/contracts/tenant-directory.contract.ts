import { expect } from 'chai';
import { reasonOf } from '../fixtures.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { newTenant, type Tenant, type WalletUser } from '../../domain/identity/tenant.js';
import { unique } from '../fixtures.js';
import { listenAs, type EmittedEvents, type EventSeen } from './events.js';

/** A new tenant as every directory gives it back: each setting it leaves out at its default. */
const tenant = (over: Partial<Tenant> = {}): Tenant =>
  newTenant({
    id: `tnt_${unique()}`,
    name: `T ${unique()}`,
    clientId: `cli_${unique()}`,
    clientSecretHash: 'a'.repeat(64),
    currency: 'THB',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    ...over,
  });

let seq = 0;
const user = (tenantId: string, over: Partial<WalletUser> = {}): WalletUser => ({
  id: `usr_${unique()}`,
  tenantId,
  externalUserRef: `ref-${unique()}`,
  email: null,
  passwordHash: null,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ++seq)),
  disabledAt: null,
  tokensValidFrom: null,
  ...over,
});

/** The behaviour every TenantDirectory must show, whatever stores it. */
export function tenantDirectoryContract(
  name: string,
  make: () => Promise<TenantDirectory>,
  options: {
    concurrent: () => Promise<boolean>;
    /** The webhook store and outbox reader the directory of the last `make()` records into; without it the event cases are skipped. */
    events?: () => Promise<EmittedEvents>;
  },
): void {
  describe(`tenant directory contract: ${name}`, () => {
    let d: TenantDirectory;
    beforeEach(async () => {
      d = await make();
    });

    it('when a tenant is stored, then it is found by id, client id and name; unknown ones are null', async () => {
      const t = tenant();
      await d.createTenant(t);
      expect(await d.findTenant(t.id)).to.deep.equal(t);
      expect(await d.findTenantByClientId(t.clientId)).to.deep.equal(t);
      expect(await d.findTenantByName(t.name)).to.deep.equal(t);
      expect(await d.findTenant(`tnt_${unique()}`)).to.equal(null);
      const sandbox = tenant({ clientId: `cli_test_${unique()}`, livemode: false });
      await d.createTenant(sandbox);
      expect(await d.findTenantByClientId(sandbox.clientId)).to.deep.equal(sandbox);
      // Client ids are matched exactly: the same id in capitals is another one. (Its lower-case
      // form can be the id itself: the random part is sometimes digits only.)
      expect(await d.findTenantByClientId(t.clientId.toUpperCase())).to.equal(null);
      expect(await d.replaceClientSecret(`tnt_${unique()}`, 'b')).to.equal(false);
      expect(await d.replaceClientSecret(t.id, 'b'.repeat(64))).to.equal(true);
      expect((await d.findTenant(t.id))?.clientSecretHash).to.equal('b'.repeat(64));
    });

    it('when client settings change, then only the named settings change and a new tenant has the defaults', async () => {
      const t = tenant();
      await d.createTenant(t);
      const jwks = { keys: [{ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: 'k1', x: 'eA', y: 'eQ' }] };
      const withKeys = await d.updateClientSettings(t.id, { jwks });
      expect(withKeys).to.deep.equal({ ...t, clientJwks: jwks });
      expect(await d.updateClientSettings(t.id, { authMethod: 'private_key_jwt' })).to.deep.equal({
        ...t,
        clientJwks: jwks,
        authMethod: 'private_key_jwt',
      });
      const bound = await d.updateClientSettings(t.id, { dpopRequired: true });
      expect(bound).to.deep.equal({ ...t, clientJwks: jwks, authMethod: 'private_key_jwt', dpopRequired: true });
      expect(await d.findTenant(t.id)).to.deep.equal(bound);
      expect(await d.findTenantByClientId(t.clientId)).to.deep.equal(bound);
      expect(await d.updateClientSettings(t.id, { jwks: null, authMethod: 'client_secret', dpopRequired: false })).to.deep.equal(t);
      expect(await d.updateClientSettings(`tnt_${unique()}`, { dpopRequired: true })).to.equal(null);
      // A secret rotation keeps the settings.
      await d.updateClientSettings(t.id, { dpopRequired: true });
      expect((await d.rotateClientSecret(t.id, 'c'.repeat(64), null))?.dpopRequired).to.equal(true);
    });

    it('when a user is created, then only its own tenant finds it (by id and by email in any case)', async () => {
      const t1 = tenant();
      const t2 = tenant();
      await d.createTenant(t1);
      await d.createTenant(t2);
      const u = await d.createUser(user(t1.id, { email: 'Mixed.Case@Example.com', passwordHash: 'h' }));
      expect(await d.findUser(t1.id, u.id)).to.deep.equal(u);
      expect(await d.findUser(t2.id, u.id)).to.equal(null);
      expect((await d.findUserByEmail(t1.id, 'mixed.case@example.COM'))?.id).to.equal(u.id);
      expect(await d.findUserByEmail(t2.id, 'mixed.case@example.com')).to.equal(null);
      expect(await d.setPasswordHash(t2.id, u.id, 'x')).to.equal(false);
      expect(await d.setPasswordHash(t1.id, u.id, 'x')).to.equal(true);
    });

    it('when a ref or an email is taken in the tenant, then user-exists; an unknown tenant is tenant-not-found', async () => {
      const t = tenant();
      await d.createTenant(t);
      const u = await d.createUser(user(t.id, { email: 'taken@example.com' }));
      expect(await reasonOf(d.createUser(user(t.id, { externalUserRef: u.externalUserRef })))).to.equal('user-exists');
      expect(await reasonOf(d.createUser(user(t.id, { email: 'TAKEN@example.com' })))).to.equal('user-exists');
      expect(await reasonOf(d.createUser(user(`tnt_${unique()}`)))).to.equal('tenant-not-found');
      expect(await reasonOf(d.ensureUser(user(`tnt_${unique()}`)))).to.equal('tenant-not-found');
    });

    it('when ensureUser is called twice for a ref, then the first user is returned the second time', async () => {
      const t = tenant();
      await d.createTenant(t);
      const first = await d.ensureUser(user(t.id, { externalUserRef: 'same' }));
      const second = await d.ensureUser(user(t.id, { externalUserRef: 'same' }));
      expect(second).to.deep.equal(first);
    });

    it('when users are listed, then in creation order, after the cursor, at most limit, tenant only', async () => {
      const t = tenant();
      const other = tenant();
      await d.createTenant(t);
      await d.createTenant(other);
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await d.createUser(user(t.id)));
      await d.createUser(user(other.id));
      expect((await d.listUsers(t.id, null, 10)).map((u) => u.id)).to.deep.equal(made.map((u) => u.id));
      const after = { createdAt: made[1]!.createdAt, id: made[1]!.id };
      expect((await d.listUsers(t.id, after, 1)).map((u) => u.id)).to.deep.equal([made[2]!.id]);
      expect(await d.listUsers(`tnt_${unique()}`, null, 10)).to.deep.equal([]);
    });

    it('when many callers ensure the same ref at once, then exactly one user exists and all get it', async function () {
      // PGlite has one connection: it cannot run these concurrently.
      if (!(await options.concurrent())) this.skip();
      const t = tenant();
      await d.createTenant(t);
      const got = await Promise.all(Array.from({ length: 10 }, () => d.ensureUser(user(t.id, { externalUserRef: 'race' }))));
      expect(new Set(got.map((u) => u.id)).size).to.equal(1);
      expect(await d.listUsers(t.id, null, 100)).to.have.length(1);
    });
    it('when a secret is rotated with an overlap, then the old hash is kept until then; without one, or on a reset, it is dropped', async () => {
      const t = tenant();
      await d.createTenant(t);
      const until = new Date('2026-02-01T00:00:00.000Z');
      const rotated = await d.rotateClientSecret(t.id, 'b'.repeat(64), until);
      expect(rotated).to.deep.include({
        clientSecretHash: 'b'.repeat(64),
        previousClientSecretHash: 'a'.repeat(64),
        previousSecretValidUntil: until,
      });
      expect(await d.findTenant(t.id)).to.deep.equal(rotated);
      // A second rotation keeps only the secret current at that moment: a tenant holds two at most.
      const again = await d.rotateClientSecret(t.id, 'c'.repeat(64), until);
      expect(again).to.deep.include({ clientSecretHash: 'c'.repeat(64), previousClientSecretHash: 'b'.repeat(64) });
      expect(await d.rotateClientSecret(t.id, 'd'.repeat(64), null)).to.deep.include({
        previousClientSecretHash: null,
        previousSecretValidUntil: null,
      });
      await d.rotateClientSecret(t.id, 'e'.repeat(64), until);
      expect(await d.replaceClientSecret(t.id, 'f'.repeat(64))).to.equal(true);
      expect(await d.findTenant(t.id)).to.deep.include({
        clientSecretHash: 'f'.repeat(64),
        previousClientSecretHash: null,
        previousSecretValidUntil: null,
      });
      expect(await d.rotateClientSecret(`tnt_${unique()}`, 'x', until)).to.equal(null);
      expect((await d.listTenants()).map((x) => x.id)).to.include(t.id);
    });

    it('when a user is disabled and enabled, then disabledAt follows and the token cut-off stays; unknown users are null', async () => {
      const t = tenant();
      await d.createTenant(t);
      const u = await d.createUser(user(t.id));
      const first = new Date('2026-03-01T00:00:00.000Z');
      expect(await d.setUserDisabled(u.id, first)).to.deep.include({ disabledAt: first, tokensValidFrom: first });
      const later = new Date('2026-03-02T00:00:00.000Z');
      expect(await d.setUserDisabled(u.id, later)).to.deep.include({ disabledAt: first, tokensValidFrom: later });
      const enabled = await d.setUserDisabled(u.id, null);
      expect(enabled).to.deep.include({ disabledAt: null, tokensValidFrom: later });
      expect(await d.findUser(t.id, u.id)).to.deep.equal(enabled);
      expect(await d.setUserDisabled(`usr_${unique()}`, first)).to.equal(null);
    });
    describe('events it records', () => {
      let t: Tenant;
      let events: EmittedEvents;
      let seen: () => Promise<EventSeen[]>;
      beforeEach(async function () {
        if (options.events === undefined) this.skip();
        t = tenant();
        await d.createTenant(t);
        events = await options.events();
        seen = await listenAs(events, { kind: 'tenant', id: t.id }, ['wallet_user.created']);
      });
      const created = (...users: WalletUser[]): EventSeen[] => users.map((u) => ({ type: 'wallet_user.created', id: u.id }));

      it('when a user is created or ensured anew, then exactly one wallet_user.created with its id; ensuring it again records none', async () => {
        const a = await d.createUser(user(t.id));
        expect(await seen()).to.deep.equal(created(a));
        const b = await d.ensureUser(user(t.id));
        expect(await d.ensureUser(user(t.id, { externalUserRef: b.externalUserRef }))).to.deep.include({ id: b.id });
        expect(await seen()).to.deep.equal(created(a, b));
        const other = tenant();
        await d.createTenant(other);
        await d.createUser(user(other.id));
        expect(await seen()).to.deep.equal(created(a, b));
      });

      it('when a creation is refused, then no event: a taken ref or email is user-exists, an unknown tenant tenant-not-found', async () => {
        const a = await d.createUser(user(t.id, { email: `a-${unique()}@example.com` }));
        const before = await seen();
        expect(before).to.deep.equal(created(a));
        expect(await reasonOf(d.createUser(user(t.id, { externalUserRef: a.externalUserRef })))).to.equal('user-exists');
        expect(await reasonOf(d.createUser(user(t.id, { email: a.email!.toUpperCase() })))).to.equal('user-exists');
        expect(await seen()).to.deep.equal(before);
        // A tenant that does not exist, though an endpoint listens for it.
        const ghost = `tnt_${unique()}`;
        const ghostSeen = await listenAs(events, { kind: 'tenant', id: ghost }, ['wallet_user.created']);
        expect(await reasonOf(d.createUser(user(ghost)))).to.equal('tenant-not-found');
        expect(await reasonOf(d.ensureUser(user(ghost)))).to.equal('tenant-not-found');
        expect(await ghostSeen()).to.deep.equal([]);
      });
    });
  });
}
