import { randomBytes, sign, type KeyObject } from 'node:crypto';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { IssuedToken, TokenBinding, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import { claimsFor } from '../../domain/identity/wallet-token.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { SigningAlgorithm, SigningKeyRing } from './signing-keys.js';

/** What every wallet token says about where it comes from and for whom it is meant. */
export interface TokenSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly machineTokenTtlSeconds: number;
  readonly userTokenTtlSeconds: number;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/**
 * The JWS signature of `input` (RFC 7515 compact serialisation, RFC 7518 §3.4: ES256 is the raw
 * r‖s pair, not DER), made by node:crypto on libuv's thread pool: the same JWS jose's `SignJWT`
 * makes, without its WebCrypto promise machinery, and off the event loop, which serves other
 * requests meanwhile. A signature is about a third of a token's time on the event loop; on two
 * cores shared with the load the service answered 1.4 to 1.5 times the tokens a second with it
 * off the loop, on a quiet machine and with two other processes spinning (bench/results.md).
 */
const signature = (alg: SigningAlgorithm, key: KeyObject, input: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const done = (err: Error | null, sig: Buffer): void => (err === null ? resolve(sig.toString('base64url')) : reject(err));
    if (alg === 'ES256') sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, done);
    else sign(null, Buffer.from(input), key, done);
  });

// Random bytes for token ids, drawn from the CSPRNG 256 ids at a time.
const JTI_BYTES = 16;
let jtiPool = Buffer.alloc(0);
let jtiOffset = 0;
const newJti = (): string => {
  if (jtiOffset + JTI_BYTES > jtiPool.length) {
    jtiPool = randomBytes(JTI_BYTES * 256);
    jtiOffset = 0;
  }
  const jti = jtiPool.toString('base64url', jtiOffset, jtiOffset + JTI_BYTES);
  jtiOffset += JTI_BYTES;
  return jti;
};

/**
 * Signs wallet access tokens (JWT) with the ring's current key, its `kid` in the header. The
 * header is `{alg, kid, typ}` and the payload the principal's claims followed by iss, aud, iat,
 * exp and jti, in that order, as jose's `SignJWT` writes them.
 */
export class JoseTokenIssuer implements TokenIssuer {
  /** The encoded header of each key and token type: every token they sign has the same one. */
  private readonly headers = new Map<string, string>();

  constructor(
    private readonly keys: SigningKeyRing,
    private readonly clock: Clock,
    private readonly settings: TokenSettings,
  ) {}

  async issue(principal: WalletPrincipal, binding: TokenBinding | null = null): Promise<IssuedToken> {
    const { typ, claims: principalClaims } = claimsFor(principal);
    const claims = binding === null ? principalClaims : { ...principalClaims, cnf: { jkt: binding.jkt } };
    const ttl = principal.kind === 'machine' ? this.settings.machineTokenTtlSeconds : this.settings.userTokenTtlSeconds;
    const { kid, alg, key } = this.keys.currentIfFresh() ?? (await this.keys.current());
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const header = this.headerOf(alg, kid, typ);
    const payload = b64(
      JSON.stringify({ ...claims, iss: this.settings.issuer, aud: this.settings.audience, iat, exp: iat + ttl, jti: newJti() }),
    );
    const input = `${header}.${payload}`;
    const accessToken = `${input}.${await signature(alg, key, input)}`;
    return binding === null ? { accessToken, expiresIn: ttl } : { accessToken, expiresIn: ttl, tokenType: 'DPoP' };
  }

  private headerOf(alg: SigningAlgorithm, kid: string, typ: string): string {
    const id = `${alg} ${kid} ${typ}`;
    let header = this.headers.get(id);
    if (header === undefined) {
      // Keys rotate now and then: the headers of retired keys are let go.
      if (this.headers.size >= 16) this.headers.clear();
      header = b64(JSON.stringify({ alg, kid, typ }));
      this.headers.set(id, header);
    }
    return header;
  }
}
