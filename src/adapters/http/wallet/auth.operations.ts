import { TOKEN_PATH } from '../../oauth-paths.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { clientAddress, requestOrigin } from '../client-address.js';
import { statusOf } from '../errors.js';
import { HttpProblem } from '../problem.js';
import { DpopRefusal, dpopSchemeToken } from '../../../domain/identity/dpop.js';
import { TOKEN_EXCHANGE } from '../../../domain/identity/tenant-jwt.js';
import type { IssuedToken } from '../../../domain/identity/token-issuer.port.js';
import { asOAuthError, authenticatedClient, clientAuthenticationOf, formOf, formValuesOf, OAUTH_NO_STORE, OAuthError } from './oauth.js';
import { NO_STORE, operation, type Answer, type Operation, type ResponseSpec } from '../operation.js';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../openapi/examples.js';
import {
  delegatedTokenRequestSchema,
  delegatedTokenResponseSchema,
  DPOP_PROOF_EXAMPLE,
  dpopHeaderSchema,
  loginRequestSchema,
  oauthErrorSchema,
  oauthTokenResponseSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from './auth.schemas.js';

const noStore = { 'Cache-Control': 'no-store' } as const;

/** The 400 of the answers that take a JSON body and may take a DPoP proof. */
const BAD_BODY_OR_PROOF: ResponseSpec = {
  description: 'Bad body, or a DPoP proof that fails a check (or none when the tenant requires DPoP)',
  reasons: ['invalid-request', 'malformed-json', 'invalid-dpop-proof'],
};

/** The token answer's `token_type`: `DPoP` for a bound token (RFC 9449 §5). */
const tokenTypeOf = (token: IssuedToken): 'Bearer' | 'DPoP' => token.tokenType ?? 'Bearer';

/** The answer that hands out a token; `issued_token_type` for the answers that name it (RFC 8693). */
const tokenAnswer = (token: IssuedToken, issuedTokenType?: string): Answer => ({
  status: 200,
  headers: OAUTH_NO_STORE,
  body:
    issuedTokenType === undefined
      ? { access_token: token.accessToken, token_type: tokenTypeOf(token), expires_in: token.expiresIn }
      : {
          access_token: token.accessToken,
          token_type: tokenTypeOf(token),
          expires_in: token.expiresIn,
          issued_token_type: issuedTokenType,
        },
});

/**
 * A DPoP proof refused at `/auth/login` or `/auth/delegated-token`: 400, as at the token
 * endpoint (RFC 9449 §5), with the problem reason `invalid-dpop-proof` and the OAuth code.
 */
const asBadProof = (err: unknown): unknown =>
  err instanceof DpopRefusal ? new HttpProblem(400, err.reason, err.message, { error: 'invalid_dpop_proof' }) : err;

const dpopProofText =
  'With a `DPoP` proof header (RFC 9449) the token is bound to the proof’s key and answered with `token_type: "DPoP"`; it is then ' +
  'accepted only as `Authorization: DPoP <token>` with a proof for each request. A tenant set to require DPoP gets no token without a proof.';

/** The token-exchange parameters that may be repeated (RFC 8693 §2.1). */
const EXCHANGE_TARGETS = ['audience', 'resource'] as const;

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
    path: TOKEN_PATH,
    operationId: 'issueMachineToken',
    summary: 'OAuth 2.0 token endpoint: client credentials (a machine token) or token exchange (a user token)',
    description:
      'RFC 6749 §4.4 client credentials: a machine token for the tenant’s backend. Client authentication by HTTP Basic (preferred) or ' +
      '`client_id`/`client_secret` in the form body, not both; or, for a tenant set up for `private_key_jwt`, a client assertion ' +
      '(`client_assertion_type` and `client_assertion`, RFC 7523). ' +
      `RFC 8693 token exchange (\`grant_type=${TOKEN_EXCHANGE.grantType}\`): the authenticated client presents a \`subject_token\` ` +
      'it signed for one of its users and gets the user token `POST /auth/delegated-token` would mint for that `externalUserRef`. ' +
      `${dpopProofText} Errors follow RFC 6749 §5.2 (\`{ error, error_description }\`), not problem+json. No refresh token.`,
    tags: ['auth'],
    token: 'none',
    audience: 'backend',
    oauthErrors: true,
    rateLimit: 'token',
    request: { body: tokenRequestSchema, bodyContentType: 'application/x-www-form-urlencoded', headers: dpopHeaderSchema },
    examples: () => ({
      headers: { DPoP: DPOP_PROOF_EXAMPLE },
      body: { grant_type: 'client_credentials', client_id: EXAMPLE_IDS.client, client_secret: EXAMPLE_SECRETS.clientSecret },
      response: { access_token: EXAMPLE_SECRETS.token, token_type: 'Bearer', expires_in: 3600 },
    }),
    responses: {
      200: {
        description: 'A machine token, or with the token exchange a user token (JWT, `typ: at+jwt`)',
        schema: oauthTokenResponseSchema,
        headers: noStore,
      },
      400: {
        description:
          '`invalid_request` (missing or repeated parameter, two authentication methods, a NUL character, a body that is not `application/x-www-form-urlencoded`, is over 16 KiB or cannot be read: `error_description` says which), ' +
          '`unsupported_grant_type`, `invalid_grant` (a subject token that fails a check, or its user disabled), `invalid_target` (a token exchange ' +
          'naming an `audience` or `resource` other than the user token’s) or `invalid_dpop_proof` ' +
          '(a DPoP proof that fails a check, or none when the tenant requires DPoP)',
        schema: oauthErrorSchema,
      },
      401: {
        description: '`invalid_client` (including a replayed client assertion), with `WWW-Authenticate: Basic`',
        schema: oauthErrorSchema,
        headers: { 'WWW-Authenticate': 'Basic realm="wallet"' },
      },
    },
    handler: async ({ req, core, authFailures, dpop }) => {
      // RFC 8693 §2.1: a token exchange may name several audiences and resources.
      const exchange = (req.body as { grant_type?: unknown } | undefined)?.grant_type === TOKEN_EXCHANGE.grantType;
      const form = formOf(req, exchange ? EXCHANGE_TARGETS : []);
      const grantType = form.grant_type;
      if (grantType === undefined || grantType === '') throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
      if (grantType === TOKEN_EXCHANGE.grantType) {
        const client = await authenticatedClient(req, form, core.identity.authenticateClient, authFailures);
        try {
          const token = await core.identity.exchangeToken.execute(
            client,
            {
              subjectToken: form.subject_token,
              subjectTokenType: form.subject_token_type,
              audiences: formValuesOf(req, 'audience'),
              resources: formValuesOf(req, 'resource'),
              requestedTokenType: form.requested_token_type,
              actorToken: form.actor_token,
              actorTokenType: form.actor_token_type,
            },
            dpop,
          );
          return tokenAnswer(token, token.issuedTokenType);
        } catch (err) {
          throw asOAuthError(err);
        }
      }
      if (grantType !== 'client_credentials') {
        throw new OAuthError(400, 'unsupported_grant_type', 'The grant types supported are client_credentials and token exchange.');
      }
      const credentials = clientAuthenticationOf(req, form);
      try {
        // An address that failed too often is refused before the client's secret is looked up.
        const token = await authFailures.guard(req, () => core.identity.issueMachineToken.execute(credentials, dpop));
        return tokenAnswer(token);
      } catch (err) {
        throw asOAuthError(err);
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
      '`act: { sub: <client id> }`; it gives the same access as a password login. No refresh token: mint a new one when it expires. ' +
      `${dpopProofText} A call made with a DPoP-bound machine token spends its proof on the call itself; the user token it gets is unbound. ` +
      'The token exchange at `POST /oauth/token` is the standard way to the same token.',
    tags: ['auth'],
    token: 'machine',
    rateLimit: 'delegated',
    request: { body: delegatedTokenRequestSchema, headers: dpopHeaderSchema },
    examples: () => ({
      headers: { DPoP: DPOP_PROOF_EXAMPLE },
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
      400: BAD_BODY_OR_PROOF,
      401: {
        description:
          'No valid machine token, or a DPoP-bound one without a valid proof for this request (`WWW-Authenticate: DPoP error="…"`)',
        reasons: ['invalid-token', 'invalid-dpop-proof'],
      },
      403: {
        description: 'A user token was sent, or the user is disabled by the operator',
        reasons: ['machine-token-required', 'user-disabled'],
      },
      415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
    },
    handler: async ({ body: { externalUserRef }, caller, core, req, dpop }) => {
      // With `Authorization: DPoP` the proof authenticated this call (it is spent): the user token
      // is bound to the key of the machine token, which that proof showed the caller holds.
      const boundCall = dpopSchemeToken(req.headers.authorization) !== null;
      const machineKey = caller.token().jkt ?? null;
      let token;
      try {
        token = await core.identity.issueDelegatedToken.execute(
          caller.machine(),
          externalUserRef,
          boundCall && machineKey !== null ? { jkt: machineKey } : dpop,
          requestOrigin(req),
        );
      } catch (err) {
        throw asBadProof(err);
      }
      return tokenAnswer(token, 'urn:ietf:params:oauth:token-type:access_token');
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
      '(5 per 15 minutes) and per client address (20 per 15 minutes) are refused with 429 for 15 minutes, on every instance. ' +
      dpopProofText,
    tags: ['auth'],
    token: 'none',
    audience: 'app',
    rateLimit: 'login',
    request: { body: loginRequestSchema, headers: dpopHeaderSchema },
    examples: () => ({
      headers: { DPoP: DPOP_PROOF_EXAMPLE },
      body: { clientId: EXAMPLE_IDS.client, email: DEMO_USER_EXAMPLE.email, password: EXAMPLE_SECRETS.password },
      response: { access_token: EXAMPLE_SECRETS.token, token_type: 'Bearer', expires_in: 900 },
    }),
    responses: {
      200: { description: 'A user token (JWT)', schema: tokenResponseSchema, headers: noStore },
      400: BAD_BODY_OR_PROOF,
      401: {
        description: 'Wrong client id, email or password, or the person is disabled (no hint which)',
        reasons: ['invalid-credentials'],
      },
      415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
      429: { description: 'Too many failed attempts', reasons: ['too-many-attempts'], headers: { 'Retry-After': 'seconds' } },
    },
    presetHeaders: OAUTH_NO_STORE,
    handler: async ({ body, req, core, dpop }) => {
      try {
        const token = await core.identity.logIn.execute({ ...body, address: clientAddress(req), origin: requestOrigin(req) }, dpop);
        return { status: 200, body: { access_token: token.accessToken, token_type: tokenTypeOf(token), expires_in: token.expiresIn } };
      } catch (err) {
        if (err instanceof DpopRefusal) throw asBadProof(err);
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
