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
    surface: 'platform',
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getJwks',
    summary: 'Public keys that verify wallet tokens',
    description: 'The current signing key and retired keys whose tokens may still be valid. Select by the token’s `kid`.',
    tags: ['auth'],
    token: 'none',
    responses: { 200: { description: 'A JWK Set (RFC 7517)', schema: z.object({ keys: z.array(jwkSchema) }) } },
  },
];
