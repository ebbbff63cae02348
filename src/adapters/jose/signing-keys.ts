import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKeyStore, StoredSigningKey } from '../../domain/identity/signing-key-store.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** Where signing keys come from: configuration (a private JWK or a JWK Set) or the database. */
export type SigningKeySource =
  | { readonly kind: 'configured'; readonly jwks: string }
  | { readonly kind: 'stored'; readonly store: SigningKeyStore; readonly ring: string };

/** The algorithms a wallet token may be signed with. Anything else is refused before any key is tried. */
export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
const GENERATED_ALG: SigningAlgorithm = 'ES256';

interface LoadedKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly publicJwk: JWK;
  readonly verifyKey: CryptoKey;
  readonly signKey: KeyObject | null;
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y'] as const;

const algOf = (jwk: JWK): SigningAlgorithm => {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  throw new Error('token signing keys must be EC P-256 (ES256) or OKP Ed25519 (EdDSA) JWKs');
};

const publicPart = (jwk: JWK, kid: string, alg: SigningAlgorithm): JWK => {
  const out: JWK = { kid, alg, use: 'sig' };
  for (const m of PUBLIC_MEMBERS) if (jwk[m] !== undefined) out[m] = jwk[m];
  return out;
};

async function load(jwk: JWK, kid: string | undefined, alg: SigningAlgorithm, withPrivate: boolean): Promise<LoadedKey> {
  if (jwk.alg !== undefined && jwk.alg !== alg) throw new Error(`signing key ${kid ?? ''}: alg ${jwk.alg} does not match its curve`);
  const id = kid ?? jwk.kid ?? (await calculateJwkThumbprint(jwk, 'sha256'));
  const pub = publicPart(jwk, id, alg);
  return {
    kid: id,
    alg,
    publicJwk: pub,
    verifyKey: (await importJWK(pub, alg)) as CryptoKey,
    // Signing goes through node:crypto (synchronous, on this thread): several times cheaper per
    // token than WebCrypto's asynchronous call, for the same JWS.
    signKey: withPrivate && jwk.d !== undefined ? createPrivateKey({ key: { ...jwk } as JsonWebKey, format: 'jwk' }) : null,
  };
}

/** Makes a new ES256 key pair as a storable record, its kid the RFC 7638 thumbprint. */
export async function generateSigningKey(now: Date): Promise<StoredSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(GENERATED_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: GENERATED_ALG,
    privateJwk: { ...privateJwk, kid, alg: GENERATED_ALG },
    publicJwk: publicPart(publicJwk, kid, GENERATED_ALG) as Record<string, unknown>,
    createdAt: now,
    retiredAt: null,
  };
}

/**
 * The keys this instance signs and verifies with. Configured keys are fixed for the process;
 * stored keys are shared by every instance through the database and re-read every
 * `refreshSeconds`, and at once (at most once a second) when a token names an unknown kid, so a
 * rotation by another instance is honoured everywhere. A retired key keeps verifying and stays
 * published for `retentionSeconds`, longer than any token it signed can live.
 */
