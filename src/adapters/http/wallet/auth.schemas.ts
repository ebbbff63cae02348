import { z } from 'zod';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../openapi/examples.js';
import { EXTERNAL_USER_REF } from '../../../domain/identity/tenant.js';

export const externalUserRefSchema = z
  .string()
  .regex(EXTERNAL_USER_REF, 'must be 1-128 of A-Z a-z 0-9 . _ : @ -')
  .meta({ description: 'The tenant’s own reference for its user', example: 'customer-42' });

/** `POST /oauth/token` form body (RFC 6749 §4.4.2). */
export const tokenRequestSchema = z
  .object({
    grant_type: z.literal('client_credentials'),
    client_id: z.string().optional().meta({ description: 'With client_secret, instead of HTTP Basic', example: EXAMPLE_IDS.client }),
    // The form's fields carry examples too: the reference page fills a form body from them.
    client_secret: z.string().optional().meta({ example: EXAMPLE_SECRETS.clientSecret }),
    scope: z.string().optional().meta({ description: 'Accepted and ignored: a machine token carries the tenant’s whole authority' }),
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
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
});

export const tokenResponseSchema = tokenResponse.meta({ id: 'TokenResponse', description: 'An access token (RFC 6749 §5.1)' });

export const delegatedTokenResponseSchema = tokenResponse
  .extend({ issued_token_type: z.literal('urn:ietf:params:oauth:token-type:access_token') })
  .meta({ id: 'DelegatedTokenResponse', description: 'A user token issued on the tenant backend’s word (RFC 8693 §2.2)' });

export const oauthErrorSchema = z.object({
  error: z.enum(['invalid_request', 'invalid_client', 'unsupported_grant_type']),
  error_description: z.string(),
});
