import { expect } from 'chai';
import type { AgentPrincipal, MachinePrincipal, WalletUserPrincipal } from '../../src/domain/identity/principal.js';
import { webhookOwnerOf } from '../../src/domain/webhooks/owner.js';
import { reasonOf } from '../support/errors.js';

describe('webhookOwnerOf (the ownership rule of webhook endpoints)', () => {
  const agent: AgentPrincipal = {
    kind: 'agent',
    agentId: 'agt_A',
    agentName: 'A',
    keyId: 'key_A',
    key: { id: 'key_A', prefix: 'pk_A', createdAt: new Date(0), expiresAt: null, scopes: ['*'], allowedIps: [] },
    channel: {
      code: 'CH',
      name: 'Channel',
      currency: 'THB',
      markupBps: 0,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 5_000,
      maxHoldMinutes: 30,
    },
    entitlements: [],
    discountBps: 0,
    livemode: true,
  };
  const machine: MachinePrincipal = { kind: 'machine', tenantId: 'tnt_X', clientId: 'cli_X' };
  const user: WalletUserPrincipal = { kind: 'user', tenantId: 'tnt_X', userId: 'usr_1', amr: ['pwd'], act: null, clientId: 'cli_X' };

  it('when an agent calls, then it owns the agent’s endpoints; when a tenant’s backend calls, the tenant’s', () => {
    expect(webhookOwnerOf(agent)).to.deep.equal({ kind: 'agent', id: 'agt_A' });
    expect(webhookOwnerOf(machine)).to.deep.equal({ kind: 'tenant', id: 'tnt_X' });
  });

  it('when a wallet user is passed at run time, then machine-token-required, not its tenant’s endpoints', async () => {
    expect(await reasonOf(Promise.resolve().then(() => webhookOwnerOf(user as unknown as MachinePrincipal)))).to.equal(
      'machine-token-required',
    );
  });
});
