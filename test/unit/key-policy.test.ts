import { expect } from 'chai';
import {
  MAX_ALLOWED_IPS,
  SCOPES,
  allowlistWithin as allowlistWithinRanges,
  checkPolicyHeld as checkPolicyHeldRanges,
  checkScopesHeld,
  decideKeyPolicy as decideKeyPolicyRanges,
  ipAllowed as ipAllowedRanges,
  keyPolicyError,
  parseAllowedIps as parseAllowedIpsWith,
  parseScopes,
  type Scope,
} from '../../src/domain/identity/key-policy.js';
import { principalFromKey, requireKeyPolicy as requireKeyPolicyRanges } from '../../src/domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../src/domain/identity/principal.js';
import { allowlistRanges, ipaddrRanges } from '../../src/adapters/ip/ip-ranges.ipaddr.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { keyRecordOf } from '../../src/testing/fixtures.js';

/*
 * The rules read ranges that the edge parsed (ipaddr.js, `src/adapters/ip`); these cases write
 * them as text, read here as the service reads them.
 */
const ranges = (texts: readonly string[]) => texts.map((t) => ipaddrRanges.parseRange(t)!);
const ipAllowed = (allowedIps: readonly string[], address: string) =>
  ipAllowedRanges(allowlistRanges(allowedIps), ipaddrRanges.parseAddress(address));
const parseAllowedIps = (cidrs: readonly string[]) => parseAllowedIpsWith(cidrs, ipaddrRanges).map((r) => r.text);
const allowlistWithin = (requested: readonly string[], held: readonly string[]) =>
  allowlistWithinRanges(ranges(requested), allowlistRanges(held));
const checkPolicyHeld = (
  creator: { allowedIps: readonly string[]; expiresAt: Date | null },
  requested: { allowedIps: readonly string[]; expiresAt: Date | null },
) =>
  checkPolicyHeldRanges(
    { allowedIps: allowlistRanges(creator.allowedIps), expiresAt: creator.expiresAt },
    { allowedIps: ranges(requested.allowedIps), expiresAt: requested.expiresAt },
  );
const decideKeyPolicy = (key: { scopes: readonly string[]; allowedIps: readonly string[] }, scope: Scope | null, address: string) =>
  decideKeyPolicyRanges({ scopes: key.scopes, allowedIps: allowlistRanges(key.allowedIps) }, scope, ipaddrRanges.parseAddress(address));
const requireKeyPolicy = (principal: AgentPrincipal, scope: Scope | null, address: string) =>
  requireKeyPolicyRanges(
    { scopes: principal.key.scopes, allowedIps: allowlistRanges(principal.key.allowedIps) },
    scope,
    ipaddrRanges.parseAddress(address),
  );

const reasonOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof DomainError ? err.reason : `not a DomainError: ${String(err)}`;
  }
};

