import { Router, type Request, type Response } from 'express';
import { CLIENT_KEY_ALGORITHMS } from '../../../domain/identity/client-keys.js';
import { DPOP_ALGORITHMS } from '../../../domain/identity/dpop.js';
import { TOKEN_EXCHANGE } from '../../../domain/identity/tenant-jwt.js';

/** Where the wallet's OAuth endpoints are published from. */
export interface OAuthMetadataSettings {
  /** `TOKEN_ISSUER`: the `iss` of every wallet token. */
  readonly issuer: string;
  /** `WALLET_BASE_PATH`: where the wallet routes (token, revocation, introspection) are mounted. */
  readonly walletBasePath: string;
}

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;

/** The RFC 8414 authorization server metadata of the wallet. */
export function oauthMetadata(settings: OAuthMetadataSettings): Record<string, unknown> {
  const issuer = settings.issuer;
  const origin = issuer.replace(/\/+$/, '');
  const wallet = `${origin}${settings.walletBasePath}`;
  return {
    issuer,
    token_endpoint: `${wallet}/oauth/token`,
    // The JWKS is served at the root whatever WALLET_BASE_PATH is.
    jwks_uri: `${origin}/.well-known/jwks.json`,
    revocation_endpoint: `${wallet}/oauth/revoke`,
    introspection_endpoint: `${wallet}/oauth/introspect`,
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

/** The RFC 8414 well-known path. */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414), at the root like the JWKS, so a
 * client that knows only the issuer configures itself. When the issuer has a path component,
 * the metadata is also served where RFC 8414 §3.1 puts it for such an issuer (the well-known
 * path followed by the issuer's path).
 */
export function oauthMetadataRoutes(settings: OAuthMetadataSettings): Router {
  const router = Router();
  const body = JSON.stringify(oauthMetadata(settings));
  const send = (_req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(body);
  };
  router.get(OAUTH_METADATA_PATH, send);
  let issuerPath: string;
  try {
    issuerPath = new URL(settings.issuer).pathname.replace(/\/+$/, '');
  } catch {
    issuerPath = '';
  }
  if (issuerPath !== '') router.get(`${OAUTH_METADATA_PATH}${issuerPath}`, send);
  return router;
}
