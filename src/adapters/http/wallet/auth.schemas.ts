import { z } from 'zod';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../openapi/examples.js';
import { EXTERNAL_USER_REF } from '../../../domain/identity/tenant.js';
import { JWT_BEARER_ASSERTION_TYPE, TOKEN_EXCHANGE } from '../../../domain/identity/tenant-jwt.js';

export const externalUserRefSchema = z
  .string()
  .regex(EXTERNAL_USER_REF, 'must be 1-128 of A-Z a-z 0-9 . _ : @ -')
  .meta({ description: 'The tenant’s own reference for its user', example: 'customer-42' });

/** `POST /oauth/token` form body: client credentials (RFC 6749 §4.4.2) or token exchange (RFC 8693 §2.1). */
export const tokenRequestSchema = z
  .object({
    grant_type: z.enum(['client_credentials', TOKEN_EXCHANGE.grantType]),
    client_id: z.string().optional().meta({
      description: 'With client_secret, instead of HTTP Basic; with a client assertion, optional (then its issuer)',
      example: EXAMPLE_IDS.client,
    }),
    // The form's fields carry examples too: the reference page fills a form body from them.
    client_secret: z.string().optional().meta({ example: EXAMPLE_SECRETS.clientSecret }),
    client_assertion_type: z.literal(JWT_BEARER_ASSERTION_TYPE).optional().meta({
      description: '`private_key_jwt` (RFC 7523 §2.2), for a tenant set up for it, instead of a secret',
    }),
    client_assertion: z
      .string()
      .optional()
      .meta({
        description:
          'A JWT signed with a key of the tenant’s registered JWK Set: `iss` = `sub` = the client id, `aud` the issuer or this endpoint’s URL, ' +
          '`exp` at most 5 minutes ahead, a `jti` accepted once',
      }),
    subject_token: z
      .string()
      .optional()
      .meta({
        description:
          'Token exchange: a JWT the tenant signed with a key of its JWK Set, `iss` = the client id, `sub` = the person’s `externalUserRef`, ' +
          '`aud` = the issuer, `exp` at most 5 minutes ahead, a `jti` accepted once',
      }),
    subject_token_type: z.literal(TOKEN_EXCHANGE.jwtTokenType).optional().meta({ description: 'Token exchange: the subject token’s type' }),
    requested_token_type: z
      .literal(TOKEN_EXCHANGE.accessTokenType)
      .optional()
      .meta({ description: 'Token exchange: the only type issued; another is `invalid_request`' }),
    audience: z.string().optional().meta({
      description:
        'Token exchange, may be repeated: the audience of the user token (`TOKEN_AUDIENCE`, by default the issuer + `/wallet`); any other is `invalid_target`',
    }),
    resource: z.string().optional().meta({
      description: 'Token exchange, may be repeated: as `audience` (RFC 8707); any other is `invalid_target`',
    }),
    actor_token: z.string().optional().meta({
      description: 'Token exchange: not supported (the user token’s actor is the authenticated client); sent, it is `invalid_request`',
    }),
    actor_token_type: z.string().optional().meta({ description: 'Token exchange: not supported, as `actor_token`' }),
    scope: z.string().optional().meta({ description: 'Accepted and ignored: a token carries its holder’s whole authority' }),
  })
  .meta({ id: 'TokenRequest' });

export const delegatedTokenRequestSchema = z.object({ externalUserRef: externalUserRefSchema }).meta({ id: 'DelegatedTokenRequest' });

export const loginRequestSchema = z
  .object({
    clientId: z.string().min(1).max(128).meta({ description: 'The tenant’s client id (`cli_…`)' }),
    email: z.string().min(3).max(254),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });

const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z
    .enum(['Bearer', 'DPoP'])
    .meta({ description: '`DPoP` when the request carried a DPoP proof: the token is bound to its key' }),
  expires_in: z.number().int(),
});

export const tokenResponseSchema = tokenResponse.meta({ id: 'TokenResponse', description: 'An access token (RFC 6749 §5.1)' });

export const delegatedTokenResponseSchema = tokenResponse
  .extend({ issued_token_type: z.literal('urn:ietf:params:oauth:token-type:access_token') })
  .meta({ id: 'DelegatedTokenResponse', description: 'A user token issued on the tenant backend’s word (RFC 8693 §2.2)' });

/** `POST /oauth/token` answer: `issued_token_type` with the token exchange only. */
export const oauthTokenResponseSchema = tokenResponse
  .extend({
    issued_token_type: z
      .literal(TOKEN_EXCHANGE.accessTokenType)
      .optional()
      .meta({ description: 'Token exchange: the user token is an access token (RFC 8693 §2.2.1)' }),
  })
  .meta({ id: 'OAuthTokenResponse', description: 'A machine token (client credentials) or a user token (token exchange)' });

/** A DPoP proof's shape (header with the public key, htm, htu, iat, jti); its signature is a stand-in. */
export const DPOP_PROOF_EXAMPLE =
  'eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwiY3J2IjoiUC0yNTYiLCJ4IjoibDh0RnJoeC0zNHRWM2hSSUNSRFk5ekNrRGxwQmhGNDJVUVVmV1ZBV0JGcyIsInkiOiI5VkU0amZfT2tfbzY0emJUVGxjdU5KYWpIbXQ2djlURFZyVTBDZHZHUkRBIn19.eyJodG0iOiJQT1NUIiwiaHR1IjoiaHR0cHM6Ly9wYncubG9jYWwvYXV0aC9sb2dpbiIsImlhdCI6MTc2NzIyNTYwMCwianRpIjoiZTFqM1ZfYktpYzgtTEFFQiJ9.c2lnbmF0dXJl';

/** The `DPoP` request header (RFC 9449 §4). */
export const dpopHeaderSchema = z.object({
  DPoP: z.string().optional().meta({
    description: 'A DPoP proof (`typ: dpop+jwt`, ES256, RS256, EdDSA or Ed25519) for this request: the token issued is bound to its key',
    // The shape of a proof: each one is made by the client's key for one request.
    example: DPOP_PROOF_EXAMPLE,
  }),
});

export const oauthErrorSchema = z.object({
  error: z.enum(['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_target', 'invalid_dpop_proof', 'unsupported_grant_type']),
  error_description: z.string(),
});
