import { expect } from 'chai';
import {
  createCore,
  createMemoryPorts,
  createPostgresPorts,
  type AgentPrincipal,
  type Core,
  type MachinePrincipal,
  type PortSet,
  type WalletPrincipal,
} from 'partner-booking-wallet';
import { reasonOf, unique } from 'partner-booking-wallet/testing';
import { testDatabase } from '../support/database.js';

/**
 * A program that embeds the core holds the use cases themselves, with no HTTP in front: each
 * caller-facing use case takes the caller's principal and the core decides what it owns, so one
 * agent's or tenant's principal reaches nothing of another's.
 */
const sets: ReadonlyArray<readonly [string, () => Promise<PortSet>]> = [
  ['memory', async () => createMemoryPorts()],
  ['test database', async () => createPostgresPorts({ database: await testDatabase() })],
];

/** A public address literal: the URL guard passes it without resolving anything. */
const HOOK_URL = 'https://93.184.215.14/hooks';

async function agentPrincipal(core: Core, channelCode: string, name: string): Promise<AgentPrincipal> {
  const agent = await core.admin.createAgent.execute({ name, channelCode });
  const { apiKey } = await core.admin.issueApiKey.execute({ agentId: agent.id });
  return core.identity.authenticateAgent.execute(apiKey);
}

async function machinePrincipal(core: Core, name: string): Promise<MachinePrincipal> {
  const tenant = await core.admin.createTenant.execute({ name: `${name} ${unique()}` });
  const { accessToken } = await core.identity.issueMachineToken.execute({ clientId: tenant.clientId, clientSecret: tenant.clientSecret });
  const principal = await core.identity.verifyWalletToken.execute(`Bearer ${accessToken}`);
  if (principal.kind !== 'machine') throw new Error('expected a machine principal');
  return principal;
}

