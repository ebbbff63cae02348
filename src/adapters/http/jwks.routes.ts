import { Router } from 'express';

/** What the JWKS route publishes. */
export interface JwksSource {
  jwks(): Promise<{ keys: readonly object[] }>;
}

/** `GET /.well-known/jwks.json`: the public keys that verify wallet tokens (current and recently retired). */
export function jwksRoutes(source: JwksSource): Router {
  const router = Router();
  router.get('/.well-known/jwks.json', async (_req, res) => {
    const jwks = await source.jwks();
    // Verifiers refetch on an unknown kid anyway; the short max-age bounds how long a retired key lingers.
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(JSON.stringify(jwks));
  });
  return router;
}
