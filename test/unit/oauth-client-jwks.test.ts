import { expect } from 'chai';
import { exportJWK, generateKeyPair } from 'jose';
import { algorithmOfJwk, algorithmsOfJwk, CLIENT_JWKS_LIMITS, parseClientJwks } from '../../src/domain/identity/client-keys.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const refusal = (text: string): string => {
  try {
    parseClientJwks(text);
    return 'accepted';
  } catch (err) {
    expect(err).to.be.instanceOf(DomainError);
    expect((err as DomainError).reason).to.equal('invalid-request');
    return (err as DomainError).message;
  }
};

describe('registered client JWK Sets', () => {
  let es: Record<string, unknown>;
  let rs: Record<string, unknown>;
  let ed: Record<string, unknown>;
  let rsPrivate: Record<string, unknown>;
  before(async () => {
    es = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey)) };
    const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
    rs = { ...(await exportJWK(rsa.publicKey)) };
    rsPrivate = { ...(await exportJWK(rsa.privateKey)) };
    ed = { ...(await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).publicKey)) };
  });
  const set = (...keys: unknown[]): string => JSON.stringify({ keys });

  it('when the set holds public ES256, RS256 and EdDSA keys, then each is kept with its public members and algorithm only', () => {
    const parsed = parseClientJwks(
      set({ ...es, kid: 'a', use: 'sig', ext: true }, { ...rs, kid: 'b', alg: 'RS256' }, { ...ed, key_ops: ['verify'] }),
    );
    expect(parsed.keys).to.deep.equal([
      { kty: 'EC', alg: 'ES256', kid: 'a', crv: 'P-256', x: es.x, y: es.y },
      { kty: 'RSA', alg: 'RS256', kid: 'b', n: rs.n, e: rs.e },
      { kty: 'OKP', alg: 'EdDSA', crv: 'Ed25519', x: ed.x },
    ]);
  });

  it('when an Ed25519 key says alg EdDSA, Ed25519 or nothing, then it is kept with the name given, EdDSA when none', () => {
    const parsed = parseClientJwks(set({ ...ed, kid: 'a', alg: 'EdDSA' }, { ...ed, kid: 'b', alg: 'Ed25519' }, { ...ed, kid: 'c' }));
    expect(parsed.keys.map((k) => [k.kid, k.alg])).to.deep.equal([
      ['a', 'EdDSA'],
      ['b', 'Ed25519'],
      ['c', 'EdDSA'],
    ]);
  });

  it('when a key type is asked for its algorithm, then ES256, RS256 or EdDSA, and an Ed25519 key answers to both of its names', () => {
    expect([es, rs, ed].map(algorithmOfJwk)).to.deep.equal(['ES256', 'RS256', 'EdDSA']);
    expect([es, rs, ed].map(algorithmsOfJwk)).to.deep.equal([['ES256'], ['RS256'], ['EdDSA', 'Ed25519']]);
    expect(algorithmOfJwk({ ...ed, crv: 'Ed448' })).to.equal(null);
    expect(algorithmsOfJwk({ kty: 'oct' })).to.deep.equal([]);
  });

  for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) {
    it(`when a key carries the private member "${member}", then the whole set is refused`, () => {
      expect(refusal(set(es, { ...rs, [member]: 'AQAB' }))).to.include('private');
    });
  }

  it('when an operator passes a whole RSA private key, then it is refused', () => {
    expect(refusal(set(rsPrivate))).to.include('private');
  });

  it('when a key is of another type or curve, too weak, mislabelled or for encryption, then the set is refused', () => {
    expect(refusal(set({ kty: 'oct', alg: 'HS256' }))).to.include('only EC P-256');
    expect(refusal(set({ ...es, crv: 'P-384' }))).to.include('only EC P-256');
    expect(refusal(set({ ...ed, crv: 'X25519' }))).to.include('only EC P-256');
    expect(refusal(set({ ...es, alg: 'ES384' }))).to.include('"alg" must be ES256');
    expect(refusal(set({ ...rs, alg: 'PS256' }))).to.include('"alg" must be RS256');
    expect(refusal(set({ ...es, alg: 'Ed25519' }))).to.include('"alg" must be ES256');
    expect(refusal(set({ ...rs, alg: 'EdDSA' }))).to.include('"alg" must be RS256');
    expect(refusal(set({ ...ed, alg: 'ES256' }))).to.include('"alg" must be EdDSA or Ed25519');
    expect(refusal(set({ ...ed, alg: 'Ed448' }))).to.include('"alg" must be EdDSA or Ed25519');
    expect(refusal(set({ ...es, use: 'enc' }))).to.include('"use"');
    expect(refusal(set({ ...es, key_ops: ['sign'] }))).to.include('key_ops');
    expect(refusal(set({ kty: 'RSA', n: Buffer.alloc(128, 0xff).toString('base64url'), e: 'AQAB' }))).to.include('2048');
    expect(refusal(set({ ...es, x: 'AAAA' }))).to.include('wrong length');
    expect(refusal(set({ ...es, y: undefined }))).to.include('"y"');
  });

  it('when the set is no JWK Set, empty, over the limits or has a kid twice, then it is refused', () => {
    expect(refusal('not json')).to.include('not valid JSON');
    expect(refusal(JSON.stringify([es]))).to.include('"keys" array');
    expect(refusal(set())).to.include('1-10 keys');
    expect(refusal(set(...Array.from({ length: CLIENT_JWKS_LIMITS.maxKeys + 1 }, () => es)))).to.include('1-10 keys');
    expect(refusal(JSON.stringify({ keys: [es], pad: 'x'.repeat(CLIENT_JWKS_LIMITS.maxBytes) }))).to.include('larger than');
    expect(refusal(set({ ...es, kid: 'same' }, { ...ed, kid: 'same' }))).to.include('same "kid"');
    expect(refusal(set('a string'))).to.include('not a JSON object');
    expect(parseClientJwks(set(...Array.from({ length: CLIENT_JWKS_LIMITS.maxKeys }, () => es))).keys).to.have.length(10);
  });
});