describe('key scopes: the rule of §5.1', () => {
  for (const scope of SCOPES) {
    it(`when an operation needs ${scope}, then a key with it (or *) passes, a key with every other scope is refused`, () => {
      expect(decideKeyPolicy({ scopes: [scope], allowedIps: [] }, scope, '203.0.113.1')).to.deep.equal({ allowed: true });
      expect(decideKeyPolicy({ scopes: ['*'], allowedIps: [] }, scope, '203.0.113.1')).to.deep.equal({ allowed: true });
      const others = SCOPES.filter((s) => s !== scope);
      expect(decideKeyPolicy({ scopes: others, allowedIps: [] }, scope, '203.0.113.1')).to.deep.equal({
        allowed: false,
        reason: 'insufficient-scope',
        requiredScope: scope,
      });
    });
  }

  it('when an operation needs no scope (a key rolling itself or reporting its leak), then any key passes', () => {
    expect(decideKeyPolicy({ scopes: ['trips:read'], allowedIps: [] }, null, '203.0.113.1')).to.deep.equal({ allowed: true });
  });

  it('when the refusal becomes an error, then it is 403 insufficient-scope naming requiredScope, or ip-not-allowed', () => {
    const scope = keyPolicyError({ allowed: false, reason: 'insufficient-scope', requiredScope: 'orders:write' });
    expect([scope.reason, scope.kind, scope.details]).to.deep.equal(['insufficient-scope', 'forbidden', { requiredScope: 'orders:write' }]);
    const ip = keyPolicyError({ allowed: false, reason: 'ip-not-allowed' });
    expect([ip.reason, ip.kind]).to.deep.equal(['ip-not-allowed', 'forbidden']);
  });

  it('when scopes are asked for, then unknown or empty lists are refused, * stands alone and order follows the catalogue', () => {
    expect(parseScopes(['orders:write', 'account:read', 'orders:write'])).to.deep.equal(['account:read', 'orders:write']);
    expect(parseScopes(['*', 'orders:read'])).to.deep.equal(['*']);
    expect(reasonOf(() => parseScopes([]))).to.equal('invalid-request');
    expect(reasonOf(() => parseScopes(['orders:delete']))).to.equal('invalid-request');
  });

  it('when a key makes a key, then it may give only scopes it holds; * holds them all, and only * gives *', () => {
    expect(reasonOf(() => checkScopesHeld(['*'], ['orders:write', 'keys:manage']))).to.equal(null);
    expect(reasonOf(() => checkScopesHeld(['*'], ['*']))).to.equal(null);
    expect(reasonOf(() => checkScopesHeld(['keys:manage', 'orders:read'], ['orders:read']))).to.equal(null);
    expect(reasonOf(() => checkScopesHeld(['keys:manage', 'orders:read'], ['orders:write']))).to.equal('scope-not-held');
    expect(reasonOf(() => checkScopesHeld(SCOPES, ['*']))).to.equal('scope-not-held');
  });
});

describe('a key made by a key: never wider than its creator', () => {
  it('when an allowlist is asked for, then each range must lie inside one of the creator’s, IPv4 and IPv6, an IPv4 range and its mapped form alike', () => {
    const held = ['192.0.2.0/24', '2001:db8:abcd::/48'];
    for (const inside of [
      ['192.0.2.0/24'],
      ['192.0.2.128/25', '192.0.2.7/32'],
      ['::ffff:192.0.2.0/120'],
      ['::ffff:192.0.2.9/128'],
      ['2001:db8:abcd::/48'],
      ['2001:db8:abcd:8000::/49', '2001:db8:abcd::1/128'],
    ])
      expect(allowlistWithin(inside, held), JSON.stringify(inside)).to.equal(true);
    for (const outside of [
      [],
      ['192.0.2.0/23'],
      ['192.0.3.0/24'],
      ['192.0.2.0/24', '198.51.100.1/32'],
      ['0.0.0.0/0'],
      ['::ffff:192.0.0.0/104'],
      ['2001:db8::/32'],
      ['2001:db8:abce::/48'],
      ['::/0'],
    ])
      expect(allowlistWithin(outside, held), JSON.stringify(outside)).to.equal(false);
    // A prefix ending inside a byte.
    expect(allowlistWithin(['10.0.4.0/23'], ['10.0.0.0/21'])).to.equal(true);
    expect(allowlistWithin(['10.0.8.0/23'], ['10.0.0.0/21'])).to.equal(false);
    // IPv6 `::/0` holds IPv4 too, as addresses match; IPv4 `0.0.0.0/0` holds no IPv6.
    expect(allowlistWithin(['192.0.2.0/24'], ['::/0'])).to.equal(true);
    expect(allowlistWithin(['2001:db8::/32'], ['0.0.0.0/0'])).to.equal(false);
    // A creator usable anywhere holds every list, the empty one included.
    expect(allowlistWithin([], [])).to.equal(true);
    expect(allowlistWithin(['::/0'], [])).to.equal(true);
  });

  it('when an expiry is asked for, then it must come no later than the creator’s; never only from a key that never expires; the field is named', () => {
    const at = new Date('2026-06-01T00:00:00Z');
    const fieldOf = (fn: () => void): unknown => {
      try {
        fn();
        return null;
      } catch (err) {
        return err instanceof DomainError ? [err.reason, err.details?.['field']] : err;
      }
    };
    const creator = { allowedIps: ['192.0.2.0/24'], expiresAt: at };
    expect(fieldOf(() => checkPolicyHeld(creator, { allowedIps: ['192.0.2.0/24'], expiresAt: at }))).to.equal(null);
    expect(fieldOf(() => checkPolicyHeld(creator, { allowedIps: ['192.0.2.1/32'], expiresAt: new Date(at.getTime() - 1) }))).to.equal(null);
    expect(fieldOf(() => checkPolicyHeld(creator, { allowedIps: ['192.0.2.0/24'], expiresAt: new Date(at.getTime() + 1) }))).to.deep.equal([
      'policy-not-held',
      'expiresAt',
    ]);
    expect(fieldOf(() => checkPolicyHeld(creator, { allowedIps: ['192.0.2.0/24'], expiresAt: null }))).to.deep.equal([
      'policy-not-held',
      'expiresAt',
    ]);
    expect(fieldOf(() => checkPolicyHeld(creator, { allowedIps: [], expiresAt: at }))).to.deep.equal(['policy-not-held', 'allowedIps']);
    expect(fieldOf(() => checkPolicyHeld({ allowedIps: [], expiresAt: null }, { allowedIps: [], expiresAt: null }))).to.equal(null);
  });
});

