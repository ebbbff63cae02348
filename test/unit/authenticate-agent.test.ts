import { expect } from 'chai';
import { checkKeyShape, principalFromKey, requireEntitlement, requirePresentedKey } from '../../src/domain/identity/authenticate-agent.js';
import type { ResolvedKey } from '../../src/domain/identity/agent-resolver.port.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { keyRecord } from '../support/builders.js';

const now = new Date('2026-06-01T00:00:00Z');
const resolved = (over: { key?: Partial<ResolvedKey['key']>; agent?: Partial<ResolvedKey['agent']> } = {}): ResolvedKey => ({
  key: keyRecord(over.key),
  agent: {
    id: 'agt_1',
    name: 'A',
    status: 'ACTIVE',
    channelCode: 'C',
    entitlements: ['express-bus'],
    discountBps: 100,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    livemode: true,
    ...over.agent,
  },
  channel: {
    code: 'C',
    name: 'Channel',
    currency: 'THB',
    markupBps: 200,
    freeCancellationHours: 24,
    lateCancellationFeeBps: 5000,
    maxHoldMinutes: 30,
  },
});

const reasonOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return `${err.kind}/${err.reason}`;
    throw err;
  }
  return 'no error';
};

describe('booking identity rules', () => {
  it('when no key or a blank key is presented, then missing-api-key', () => {
    expect(reasonOf(() => requirePresentedKey(undefined))).to.equal('unauthenticated/missing-api-key');
    expect(reasonOf(() => requirePresentedKey(''))).to.equal('unauthenticated/missing-api-key');
    expect(reasonOf(() => requirePresentedKey('   '))).to.equal('unauthenticated/missing-api-key');
  });

  it('when the key is not of our shape, then invalid-api-key before any lookup', () => {
    expect(reasonOf(() => checkKeyShape('not-a-key'))).to.equal('unauthenticated/invalid-api-key');
  });

  it('when no key resolves, or it is revoked or expired, then invalid-api-key alike', () => {
    expect(reasonOf(() => principalFromKey(null, now))).to.equal('unauthenticated/invalid-api-key');
    expect(
      reasonOf(() => principalFromKey(resolved({ key: { status: 'REVOKED', revokedReason: 'leaked', revokedAt: now } }), now)),
    ).to.equal('unauthenticated/invalid-api-key');
    expect(reasonOf(() => principalFromKey(resolved({ key: { expiresAt: new Date(now.getTime() - 1000) } }), now))).to.equal(
      'unauthenticated/invalid-api-key',
    );
  });

  it('when the key is valid but the agent is not ACTIVE, then agent-suspended', () => {
    expect(reasonOf(() => principalFromKey(resolved({ agent: { status: 'SUSPENDED' } }), now))).to.equal('forbidden/agent-suspended');
  });

  it('when a suspended agent also has a revoked key, then the key is judged first (invalid-api-key)', () => {
    const r = resolved({ agent: { status: 'SUSPENDED' }, key: { status: 'REVOKED', revokedReason: 'operator', revokedAt: now } });
    expect(reasonOf(() => principalFromKey(r, now))).to.equal('unauthenticated/invalid-api-key');
  });

  it('when all is well, then the principal carries agent, key id, channel, pricing and entitlements from the key alone', () => {
    const p = principalFromKey(resolved(), now);
    expect(p).to.include({ kind: 'agent', agentId: 'agt_1', keyId: 'key_1', discountBps: 100 });
    expect(p.channel).to.deep.equal({
      code: 'C',
      name: 'Channel',
      currency: 'THB',
      markupBps: 200,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 5000,
      maxHoldMinutes: 30,
    });
    expect(p.entitlements).to.deep.equal(['express-bus']);
  });

  it('when the agent lacks the product, then not-entitled', () => {
    const p = principalFromKey(resolved(), now);
    expect(reasonOf(() => requireEntitlement(p, 'airport-transfer'))).to.equal('forbidden/not-entitled');
    expect(reasonOf(() => requireEntitlement(p, 'express-bus'))).to.equal('no error');
  });
});
