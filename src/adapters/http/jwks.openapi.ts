import { z } from 'zod';
import type { OperationSpec } from './operation.js';

const jwkSchema = z.object({
  kty: z.enum(['EC', 'OKP']),
  crv: z.string(),
  x: z.string(),
  y: z.string().optional(),
  kid: z.string(),
  alg: z.enum(['ES256', 'EdDSA']),
  use: z.literal('sig'),
});

/** The published description of the JWKS route. */
export const jwksOperations: readonly OperationSpec[] = [
  {
    surface: 'wallet',
    method: 'get',
    path: '/.well-known/jwks.json',
    atRoot: true,
    audience: 'backend',
    operationId: 'getJwks',
    summary: 'Public keys that verify wallet tokens',
    description:
      'The current signing key and retired keys whose tokens may still be valid. Select by the token’s `kid`. Served at the root, whatever `WALLET_BASE_PATH` says; cache it and fetch it again on an unknown `kid`.',
    tags: ['auth'],
    token: 'none',
    responses: { 200: { description: 'A JWK Set (RFC 7517)', schema: z.object({ keys: z.array(jwkSchema) }) } },
  },
];
