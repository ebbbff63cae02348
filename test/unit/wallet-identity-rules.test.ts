import { expect } from 'chai';
import { DomainError } from '../../src/domain/shared/errors.js';
import { bearerToken, claimsFor, principalFromToken, requireTokenKind } from '../../src/domain/identity/wallet-token.js';
import { requireNotThrottled, retryAfterSeconds } from '../../src/domain/identity/login-throttle.js';
import { constantTimeEqual, generateClientSecret, isExternalUserRef } from '../../src/domain/identity/tenant.js';
import type { MachinePrincipal, WalletUserPrincipal } from '../../src/domain/identity/principal.js';

const reasonOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return `${err.reason}/${err.kind}`;
    throw err;
  }
  return 'passed';
};

const machine: MachinePrincipal = { kind: 'machine', tenantId: 'tnt_1', clientId: 'cli_1' };
const user: WalletUserPrincipal = {
  kind: 'user',
  tenantId: 'tnt_1',
  userId: 'usr_1',
  amr: ['tenant_delegated'],
  act: { sub: 'cli_1' },
  clientId: 'cli_1',
};

describe('wallet token claims', () => {
  it('when a principal is turned into claims and back, then it is the same principal', () => {
    for (const p of [machine, user, { ...user, amr: ['pwd'], act: null }]) {
      const { typ, claims } = claimsFor(p);
      expect(principalFromToken(typ, claims as unknown as Record<string, unknown>)).to.deep.equal(p);
    }
  });

  it('when the typ disagrees with token_use or the claim shapes, then no principal', () => {
    const m = claimsFor(machine).claims as unknown as Record<string, unknown>;
    const u = claimsFor(user).claims as unknown as Record<string, unknown>;
    expect(principalFromToken('wallet-user+jwt', m)).to.equal(null);
    expect(principalFromToken('at+jwt', u)).to.equal(null);
    expect(principalFromToken('JWT', u)).to.equal(null);
    expect(principalFromToken(undefined, m)).to.equal(null);
    expect(principalFromToken('at+jwt', { ...m, amr: ['pwd'] })).to.equal(null);
    expect(principalFromToken('at+jwt', { ...m, sub: 'cli_other' })).to.equal(null);
    expect(principalFromToken('wallet-user+jwt', { ...u, amr: [] })).to.equal(null);
    expect(principalFromToken('wallet-user+jwt', { ...u, sub: 'cli_1' })).to.equal(null);
    expect(principalFromToken('wallet-user+jwt', { ...u, act: 'cli_1' })).to.equal(null);
    expect(principalFromToken('wallet-user+jwt', { ...u, tid: 42 })).to.equal(null);
    expect(principalFromToken('application/AT+JWT', m)).to.deep.equal(machine);
  });

  it('when the Authorization header is not one Bearer token, then invalid-token', () => {
    expect(bearerToken('Bearer a.b.c')).to.equal('a.b.c');
    expect(bearerToken('bearer   a.b.c')).to.equal('a.b.c');
    for (const h of [undefined, '', 'Bearer', 'Bearer ', 'Basic a.b.c', 'Bearer a b', 'Bearer a,b', `Bearer ${'x'.repeat(8193)}`]) {
      expect(
        reasonOf(() => bearerToken(h)),
        String(h),
      ).to.equal('invalid-token/unauthenticated');
    }
  });
});

describe('token kind per operation', () => {
  it('when the kind fits the rule, then the principal passes', () => {
    expect(requireTokenKind(machine, 'machine')).to.equal(machine);
    expect(requireTokenKind(user, 'user')).to.equal(user);
    expect(requireTokenKind(machine, 'either')).to.equal(machine);
    expect(requireTokenKind(user, 'either')).to.equal(user);
  });

  it('when a machine token meets a user rule, then 401 not-a-wallet-user; a user token on a machine rule, 403', () => {
    expect(reasonOf(() => requireTokenKind(machine, 'user'))).to.equal('not-a-wallet-user/unauthenticated');
    expect(reasonOf(() => requireTokenKind(user, 'machine'))).to.equal('machine-token-required/forbidden');
  });
});

describe('login throttling rule', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');
  it('when no state is locked, then the attempt proceeds; a lock names the longest wait in whole seconds', () => {
    expect(reasonOf(() => requireNotThrottled([{ attempts: 3, lockedUntil: null }], now))).to.equal('passed');
    expect(retryAfterSeconds({ attempts: 6, lockedUntil: new Date(now.getTime() + 1500) }, now)).to.equal(2);
    expect(retryAfterSeconds({ attempts: 6, lockedUntil: new Date(now.getTime() - 1) }, now)).to.equal(0);
    try {
      requireNotThrottled(
        [
          { attempts: 6, lockedUntil: new Date(now.getTime() + 10_000) },
          { attempts: 21, lockedUntil: new Date(now.getTime() + 90_000) },
        ],
        now,
      );
      expect.fail('must throw');
    } catch (err) {
      expect(err).to.be.instanceOf(DomainError);
      expect((err as DomainError).reason).to.equal('too-many-attempts');
      expect((err as DomainError).details).to.deep.equal({ retryAfterSeconds: 90 });
    }
  });
});

describe('tenant credentials', () => {
  it('when a client secret is generated, then it carries 256 random bits behind a recognisable prefix', () => {
    const bytes = new Uint8Array(32).fill(0xab);
    expect(generateClientSecret({ bytes: (n) => bytes.slice(0, n) })).to.equal(`pbcs_${'ab'.repeat(32)}`);
  });
  it('when hashes are compared, then equal strings match and any difference does not', () => {
    expect(constantTimeEqual('abc', 'abc')).to.equal(true);
    expect(constantTimeEqual('abc', 'abd')).to.equal(false);
    expect(constantTimeEqual('abc', 'abcd')).to.equal(false);
    expect(constantTimeEqual('', '')).to.equal(true);
  });
  it('when a ref is judged, then 1-128 of the allowed characters pass', () => {
    expect(isExternalUserRef('a.b_c:d@e-f9')).to.equal(true);
    expect(isExternalUserRef('')).to.equal(false);
    expect(isExternalUserRef('a'.repeat(129))).to.equal(false);
    expect(isExternalUserRef('a b')).to.equal(false);
  });
});
