import { z } from 'zod';
import { CLIENT_KEY_ALGORITHMS } from '../../../domain/identity/client-keys.js';
import { DPOP_ALGORITHMS } from '../../../domain/identity/dpop.js';
import { TOKEN_EXCHANGE } from '../../../domain/identity/tenant-jwt.js';
import { operation, type Operation, type ServerIdentity } from '../operation.js';
import { TOKEN_PATH } from '../../oauth-paths.js';
import { INTROSPECT_PATH, oauthMetadataSchema, REVOKE_PATH } from './oauth.operations.js';

/** The JWK Set of the keys that verify wallet tokens, at the root whatever `WALLET_BASE_PATH` is. */
export const JWKS_PATH = '/.well-known/jwks.json';
/** The RFC 8414 well-known path, at the root like the JWKS. */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

// Verifiers refetch on an unknown kid anyway; the short max-age bounds how long a retired key lingers.
const PUBLIC_FIVE_MINUTES = { 'Cache-Control': 'public, max-age=300' } as const;

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;

/** The RFC 8414 authorization server metadata of the wallet. */
export function oauthMetadata(settings: Pick<ServerIdentity, 'issuer' | 'walletBasePath'>): Record<string, unknown> {
  const issuer = settings.issuer;
  const origin = issuer.replace(/\/+$/, '');
  const wallet = `${origin}${settings.walletBasePath}`;
  return {
    issuer,
    token_endpoint: `${wallet}${TOKEN_PATH}`,
    // The JWKS is served at the root whatever WALLET_BASE_PATH is.
    jwks_uri: `${origin}${JWKS_PATH}`,
    revocation_endpoint: `${wallet}${REVOKE_PATH}`,
    introspection_endpoint: `${wallet}${INTROSPECT_PATH}`,
    grant_types_supported: ['client_credentials', TOKEN_EXCHANGE.grantType],
    // No authorization endpoint: tokens come from client credentials, login or delegation.
    response_types_supported: [],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGORITHMS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGORITHMS],
    introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGORITHMS],
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
  };
}

/** The issuer's path component (RFC 8414 §3.1), or '' for an issuer at the root of its origin. */
const issuerPathOf = (issuer: string): string => {
  try {
    return new URL(issuer).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
};

const jwkSchema = z.object({
  kty: z.enum(['EC', 'OKP']),
  crv: z.string(),
  x: z.string(),
  y: z.string().optional(),
  kid: z.string(),
  alg: z.enum(['ES256', 'EdDSA']),
  use: z.literal('sig'),
});

/**
 * What the service publishes about itself, at the root whatever `WALLET_BASE_PATH` says: the
 * JWKS, and the OAuth metadata (one or two paths, per the issuer). Mounted at the root by the
 * same operation router as every other declaration (`WELL_KNOWN_OPERATIONS`).
 */
export const jwksOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'get',
    path: JWKS_PATH,
    atRoot: true,
    audience: 'backend',
    operationId: 'getJwks',
    summary: 'Public keys that verify wallet tokens',
    description:
      'The current signing key and retired keys whose tokens may still be valid. Select by the token’s `kid`. Served at the root, whatever `WALLET_BASE_PATH` says; cache it and fetch it again on an unknown `kid`.',
    tags: ['auth'],
    token: 'none',
    responses: { 200: { description: 'A JWK Set (RFC 7517)', schema: z.object({ keys: z.array(jwkSchema) }) } },
    handler: async ({ server }) => ({ status: 200, headers: PUBLIC_FIVE_MINUTES, body: await server.jwks() }),
  }),
];

/** The RFC 8414 metadata: see `jwksOperations`. */
export const oauthMetadataOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    atRoot: true,
    method: 'get',
    path: OAUTH_METADATA_PATH,
    // When the issuer has a path component, also where RFC 8414 §3.1 puts it for such an issuer.
    alsoAt: (server) => {
      const issuerPath = issuerPathOf(server.issuer);
      return issuerPath === '' ? [] : [`${OAUTH_METADATA_PATH}${issuerPath}`];
    },
    operationId: 'getOAuthServerMetadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description:
      'Lets a client that knows only the issuer (`TOKEN_ISSUER`) find the token, revocation and introspection endpoints and the JWKS. ' +
      'Endpoint URLs are the issuer joined with the endpoint paths (and `WALLET_BASE_PATH`). Served at the root whatever `WALLET_BASE_PATH` is.',
    tags: ['auth'],
    token: 'none',
    audience: 'backend',
    responses: { 200: { description: 'The metadata', schema: oauthMetadataSchema } },
    handler: ({ server }) => ({ status: 200, headers: PUBLIC_FIVE_MINUTES, body: oauthMetadata(server) }),
  }),
];
