import { z } from 'zod';
import { TITLES } from '../problem.js';

/** One schema failure of a 400 `invalid-request`. */
export const problemErrorSchema = z.object({
  path: z.string().meta({ description: 'Dotted path of the offending field, `(root)` for the whole document' }),
  message: z.string(),
});

/**
 * The body of every error (RFC 9457 problem details plus the service's fields). Clients branch on
 * `reason`, never on `message`. Further members may appear (e.g. details of a conflict): JSON
 * Schema allows them, and the test helper does not reject them for errors.
 */
export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'Always `about:blank`: the `reason` says what happened' }),
    title: z.string().meta({ description: 'The HTTP status phrase' }),
    status: z.number().int().meta({ description: 'The HTTP status, repeated' }),
    reason: z.string().meta({ description: 'Stable kebab-case code to branch on' }),
    message: z.string().meta({ description: 'For humans; may change at any time' }),
    requestId: z.string().meta({ description: 'The `X-Request-Id` of the response, to quote to support' }),
    errors: z.array(problemErrorSchema).optional().meta({ description: 'With `invalid-request`: every schema failure' }),
  })
  .meta({ id: 'Problem', description: 'An error, as `application/problem+json`' });

/** The problem body of one documented response: its status and one of its reasons. */
export const problemSchemaFor = (status: number, reasons: readonly string[]) =>
  problemSchema.extend({
    status: z.literal(status),
    reason: z.enum(reasons as [string, ...string[]]),
  });

/** Name of the shared schema in `components.schemas` (its zod `meta` id). */
export const PROBLEM_COMPONENT = 'Problem';

/** An example body of one problem response (its first reason), so readers see the right status and reason. */
export const problemExampleFor = (status: number, reasons: readonly string[]) => ({
  type: 'about:blank',
  title: TITLES[status] ?? 'Error',
  status,
  reason: reasons[0],
  message: 'A sentence for humans.',
  requestId: 'req_3q2Zl9dCkQvWm8bX',
});

/** The OpenAPI schema of one problem response: the shared `Problem` narrowed to a status and its reasons. */
export const problemJsonSchemaFor = (status: number, reasons: readonly string[]) => ({
  allOf: [
    { $ref: `#/components/schemas/${PROBLEM_COMPONENT}` },
    {
      type: 'object' as const,
      properties: {
        status: { const: status },
        reason: { type: 'string' as const, enum: [...reasons] },
        // A key refused for its scope is told which one the operation needs.
        ...(reasons.includes('insufficient-scope')
          ? { requiredScope: { type: 'string' as const, description: 'With `insufficient-scope`: the scope the operation needs' } }
          : {}),
        // A key refused for a policy wider than its creator's is told which field.
        ...(reasons.includes('policy-not-held')
          ? {
              field: {
                type: 'string' as const,
                enum: ['allowedIps', 'expiresAt'],
                description: 'With `policy-not-held`: the field that is wider than the calling key’s',
              },
            }
          : {}),
      },
    },
  ],
});