describe('key allowlists: IPv4 and IPv6 CIDRs', () => {
  it('when an IPv4 CIDR is allowed, then addresses inside match, outside do not, and their IPv4-mapped IPv6 forms match too', () => {
    const allowed = ['192.0.2.0/24'];
    expect(ipAllowed(allowed, '192.0.2.1')).to.equal(true);
    expect(ipAllowed(allowed, '192.0.2.255')).to.equal(true);
    expect(ipAllowed(allowed, '192.0.3.1')).to.equal(false);
    expect(ipAllowed(allowed, '::ffff:192.0.2.77')).to.equal(true);
    expect(ipAllowed(allowed, '::ffff:c000:0201')).to.equal(true);
    expect(ipAllowed(allowed, '::ffff:192.0.3.77')).to.equal(false);
    expect(ipAllowed(['10.0.0.0/8'], '10.255.1.2')).to.equal(true);
    expect(ipAllowed(['10.0.0.0/8'], '11.0.0.1')).to.equal(false);
    expect(ipAllowed(['0.0.0.0/0'], '8.8.8.8')).to.equal(true);
    expect(ipAllowed(['0.0.0.0/0'], '2001:db8::1')).to.equal(false);
  });

  it('when an IPv6 CIDR is allowed, then addresses inside match (any spelling), outside and IPv4 do not', () => {
    const allowed = ['2001:db8:abcd::/48'];
    expect(ipAllowed(allowed, '2001:db8:abcd:1::5')).to.equal(true);
    expect(ipAllowed(allowed, '2001:0DB8:ABCD:ffff:ffff:ffff:ffff:ffff')).to.equal(true);
    expect(ipAllowed(allowed, '2001:db8:abce::1')).to.equal(false);
    expect(ipAllowed(allowed, '192.0.2.1')).to.equal(false);
    expect(ipAllowed(['::1/128'], '::1')).to.equal(true);
    expect(ipAllowed(['::1/128'], '::2')).to.equal(false);
  });

  it('when a prefix ends inside a byte, then the addresses on either side of its edge are told apart, on every check of the same list', () => {
    const allowed = ['192.0.2.0/23', '2001:db8:8000::/33'];
    for (let check = 0; check < 2; check++) {
      expect(ipAllowed(allowed, '192.0.2.0')).to.equal(true);
      expect(ipAllowed(allowed, '192.0.3.255')).to.equal(true);
      expect(ipAllowed(allowed, '192.0.1.255')).to.equal(false);
      expect(ipAllowed(allowed, '192.0.4.0')).to.equal(false);
      expect(ipAllowed(allowed, '2001:db8:ffff::1')).to.equal(true);
      expect(ipAllowed(allowed, '2001:db8:7fff:ffff::1')).to.equal(false);
    }
    expect(ipAllowed(['192.0.2.0/23'], '192.0.4.0')).to.equal(false);
  });

  it('when the allowlist is empty, then every address is allowed; when it is not, an unreadable address is refused', () => {
    expect(ipAllowed([], 'anything')).to.equal(true);
    expect(ipAllowed(['192.0.2.0/24'], 'not-an-ip')).to.equal(false);
    expect(ipAllowed(['192.0.2.0/24'], '')).to.equal(false);
  });

  it('when an allowlist is given, then CIDRs and bare addresses are kept normalised; bad ones, host bits or more than 20 are refused', () => {
    expect(parseAllowedIps(['192.0.2.0/24', '198.51.100.7', '2001:DB8::/32', '192.0.2.0/24'])).to.deep.equal([
      '192.0.2.0/24',
      '198.51.100.7/32',
      '2001:db8::/32',
    ]);
    for (const bad of [
      '192.0.2.1/24',
      '192.0.2.0/33',
      '256.0.0.0/8',
      '1.2.3/24',
      '2001:db8::/129',
      '2001:db8::1/32',
      'fe80::1%eth0',
      '01.2.3.4',
      'x/8',
      '1::2::3',
    ])
      expect(
        reasonOf(() => parseAllowedIps([bad])),
        bad,
      ).to.equal('invalid-request');
    const many = Array.from({ length: MAX_ALLOWED_IPS + 1 }, (_, i) => `10.0.${i}.0/24`);
    expect(reasonOf(() => parseAllowedIps(many.slice(0, MAX_ALLOWED_IPS)))).to.equal(null);
    expect(reasonOf(() => parseAllowedIps(many))).to.equal('invalid-request');
  });

  it('when a request comes from outside the allowlist, then it is refused ip-not-allowed before any scope is looked at', () => {
    const key = { scopes: ['trips:read'], allowedIps: ['192.0.2.0/24'] };
    expect(decideKeyPolicy(key, 'orders:write', '198.51.100.1')).to.deep.equal({ allowed: false, reason: 'ip-not-allowed' });
    expect(decideKeyPolicy(key, 'trips:read', '192.0.2.9')).to.deep.equal({ allowed: true });
  });
});

