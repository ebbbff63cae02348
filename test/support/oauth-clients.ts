import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Service } from '../../src/bootstrap/service.js';
import type { TestApp } from './app.js';
import type { TestTenant } from './wallet-builders.js';

/** The issuer of the test configuration (`TOKEN_ISSUER` default): the public origin of the endpoints. */
export const ISSUER = 'https://pbw.local';
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export interface SigningKey {
  readonly alg: 'ES256' | 'RS256' | 'EdDSA' | 'Ed25519';
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
}

export async function signingKey(alg: SigningKey['alg'] = 'ES256'): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const kid = `k-${randomUUID()}`;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
  const jkt = await calculateJwkThumbprint(await exportJWK(pair.publicKey), 'sha256');
  return { alg, kid, privateKey: pair.privateKey, publicKey: pair.publicKey, publicJwk, jkt };
}

/** The same key under another name of its algorithm (an Ed25519 key: `EdDSA` or `Ed25519`), in its JWK too; null leaves the JWK without `alg`. */
export const renamed = (key: SigningKey, alg: SigningKey['alg'] | null): SigningKey => {
  const { alg: _old, ...jwk } = key.publicJwk;
  return alg === null ? { ...key, publicJwk: jwk } : { ...key, alg, publicJwk: { ...jwk, alg } };
};

/** Registers the tenant's JWK Set and, unless told otherwise, sets it to `private_key_jwt`, as the operator does. */
export async function registerKeys(
  service: Service,
  tenant: TestTenant,
  keys: readonly SigningKey[],
  options: { method?: 'private_key_jwt' | 'client_secret'; dpopRequired?: boolean } = {},
): Promise<void> {
  const settings = service.core.admin.setTenantClientSettings;
  await settings.setJwks(tenant.tenantId, JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  await settings.setAuthMethod(tenant.tenantId, options.method ?? 'private_key_jwt');
  if (options.dpopRequired !== undefined) await settings.setDpopRequired(tenant.tenantId, options.dpopRequired);
}

const nowS = (): number => Math.floor(Date.now() / 1000);

/** A JWT signed by `key` for the tenant: a client assertion by default; `claims` override, `header` adds to `{ alg, kid }`. */
export const tenantJwt = (
  key: SigningKey,
  clientId: string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> =>
  new SignJWT({ iss: clientId, sub: clientId, aud: ISSUER, iat: nowS(), exp: nowS() + 60, jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey);

/** A DPoP proof (RFC 9449 §4.2) by `key` for `method` and `url`; `claims` override, `token` adds its `ath`. */
export const dpopProof = (
  key: SigningKey,
  method: string,
  url: string,
  options: { token?: string; claims?: Record<string, unknown> } = {},
): Promise<string> =>
  new SignJWT({
    htm: method,
    htu: url,
    iat: nowS(),
    jti: randomUUID(),
    ...(options.token === undefined ? {} : { ath: createHash('sha256').update(options.token).digest('base64url') }),
    ...options.claims,
  })
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(key.privateKey);

/** oauth4webapi's options for the test app: requests to the issuer's URLs go to the app, over plain HTTP. */
export const toApp = (app: TestApp) => ({
  [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) =>
    fetch(url.replace(ISSUER, app.url), init as RequestInit),
  [oauth.allowInsecureRequests]: true,
});

/** The authorization server, discovered from the issuer alone (RFC 8414). */
export async function discover(app: TestApp): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(ISSUER);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...toApp(app) }));
}