export class SigningKeyRing {
  private signing: LoadedKey | null = null;
  private byKid = new Map<string, LoadedKey>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private lastMissReload = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly source: SigningKeySource,
    private readonly clock: Clock,
    private readonly options: { readonly retentionSeconds: number; readonly refreshSeconds?: number },
  ) {}

  /** Loads (and on first start of a stored ring, creates) the keys; safe to call again. */
  async start(): Promise<void> {
    await this.reload();
  }

  /** The key that signs new tokens. */
  async current(): Promise<{ kid: string; alg: SigningAlgorithm; key: KeyObject }> {
    await this.fresh();
    const s = this.signing!;
    return { kid: s.kid, alg: s.alg, key: s.signKey! };
  }

  /** The key that signs new tokens when the ring needs no reload now, else null (then call `current`). */
  currentIfFresh(): { kid: string; alg: SigningAlgorithm; key: KeyObject } | null {
    const s = this.signing;
    if (s === null || this.clock.now().getTime() - this.loadedAt >= this.refreshMs) return null;
    return { kid: s.kid, alg: s.alg, key: s.signKey! };
  }

  /** The public key with this kid and algorithm, or null when there is none usable. */
  async verificationKey(kid: string, alg: string): Promise<CryptoKey | null> {
    await this.fresh();
    let key = this.byKid.get(kid);
    const now = this.clock.now().getTime();
    if (key === undefined && this.source.kind === 'stored' && now - this.lastMissReload >= 1000) {
      this.lastMissReload = now;
      await this.reload();
      key = this.byKid.get(kid);
    }
    return key !== undefined && key.alg === alg ? key.verifyKey : null;
  }

  /** The JWK Set to publish: the signing key and every key still verifying. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.fresh();
    return { keys: [...this.byKid.values()].map((k) => ({ ...k.publicJwk })) };
  }

  /**
   * Stored keys only: a new key starts signing at once; the old one keeps verifying and stays
   * published until every token it signed has expired.
   */
  async rotate(): Promise<{ kid: string; previousKid: string | null }> {
    if (this.source.kind !== 'stored') {
      throw new DomainError('invalid-request', { message: 'Signing keys come from TOKEN_SIGNING_KEY; rotate them in the configuration.' });
    }
    const now = this.clock.now();
    const { active, retired } = await this.source.store.rotate(this.source.ring, await generateSigningKey(now), now);
    await this.reload();
    return { kid: active.kid, previousKid: retired?.kid ?? null };
  }

  private get refreshMs(): number {
    return (this.options.refreshSeconds ?? 30) * 1000;
  }

  private async fresh(): Promise<void> {
    if (this.signing === null || this.clock.now().getTime() - this.loadedAt >= this.refreshMs) await this.reload();
  }

  private reload(): Promise<void> {
    this.loading ??= this.readKeys().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async readKeys(): Promise<void> {
    const now = this.clock.now();
    const keys: LoadedKey[] = [];
    if (this.source.kind === 'configured') {
      const parsed = JSON.parse(this.source.jwks) as JWK | { keys: JWK[] };
      const list = 'keys' in parsed && Array.isArray(parsed.keys) ? parsed.keys : [parsed as JWK];
      for (const jwk of list) keys.push(await load(jwk, jwk.kid, algOf(jwk), true));
      const signer = keys.find((k) => k.signKey !== null);
      if (signer === undefined) throw new Error('TOKEN_SIGNING_KEY holds no private key');
      this.install(signer, keys);
    } else {
      const { store, ring } = this.source;
      const cutoff = new Date(now.getTime() - this.options.retentionSeconds * 1000);
      let usable = await store.listUsable(ring, cutoff);
      let active = usable.find((k) => k.retiredAt === null);
      if (active === undefined) {
        // First start of the ring: every instance offers a key, the database keeps one.
        active = await store.ensureActive(ring, await generateSigningKey(now));
        usable = await store.listUsable(ring, cutoff);
      }
      const activeKid = active.kid;
      for (const k of usable) {
        const isActive = k.kid === activeKid;
        keys.push(await load((isActive ? k.privateJwk : k.publicJwk) as JWK, k.kid, k.alg as SigningAlgorithm, isActive));
      }
      let signer = keys.find((k) => k.kid === activeKid);
      if (signer === undefined) {
        signer = await load(active.privateJwk as JWK, activeKid, active.alg as SigningAlgorithm, true);
        keys.unshift(signer);
      }
      this.install(signer, keys);
    }
    this.loadedAt = now.getTime();
  }

  private install(signer: LoadedKey, keys: readonly LoadedKey[]): void {
    this.byKid = new Map(keys.map((k) => [k.kid, k]));
    this.signing = signer;
  }

  /** The algorithms of the keys in the ring (what verification pins). */
  get algorithms(): SigningAlgorithm[] {
    return [...new Set([...this.byKid.values()].map((k) => k.alg))];
  }
}
