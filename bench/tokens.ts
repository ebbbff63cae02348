/**
 * Token issuance per second: this service's `POST /oauth/token` next to node-oidc-provider's
 * client_credentials grant with ES256 JWT access tokens, on the same machine, plus `GET /me`
 * (verification with the token cache and the user lookup). Short runs:
 * `npx tsx bench/tokens.ts [seconds=5]`. Uses DATABASE_URL when set, else in-memory adapters.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import pino from 'pino';
import { loadConfig } from '../src/bootstrap/config.js';
import { openService } from '../src/bootstrap/service.js';
import { TOKENS } from '../src/bootstrap/tokens.js';

const seconds = Number(process.argv[2] ?? 5);
const connections = 20;

async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

async function load(title: string, opts: autocannon.Options): Promise<{ title: string; rps: number; p99: number; errors: number }> {
  const result = await autocannon({ connections, duration: seconds, ...opts });
  const errors = result.errors + result.non2xx;
  return { title, rps: Math.round(result.requests.average), p99: result.latency.p99, errors };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function ours() {
  const env = { ...process.env, RATE_LIMITS: 'off', LOG_LEVEL: 'silent', ...(process.env.DATABASE_URL ? {} : { PERSISTENCE: 'memory' }) };
  const service = await openService(loadConfig(env), pino({ level: 'silent' }));
  const tenant = await service.container.get(TOKENS.CreateTenant).execute({ name: 'bench' });
  const srv = await serve(service.app);
  const auth = basic(tenant.clientId, tenant.clientSecret);
  const tokenRes = await fetch(`${srv.url}/oauth/token`, { method: 'POST', headers: { ...form, authorization: auth }, body: 'grant_type=client_credentials' });
  const machine = ((await tokenRes.json()) as { access_token: string }).access_token;
  const delegated = await fetch(`${srv.url}/auth/delegated-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${machine}`, 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserRef: 'bench-user' }),
  });
  const user = ((await delegated.json()) as { access_token: string }).access_token;
  const rows = [
    await load('this service POST /oauth/token (ES256)', { url: `${srv.url}/oauth/token`, method: 'POST', headers: { ...form, authorization: auth }, body: 'grant_type=client_credentials' }),
    await load('this service GET /me (user token)', { url: `${srv.url}/me`, headers: { authorization: `Bearer ${user}` } }),
  ];
  await srv.close();
  await service.close();
  return rows;
}

async function oidcProvider() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const secret = 'bench-secret-0123456789abcdef0123456789abcdef';
  let issuer = '';
  const srv = await serve((req, res) => provider.callback()(req, res));
  issuer = srv.url;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'bench', client_secret: secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256' }],
    jwks: { keys: [jwk] },
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'urn:bench:wallet',
        getResourceServerInfo: () => ({ scope: '', audience: 'urn:bench:wallet', accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'ES256' } } }),
      },
    },
  });
  const check = await fetch(`${srv.url}/token`, { method: 'POST', headers: { ...form, authorization: basic('bench', secret) }, body: 'grant_type=client_credentials' });
  const sample = (await check.json()) as { access_token?: string };
  const header = sample.access_token ? JSON.parse(Buffer.from(sample.access_token.split('.')[0]!, 'base64url').toString()) : null;
  if (check.status !== 200 || header?.alg !== 'ES256') throw new Error(`oidc-provider did not issue an ES256 JWT: ${check.status} ${JSON.stringify(sample)}`);
  const row = await load('oidc-provider 9 client_credentials (ES256 JWT)', { url: `${srv.url}/token`, method: 'POST', headers: { ...form, authorization: basic('bench', secret) }, body: 'grant_type=client_credentials' });
  await srv.close();
  return [row];
}

const rows = [...(await ours()), ...(await oidcProvider())];
process.stdout.write(`\n${connections} connections, ${seconds} s each, load tool on the same machine (${process.env.DATABASE_URL ? 'PostgreSQL' : 'in-memory'} adapters)\n`);
for (const r of rows) process.stdout.write(`${r.title.padEnd(50)} ${String(r.rps).padStart(7)} req/s   p99 ${String(r.p99).padStart(4)} ms   errors ${r.errors}\n`);
const ourTokens = rows[0]!.rps;
const theirs = rows[rows.length - 1]!.rps;
process.stdout.write(`token issuance ratio (this service / oidc-provider): ${(ourTokens / theirs).toFixed(2)}x\n`);
process.exit(0);
