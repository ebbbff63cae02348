import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Service } from '../../src/bootstrap/service.js';
import { startTestApp, type TestApp } from './app.js';
import { unique } from './builders.js';

export interface TestTenant {
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Creates a tenant through the operator use case. */
export async function buildTenant(
  service: Service,
  overrides: { name?: string; currency?: string; test?: boolean } = {},
): Promise<TestTenant> {
  return service.core.admin.createTenant.execute({
    name: overrides.name ?? `Tenant ${unique()}`,
    ...(overrides.currency ? { currency: overrides.currency } : {}),
    ...(overrides.test ? { test: true } : {}),
  });
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

export const basicAuth = (clientId: string, clientSecret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

/** A form-encoded POST init. */
export const formPost = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});

/** A machine token for the tenant, from `POST /oauth/token` with HTTP Basic. */
export async function machineToken(app: TestApp, tenant: TestTenant): Promise<string> {
  const res = await app.request(
    '/oauth/token',
    formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
  );
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A delegated user token for `externalUserRef` (a new user unless given), and the user's id from `/me`. */
export async function delegatedToken(
  app: TestApp,
  machine: string,
  externalUserRef = `ref-${unique()}`,
): Promise<{ token: string; userId: string; externalUserRef: string }> {
  const res = await app.request('/auth/delegated-token', {
    method: 'POST',
    headers: { ...bearer(machine), 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserRef }),
  });
  if (res.status !== 200) throw new Error(`delegated-token answered ${res.status}: ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  const me = (await (await app.request('/me', { headers: bearer(token) })).json()) as { id: string };
  return { token, userId: me.id, externalUserRef };
}

/** A user with email and password, created with the tenant's machine token. */
export async function buildPasswordUser(app: TestApp, machine: string): Promise<{ userId: string; email: string; password: string }> {
  const email = `Person.${unique()}@Example.com`;
  const password = `pw-${unique()}-${unique()}`;
  const res = await app.request('/users', {
    method: 'POST',
    headers: { ...bearer(machine), 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserRef: `ref-${unique()}`, email, password }),
  });
  if (res.status !== 201) throw new Error(`POST /users answered ${res.status}: ${await res.text()}`);
  return { userId: ((await res.json()) as { id: string }).id, email, password };
}

/** `POST /auth/login` from a given client address (the app must trust one proxy hop). */
export const login = (app: TestApp, body: Record<string, unknown>, address: string): Promise<Response> =>
  app.request('/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });

/**
 * A documentation-range address unique to the test, so throttling counters never collide: every
 * limit counts an IPv6 address by its /56, so the random part is in the first 56 bits.
 */
export const testAddress = (): string => {
  const hex = unique().toLowerCase();
  return `2001:db8:${hex.slice(0, 4)}:${hex.slice(4, 6)}00::${hex.slice(6, 10)}`;
};

/** A fresh ES256 private JWK with a kid, for `TOKEN_SIGNING_KEY`. */
export async function testSigningKey(): Promise<{ privateJwk: JWK; publicJwk: JWK; kid: string }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return { privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' }, publicJwk: { ...publicJwk, kid, alg: 'ES256' }, kid };
}

/** The running app of a wallet suite, its tenant and a machine token for that tenant. */
export interface WalletSuite {
  readonly app: TestApp;
  readonly tenant: TestTenant;
  readonly machine: string;
}

/**
 * Registers `before`/`after` hooks that start the service (with `env`), create a tenant and take a
 * machine token for it, and hands them to `use` once `before` has run.
 */
export function walletSuite(env: Record<string, string>, use: (suite: WalletSuite) => void): void {
  let app: TestApp | undefined;
  before(async () => {
    app = await startTestApp({ env });
    const tenant = await buildTenant(app.service);
    use({ app, tenant, machine: await machineToken(app, tenant) });
  });
  after(async () => {
    await app?.stop();
  });
}