describe('key policy on the resolved identity', () => {
  const resolved = (over: Parameters<typeof keyRecordOf>[1]) => ({
    key: keyRecordOf('agt_1', over),
    agent: {
      id: 'agt_1',
      name: 'A',
      status: 'ACTIVE' as const,
      channelCode: 'C',
      entitlements: [],
      discountBps: 0,
      livemode: true,
      createdAt: new Date(0),
    },
    channel: {
      code: 'C',
      name: 'C',
      currency: 'THB',
      markupBps: 0,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 0,
      maxHoldMinutes: 30,
    },
  });

  it('when a key resolves, then the principal carries its scopes and allowlist, and the check needs nothing else', () => {
    const now = new Date('2026-06-01T00:00:00.000Z');
    const principal = principalFromKey(resolved({ scopes: ['orders:read'], allowedIps: ['192.0.2.0/24'] }), now);
    expect(principal.key).to.deep.include({ scopes: ['orders:read'], allowedIps: ['192.0.2.0/24'] });
    expect(reasonOf(() => requireKeyPolicy(principal, 'orders:read', '192.0.2.5'))).to.equal(null);
    expect(reasonOf(() => requireKeyPolicy(principal, 'orders:write', '192.0.2.5'))).to.equal('insufficient-scope');
    expect(reasonOf(() => requireKeyPolicy(principal, 'orders:read', '203.0.113.5'))).to.equal('ip-not-allowed');
  });

  it('when a key is past its expiresAt, then it resolves as invalid-api-key; a moment before, it works', () => {
    const expiresAt = new Date('2026-06-01T00:00:00.000Z');
    expect(reasonOf(() => principalFromKey(resolved({ expiresAt }), expiresAt))).to.equal('invalid-api-key');
    expect(reasonOf(() => principalFromKey(resolved({ expiresAt }), new Date(expiresAt.getTime() - 1)))).to.equal(null);
  });
});
