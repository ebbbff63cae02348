import { authenticatedClient, formOf, formTokenOf, OAUTH_NO_STORE } from './oauth.js';
import { z } from 'zod';
import { operation, type Operation } from '../operation.js';
import { requestOrigin } from '../client-address.js';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../openapi/examples.js';
import { CLIENT_KEY_ALGORITHMS } from '../../../domain/identity/client-keys.js';
import { DPOP_ALGORITHMS } from '../../../domain/identity/dpop.js';
import { JWT_BEARER_ASSERTION_TYPE, TOKEN_EXCHANGE } from '../../../domain/identity/tenant-jwt.js';

const noStore = { 'Cache-Control': 'no-store' } as const;

const clientAuthText =
  'Client authentication as at `POST /oauth/token`: HTTP Basic (preferred) or `client_id`/`client_secret` in the form body, not both; ' +
  'during a secret rotation the previous secret works until its overlap ends. A tenant set up for `private_key_jwt` sends a client ' +
  'assertion (`client_assertion_type`, `client_assertion`) instead.';

const authMethods = z.array(z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt']));
const signingAlgorithms = z.array(z.enum(CLIENT_KEY_ALGORITHMS));

/** RFC 8414 authorization server metadata. */
export const oauthMetadataSchema = z
  .object({
    issuer: z.string().meta({ description: '`TOKEN_ISSUER`: the `iss` of every wallet token', example: 'https://pbw.local' }),
    token_endpoint: z.string().meta({ example: 'https://pbw.local/oauth/token' }),
    jwks_uri: z.string().meta({ example: 'https://pbw.local/.well-known/jwks.json' }),
    revocation_endpoint: z.string().meta({ example: 'https://pbw.local/oauth/revoke' }),
    introspection_endpoint: z.string().meta({ example: 'https://pbw.local/oauth/introspect' }),
    grant_types_supported: z.array(z.enum(['client_credentials', TOKEN_EXCHANGE.grantType])),
    response_types_supported: z.array(z.string()).meta({ description: 'Empty: there is no authorization endpoint' }),
    token_endpoint_auth_methods_supported: authMethods,
    token_endpoint_auth_signing_alg_values_supported: signingAlgorithms.meta({ description: 'What a client assertion may be signed with' }),
    revocation_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_signing_alg_values_supported: signingAlgorithms,
    introspection_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_signing_alg_values_supported: signingAlgorithms,
    dpop_signing_alg_values_supported: z.array(z.enum(DPOP_ALGORITHMS)).meta({ description: 'What a DPoP proof may be signed with' }),
  })
  .meta({ id: 'OAuthServerMetadata' });

/** RFC 7009 §2.1 / RFC 7662 §2.1 form body. */
export const tokenParameterSchema = z.object({
  token: z.string().min(1).meta({
    description: 'The access token (machine or user token); anything else is answered as an unknown token',
    example: EXAMPLE_SECRETS.token,
  }),
  token_type_hint: z.string().optional().meta({ description: 'Accepted and ignored: every token here is an access token' }),
  client_id: z.string().optional().meta({ description: 'With client_secret, instead of HTTP Basic', example: EXAMPLE_IDS.client }),
  // The form's fields carry examples too: the reference page fills a form body from them.
  client_secret: z.string().optional().meta({ example: EXAMPLE_SECRETS.clientSecret }),
  client_assertion_type: z.literal(JWT_BEARER_ASSERTION_TYPE).optional().meta({ description: '`private_key_jwt` (RFC 7523 §2.2)' }),
  client_assertion: z.string().optional().meta({ description: 'A client assertion, as at `POST /oauth/token`' }),
});

/** RFC 7662 §2.2 answer. */
export const introspectionSchema = z
  .object({
    active: z
      .boolean()
      .meta({ description: 'false for every token that is not a live token of the calling tenant; then no other member is present' }),
    sub: z.string().optional().meta({ description: 'The client id (machine token) or the wallet user id (user token)' }),
    tid: z.string().optional().meta({ description: 'The tenant' }),
    client_id: z.string().optional(),
    token_type: z.enum(['Bearer', 'DPoP']).optional().meta({ description: '`DPoP` for a DPoP-bound token' }),
    cnf: z
      .object({ jkt: z.string() })
      .optional()
      .meta({ description: 'DPoP-bound tokens: the SHA-256 thumbprint of the key they are bound to (RFC 9449 §6)' }),
    token_use: z.enum(['wallet-machine', 'wallet-user']).optional().meta({ description: 'Which kind of wallet token it is' }),
    amr: z.array(z.string()).optional().meta({ description: 'User tokens: `pwd` or `tenant_delegated`' }),
    act: z.object({ sub: z.string() }).optional().meta({ description: 'Delegated user tokens: the client that vouched for the person' }),
    iat: z.number().int().optional(),
    exp: z.number().int().optional(),
    jti: z.string().optional(),
  })
  .meta({ id: 'TokenIntrospection' });

const oauthErrorSchema = z.object({
  error: z.enum(['invalid_request', 'invalid_client']),
  error_description: z.string(),
});

const oauthErrors = {
  400: {
    description: '`invalid_request`: no `token`, a repeated parameter, two authentication methods, or a body that is not a form',
    schema: oauthErrorSchema,
  },
  401: {
    description: '`invalid_client` (including a replayed client assertion), with `WWW-Authenticate: Basic`',
    schema: oauthErrorSchema,
    headers: { 'WWW-Authenticate': 'Basic realm="wallet"' },
  },
} as const;

const tokenParameterExample = { token: EXAMPLE_SECRETS.token, client_id: EXAMPLE_IDS.client, client_secret: EXAMPLE_SECRETS.clientSecret };

/** What revoke and introspect share: a client-authenticated form with one `token` (RFCs 7009, 7662). */
const tokenParameterEndpoint = {
  tags: ['auth'],
  token: 'none',
  audience: 'backend',
  oauthErrors: true,
  rateLimit: 'token',
  request: { body: tokenParameterSchema, bodyContentType: 'application/x-www-form-urlencoded' },
} as const;

/** The OAuth revocation (RFC 7009) and introspection (RFC 7662) endpoints, relative to `WALLET_BASE_PATH`. */
export const REVOKE_PATH = '/oauth/revoke';
export const INTROSPECT_PATH = '/oauth/introspect';

/** The OAuth revocation and introspection endpoints. */
export const oauthOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'post',
    path: REVOKE_PATH,
    operationId: 'revokeToken',
    summary: 'Revoke a machine or user token of the tenant (RFC 7009)',
    description:
      `${clientAuthText} The token is refused with 401 \`invalid-token\` from now on, on every instance within a second, until it would have ` +
      'expired anyway. The answer is 200 with an empty body whatever the token was: unknown, forged, expired, already revoked or another ' +
      'tenant’s (which is left alone).',
    ...tokenParameterEndpoint,
    examples: () => ({ body: tokenParameterExample }),
    responses: {
      200: { description: 'Revoked, or nothing to revoke (empty body)', headers: noStore },
      ...oauthErrors,
    },
    // RFC 7009 §2.2: 200 whether or not there was anything to revoke; the hint may be ignored.
    handler: async ({ req, core, authFailures }) => {
      const form = formOf(req);
      const client = await authenticatedClient(req, form, core.identity.authenticateClient, authFailures);
      await core.identity.revokeToken.execute(client, formTokenOf(form), requestOrigin(req));
      return { status: 200, headers: OAUTH_NO_STORE };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: INTROSPECT_PATH,
    operationId: 'introspectToken',
    summary: 'Is this token live? (RFC 7662)',
    description:
      `${clientAuthText} A live token of the calling tenant (valid signature, not expired, not revoked, its user or tenant still there and ` +
      'not disabled) answers `active: true` with its claims. Every other token, including another tenant’s, answers exactly `{ "active": false }`.',
    ...tokenParameterEndpoint,
    examples: () => ({ body: tokenParameterExample, response: { active: false } }),
    responses: {
      200: { description: 'What the token is, or `{ "active": false }`', schema: introspectionSchema, headers: noStore },
      ...oauthErrors,
    },
    handler: async ({ req, core, authFailures }) => {
      const form = formOf(req);
      const client = await authenticatedClient(req, form, core.identity.authenticateClient, authFailures);
      return { status: 200, headers: OAUTH_NO_STORE, body: await core.identity.introspectToken.execute(client, formTokenOf(form)) };
    },
  }),
];
