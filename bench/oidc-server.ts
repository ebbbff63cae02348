/**
 * The comparison for token issuance: node-oidc-provider's client_credentials grant issuing ES256
 * JWT access tokens, in its own process like the service. Prints `READY <port>`; the client is
 * `bench` with the secret below (Basic authentication).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const OIDC_CLIENT = { id: 'bench', secret: 'bench-secret-0123456789abcdef0123456789abcdef' } as const;

async function main(): Promise<void> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  let handler: http.RequestListener = (_req, res) => res.end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        // Its only key is ES256, so its id_token algorithm must be too (no id_token is issued here).
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk] },
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'urn:bench:wallet',
        getResourceServerInfo: () => ({
          scope: '',
          audience: 'urn:bench:wallet',
          accessTokenFormat: 'jwt',
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  handler = provider.callback();
  process.stdout.write(`READY ${port}\n`);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (process.argv[1]?.endsWith('oidc-server.ts')) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
