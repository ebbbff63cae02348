import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { keyRecord } from '../support/builders.js';
import {
  API_KEY_LENGTH,
  generateApiKey,
  isKeyUsable,
  isWellFormedApiKey,
  keyViewAt,
  revokedKey,
  type ApiKeyRecord,
} from '../../src/domain/identity/api-key.js';

const random = { bytes: (n: number) => randomBytes(n) };

describe('API key format', () => {
  it('when a key is generated, then it is pbk_ + 43 base62 + 6 checksum characters and well formed', () => {
    const key = generateApiKey(random);
    expect(key).to.match(/^pbk_[0-9A-Za-z]{49}$/);
    expect(key).to.have.length(API_KEY_LENGTH);
    expect(isWellFormedApiKey(key)).to.equal(true);
  });

  it('when any single character of the body changes, then the checksum refuses it', () => {
    const key = generateApiKey(random);
    for (let i = 4; i < key.length; i++) {
      const c = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiKey(key.slice(0, i) + c + key.slice(i + 1)), `position ${i}`).to.equal(false);
    }
  });

  it('when the text has the wrong prefix, length or alphabet, then it is not a key', () => {
    const key = generateApiKey(random);
    expect(isWellFormedApiKey(`pbx_${key.slice(4)}`)).to.equal(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).to.equal(false);
    expect(isWellFormedApiKey(`${key}0`)).to.equal(false);
    expect(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).to.equal(false);
    expect(isWellFormedApiKey('')).to.equal(false);
  });

  it('when two keys are generated, then they differ', () => {
    expect(generateApiKey(random)).not.to.equal(generateApiKey(random));
  });
});

describe('API key usability', () => {
  const base: ApiKeyRecord = keyRecord();
  const now = new Date('2026-06-01T00:00:00Z');

  it('when the key is active and has no expiry, then it is usable', () => {
    expect(isKeyUsable(base, now)).to.equal(true);
  });
  it('when the key is revoked for any reason, then it is not usable', () => {
    for (const reason of ['rotated', 'leaked', 'operator'] as const) {
      expect(isKeyUsable({ ...base, status: 'REVOKED', revokedReason: reason, revokedAt: now }, now)).to.equal(false);
    }
  });
  it('when the expiry is now or past, then it is not usable; a moment before, it is', () => {
    expect(isKeyUsable({ ...base, expiresAt: now }, now)).to.equal(false);
    expect(isKeyUsable({ ...base, expiresAt: new Date(now.getTime() - 1) }, now)).to.equal(false);
    expect(isKeyUsable({ ...base, expiresAt: new Date(now.getTime() + 1) }, now)).to.equal(true);
  });
  it('when a rolled key is in its overlap, then it is usable and shown ACTIVE until the overlap ends, then REVOKED rotated', () => {
    const end = new Date(now.getTime() + 60_000);
    const rolled: ApiKeyRecord = { ...base, status: 'REVOKED', revokedReason: 'rotated', revokedAt: end };
    expect(isKeyUsable(rolled, now)).to.equal(true);
    expect(isKeyUsable(rolled, new Date(end.getTime() - 1))).to.equal(true);
    expect(isKeyUsable(rolled, end)).to.equal(false);
    expect(keyViewAt(rolled, null, now)).to.deep.include({ status: 'ACTIVE', expiresAt: end, revokedAt: null, revokedReason: null });
    // After the overlap it still shows when it stopped; an earlier expiry of its own stays first.
    expect(keyViewAt(rolled, null, end)).to.deep.include({ status: 'REVOKED', revokedAt: end, revokedReason: 'rotated', expiresAt: end });
    const sooner = new Date(end.getTime() - 1_000);
    expect(keyViewAt({ ...rolled, expiresAt: sooner }, null, end)).to.deep.include({ expiresAt: sooner });
    // A key revoked by the operator or as leaked keeps its own expiry.
    const revoked: ApiKeyRecord = { ...base, status: 'REVOKED', revokedReason: 'operator', revokedAt: now };
    expect(keyViewAt(revoked, null, end)).to.deep.include({ expiresAt: null });
  });
  it('when a key is revoked, then a rotation still ahead is brought forward, a past revocation stays, and leaked always wins', () => {
    const later = new Date(now.getTime() + 60_000);
    const pending: ApiKeyRecord = { ...base, status: 'REVOKED', revokedReason: 'rotated', revokedAt: later };
    expect(revokedKey(pending, 'leaked', now)).to.deep.include({ revokedReason: 'leaked', revokedAt: now });
    expect(revokedKey(pending, 'operator', now)).to.deep.include({ revokedReason: 'operator', revokedAt: now });
    const past: ApiKeyRecord = { ...base, status: 'REVOKED', revokedReason: 'rotated', revokedAt: new Date(now.getTime() - 1) };
    expect(revokedKey(past, 'operator', now)).to.equal(past);
    expect(revokedKey(past, 'leaked', now)).to.deep.include({ revokedReason: 'leaked', revokedAt: past.revokedAt });
    expect(revokedKey(base, 'operator', now)).to.deep.include({ status: 'REVOKED', revokedReason: 'operator', revokedAt: now });
  });
});
