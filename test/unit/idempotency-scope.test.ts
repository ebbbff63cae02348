import { expect } from 'chai';
import type { MachinePrincipal, WalletUserPrincipal } from '../../src/domain/identity/principal.js';
import { idempotencyScope, type IdempotencyOwner } from '../../src/domain/shared/idempotency.js';
import { idempotencyScopeOf, initiatorOf } from '../../src/domain/wallet/ledger.js';

const machine: MachinePrincipal = { kind: 'machine', tenantId: 'ten_A', clientId: 'cli_1' };
const user: WalletUserPrincipal = { kind: 'user', tenantId: 'ten_A', userId: 'usr_1', amr: ['pwd'], act: null, clientId: 'cli_1' };

describe('idempotency scopes: one rule, stored formats unchanged', () => {
  // These strings are already stored in idempotency_keys.scope and ledger_transactions.idempotency_scope;
  // a retry is matched against them, so a new format would run a stored write a second time.
  it('when the scope of each owner is taken, then it is the format already stored in the database', () => {
    expect(idempotencyScope({ kind: 'agent', agentId: 'agt_1' })).to.equal('agent:agt_1');
    // Writes that mint a key are scoped to the calling key (new in the third release).
    expect(idempotencyScope({ kind: 'agent-key', agentId: 'agt_1', keyId: 'key_1' })).to.equal('agent:agt_1:key:key_1');
    expect(idempotencyScope(machine)).to.equal('wallet:ten_A:machine:cli_1');
    expect(idempotencyScope(user)).to.equal('wallet:ten_A:user:usr_1');
    expect(idempotencyScope(machine, 'tenant')).to.equal('machine:cli_1');
    expect(idempotencyScope(user, 'tenant')).to.equal('user:usr_1');
  });

  it('when the ledger scopes a write, then it uses the part within the tenant of the same rule', () => {
    expect(idempotencyScopeOf(initiatorOf(machine))).to.equal(idempotencyScope(machine, 'tenant'));
    expect(idempotencyScopeOf(initiatorOf(user))).to.equal(idempotencyScope(user, 'tenant'));
  });

  it('when two owners send the same key, then their scopes differ (across kinds, clients, users and tenants)', () => {
    const owners: IdempotencyOwner[] = [
      { kind: 'agent', agentId: 'x_1' },
      { kind: 'agent-key', agentId: 'x_1', keyId: 'key_1' },
      { kind: 'agent-key', agentId: 'x_1', keyId: 'key_2' },
      { kind: 'machine', tenantId: 'ten_A', clientId: 'x_1' },
      { kind: 'machine', tenantId: 'ten_B', clientId: 'x_1' },
      { kind: 'user', tenantId: 'ten_A', userId: 'x_1' },
      { kind: 'user', tenantId: 'ten_B', userId: 'x_1' },
      { kind: 'machine', tenantId: 'ten_A', clientId: 'x_2' },
    ];
    expect(new Set(owners.map((o) => idempotencyScope(o))).size).to.equal(owners.length);
  });
});