for (const [name, make] of sets) {
  describe(`callers through the public entry (createCore on the ${name} port set)`, () => {
    let ports: PortSet;
    let core: Core;
    before(async () => {
      ports = await make();
      await ports.start();
      core = createCore(ports);
      await core.catalogue.seed.execute();
    });
    after(async () => {
      await ports?.stop();
    });

    it('when agent A names agent B’s endpoint or delivery, then it is not found, and B’s endpoint is untouched', async () => {
      const channel = `OWN-${unique()}`;
      await core.admin.createChannel.execute({ code: channel, name: 'Ownership', currency: 'THB' });
      const a = await agentPrincipal(core, channel, 'Agent A');
      const b = await agentPrincipal(core, channel, 'Agent B');

      const ofA = await core.webhooks.register.execute(a, { url: `${HOOK_URL}/a`, events: ['order.confirmed'] });
      const ofB = await core.webhooks.register.execute(b, { url: `${HOOK_URL}/b`, events: ['order.confirmed'] });
      // The owner is made by the core from the principal.
      expect(ofA.owner).to.deep.equal({ kind: 'agent', id: a.agentId });
      expect(ofB.owner).to.deep.equal({ kind: 'agent', id: b.agentId });

      // B books: its endpoint gets a delivery of order.confirmed.
      const quote = await core.booking.quoteTransfer.execute(b, {
        fromLocationId: 'loc_bkk',
        toLocationId: 'loc_bkk_silom',
        pickupAt: new Date(Date.now() + 2 * 86_400_000),
        passengers: 1,
      });
      await core.booking.placeOrder.execute(b, { quoteId: quote.id, contact: { name: 'B Traveller', email: 'b@example.com' } });
      const [delivery] = (await core.webhooks.deliveries.execute(b, ofB.id, {})).data;
      expect(delivery?.type).to.equal('order.confirmed');

      expect((await core.webhooks.list.execute(a, {})).data.map((e) => e.id)).to.deep.equal([ofA.id]);
      expect(await reasonOf(core.webhooks.get.execute(a, ofB.id))).to.equal('webhook-endpoint-not-found');
      expect(await reasonOf(core.webhooks.deliveries.execute(a, ofB.id, {}))).to.equal('webhook-endpoint-not-found');
      expect(await reasonOf(core.webhooks.retry.execute(a, ofB.id, delivery!.id))).to.equal('webhook-endpoint-not-found');
      expect(await reasonOf(core.webhooks.remove.execute(a, ofB.id))).to.equal('webhook-endpoint-not-found');
      // A's own endpoint does not open B's deliveries either.
      expect(await reasonOf(core.webhooks.retry.execute(a, ofA.id, delivery!.id))).to.equal('webhook-delivery-not-found');

      expect((await core.webhooks.get.execute(b, ofB.id)).id).to.equal(ofB.id);
      expect((await core.webhooks.deliveries.execute(b, ofB.id, {})).data.map((d) => d.id)).to.deep.equal([delivery!.id]);
    });

    it('when tenant X names tenant Y’s endpoint or an agent’s, then it is not found; a wallet user reaches no endpoint', async () => {
      const channel = `OWN-${unique()}`;
      await core.admin.createChannel.execute({ code: channel, name: 'Ownership', currency: 'THB' });
      const agent = await agentPrincipal(core, channel, 'Agent');
      const x = await machinePrincipal(core, 'Tenant X');
      const y = await machinePrincipal(core, 'Tenant Y');
      const ofY = await core.webhooks.register.execute(y, { url: `${HOOK_URL}/y`, events: ['wallet_user.created'] });
      const ofAgent = await core.webhooks.register.execute(agent, { url: `${HOOK_URL}/agent`, events: ['order.confirmed'] });
      expect(ofY.owner).to.deep.equal({ kind: 'tenant', id: y.tenantId });

      expect((await core.webhooks.list.execute(x, {})).data).to.deep.equal([]);
      for (const id of [ofY.id, ofAgent.id]) {
        expect(await reasonOf(core.webhooks.get.execute(x, id))).to.equal('webhook-endpoint-not-found');
        expect(await reasonOf(core.webhooks.deliveries.execute(x, id, {}))).to.equal('webhook-endpoint-not-found');
        expect(await reasonOf(core.webhooks.remove.execute(x, id))).to.equal('webhook-endpoint-not-found');
      }

      // A wallet user of Y is not Y's backend, whatever a caller passes at run time.
      const yUser = await core.identity.createWalletUser.execute(y, { externalUserRef: `u-${unique()}` });
      const delegated = await core.identity.issueDelegatedToken.execute(y, yUser.externalUserRef);
      const user: WalletPrincipal = await core.identity.verifyWalletToken.execute(`Bearer ${delegated.accessToken}`);
      expect(user.kind).to.equal('user');
      expect(await reasonOf(core.webhooks.list.execute(user as unknown as MachinePrincipal, {}))).to.equal('machine-token-required');
      expect(await reasonOf(core.webhooks.get.execute(user as unknown as MachinePrincipal, ofY.id))).to.equal('machine-token-required');

      expect((await core.webhooks.list.execute(y, {})).data.map((e) => e.id)).to.deep.equal([ofY.id]);
    });

    it('when tenant X reads balances of tenant Y’s user, then it reads none of Y’s money; a user X creates is X’s, never Y’s', async () => {
      const x = await machinePrincipal(core, 'Tenant X');
      const y = await machinePrincipal(core, 'Tenant Y');
      const yUser = await core.identity.createWalletUser.execute(y, { externalUserRef: `y-${unique()}` });
      await core.wallet.topUp.execute({ principal: y, userId: yUser.id, amount: 50_000, reference: 'top-up' });

      const seenByY = await core.wallet.getUserBalances.execute(y, [yUser.id]);
      expect(seenByY.get(yUser.id)).to.deep.equal({ amount: 50_000, currency: 'THB' });
      const seenByX = await core.wallet.getUserBalances.execute(x, [yUser.id]);
      expect(seenByX.get(yUser.id)).to.deep.equal({ amount: 0, currency: 'THB' });
      expect(await reasonOf(core.identity.getWalletUser.execute(x, yUser.id))).to.equal('user-not-found');

      const xUser = await core.identity.createWalletUser.execute(x, { externalUserRef: `x-${unique()}` });
      expect((await core.identity.getWalletUser.execute(x, xUser.id)).id).to.equal(xUser.id);
      expect(await reasonOf(core.identity.getWalletUser.execute(y, xUser.id))).to.equal('user-not-found');
      expect((await core.identity.listWalletUsers.execute(y, {})).data.map((u) => u.id)).to.deep.equal([yUser.id]);
      expect((await core.admin.listTenantUsers.execute(y.tenantId)).map((u) => u.userId)).to.deep.equal([yUser.id]);
    });

    it('when the callers’ areas are listed, then the operator’s id-taking key use cases are only in admin', () => {
      for (const operatorOnly of ['listAgentKeys', 'revokeApiKey']) {
        expect(core.identity, operatorOnly).not.to.have.property(operatorOnly);
        expect(core.admin, operatorOnly).to.have.property(operatorOnly);
      }
    });
  });
}
