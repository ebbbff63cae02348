import { DomainError } from '../../../domain/shared/errors.js';
import { clientAddress, requestOrigin } from '../client-address.js';
import { statusOf } from '../errors.js';
import { HttpProblem } from '../problem.js';
import { asInvalidClient, credentialsOf, formOf, OAUTH_NO_STORE, OAuthError } from './oauth.js';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../openapi/examples.js';
import {
  delegatedTokenRequestSchema,
  delegatedTokenResponseSchema,
  loginRequestSchema,
  oauthErrorSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from './auth.schemas.js';

const noStore = { 'Cache-Control': 'no-store' } as const;

/** The demo wallet user (`demo seed`): the first start prints its password and the tenant's client id and secret. */
export const DEMO_USER_EXAMPLE = { email: 'somchai@demo-wallet.example', externalUserRef: 'demo-user-1' } as const;

/**
 * The token endpoints: `POST /oauth/token` (client credentials, RFC 6749 §4.4, answering RFC 6749
 * errors), `POST /auth/delegated-token` (machine token), `POST /auth/login` (no token) and
 * `POST /auth/logout` (user token).
 */
export const authOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueMachineToken',
    summary: 'OAuth 2.0 client credentials: a machine token for the tenant’s backend',
    description:
      'RFC 6749 §4.4. Client authentication by HTTP Basic (preferred) or `client_id`/`client_secret` in the form body, not both. ' +
      'Errors follow RFC 6749 §5.2 (`{ error, error_description }`), not problem+json. No refresh token.',
    tags: ['auth'],
    token: 'none',
    audience: 'backend',
    oauthErrors: true,
    rateLimit: 'token',
    request: { body: tokenRequestSchema, bodyContentType: 'application/x-www-form-urlencoded' },
    examples: () => ({
      body: { grant_type: 'client_credentials', client_id: EXAMPLE_IDS.client, client_secret: EXAMPLE_SECRETS.clientSecret },
      response: { access_token: EXAMPLE_SECRETS.token, token_type: 'Bearer', expires_in: 3600 },
    }),
    responses: {
      200: { description: 'A machine token (JWT, `typ: at+jwt`)', schema: tokenResponseSchema, headers: noStore },
      400: {
        description:
          '`invalid_request` (missing or repeated parameter, two authentication methods, a NUL character, a body that is not `application/x-www-form-urlencoded`, is over 16 KiB or cannot be read: `error_description` says which) or `unsupported_grant_type`',
        schema: oauthErrorSchema,
      },
      401: {
        description: '`invalid_client`, with `WWW-Authenticate: Basic`',
        schema: oauthErrorSchema,
        headers: { 'WWW-Authenticate': 'Basic realm="wallet"' },
      },
    },
    handler: async ({ req, core, authFailures }) => {
      const form = formOf(req);
      const grantType = form.grant_type;
      if (grantType === undefined || grantType === '') throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
      if (grantType !== 'client_credentials') {
        throw new OAuthError(400, 'unsupported_grant_type', 'Only the client_credentials grant is supported.');
      }
      const credentials = credentialsOf(req, form);
      try {
        // An address that failed too often is refused before the client's secret is looked up.
        const token = await authFailures.guard(req, () => core.identity.issueMachineToken.execute(credentials));
        return {
          status: 200,
          headers: OAUTH_NO_STORE,
          body: { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn },
        };
      } catch (err) {
        throw asInvalidClient(err);
      }
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/auth/delegated-token',
    operationId: 'issueDelegatedToken',
    summary: 'A user token for one of the tenant’s users, vouched for by its backend',
    description:
      'Creates the tenant’s wallet user on first use of an `externalUserRef`. The token’s claims add `amr: ["tenant_delegated"]` and ' +
      '`act: { sub: <client id> }`; it gives the same access as a password login. No refresh token: mint a new one when it expires.',
    tags: ['auth'],
    token: 'machine',
    rateLimit: 'delegated',
    request: { body: delegatedTokenRequestSchema },
    examples: () => ({
      body: { externalUserRef: DEMO_USER_EXAMPLE.externalUserRef },
      response: {
        access_token: EXAMPLE_SECRETS.token,
        token_type: 'Bearer',
        expires_in: 900,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
    }),
    responses: {
      200: { description: 'A user token (JWT)', schema: delegatedTokenResponseSchema, headers: noStore },
      400: { description: 'Bad body', reasons: ['invalid-request', 'malformed-json'] },
      401: { description: 'No valid machine token', reasons: ['invalid-token'] },
      403: {
        description: 'A user token was sent, or the user is disabled by the operator',
        reasons: ['machine-token-required', 'user-disabled'],
      },
      415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
    },
    handler: async ({ body: { externalUserRef }, caller, core, req }) => {
      const token = await core.identity.issueDelegatedToken.execute(caller.machine(), externalUserRef, requestOrigin(req));
      return {
        status: 200,
        headers: OAUTH_NO_STORE,
        body: {
          access_token: token.accessToken,
          token_type: 'Bearer',
          expires_in: token.expiresIn,
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        },
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/auth/login',
    operationId: 'logIn',
    summary: 'A wallet holder signs in with email and password',
    description:
      'Returns a user token with `amr: ["pwd"]`. Unknown email and wrong password answer alike. Repeated failures per account ' +
      '(5 per 15 minutes) and per client address (20 per 15 minutes) are refused with 429 for 15 minutes, on every instance.',
    tags: ['auth'],
    token: 'none',
    audience: 'app',
    rateLimit: 'login',
    request: { body: loginRequestSchema },
    examples: () => ({
      body: { clientId: EXAMPLE_IDS.client, email: DEMO_USER_EXAMPLE.email, password: EXAMPLE_SECRETS.password },
      response: { access_token: EXAMPLE_SECRETS.token, token_type: 'Bearer', expires_in: 900 },
    }),
    responses: {
      200: { description: 'A user token (JWT)', schema: tokenResponseSchema, headers: noStore },
      400: { description: 'Bad body', reasons: ['invalid-request', 'malformed-json'] },
      401: {
        description: 'Wrong client id, email or password, or the person is disabled (no hint which)',
        reasons: ['invalid-credentials'],
      },
      415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
      429: { description: 'Too many failed attempts', reasons: ['too-many-attempts'], headers: { 'Retry-After': 'seconds' } },
    },
    presetHeaders: OAUTH_NO_STORE,
    handler: async ({ body, req, core }) => {
      try {
        const token = await core.identity.logIn.execute({ ...body, address: clientAddress(req), origin: requestOrigin(req) });
        return { status: 200, body: { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn } };
      } catch (err) {
        if (err instanceof DomainError && err.reason === 'too-many-attempts') {
          const retryAfter = String(err.details?.retryAfterSeconds ?? 60);
          throw new HttpProblem(statusOf(err.kind), err.reason, err.message, err.details ?? {}, { 'Retry-After': retryAfter });
        }
        throw err;
      }
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/auth/logout',
    operationId: 'logOut',
    summary: 'A wallet app signs its holder out: the calling user token is revoked',
    description:
      'The user token in `Authorization` is refused from now on, on every instance within a second, until it would have expired anyway. ' +
      'Other tokens of the same person are untouched (a tenant’s backend revokes them with `POST /oauth/revoke`). No body.',
    tags: ['auth'],
    token: 'user',
    responses: {
      204: { description: 'Signed out: the token no longer works', headers: noStore },
    },
    // A wallet app's sign-out: the token that made the call is revoked, on every instance.
    handler: async ({ caller, core, req }) => {
      await core.identity.logOut.execute(caller.token(), requestOrigin(req));
      return { status: 204, headers: NO_STORE };
    },
  }),
];
