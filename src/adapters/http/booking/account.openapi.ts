import { z } from 'zod';
import type { OperationSpec } from '../operation.js';
import { timestamp } from './booking.schemas.js';
import { EXAMPLE_IDS } from '../openapi/examples.js';

export const agentAccountSchema = z
  .object({
    agentId: z.string(),
    name: z.string(),
    status: z.literal('ACTIVE'),
    channel: z.object({ code: z.string(), name: z.string(), currency: z.string() }),
    entitlements: z.array(z.enum(['airport-transfer', 'express-bus'])),
    pricing: z.object({ currency: z.string(), channelMarkupBps: z.number().int(), agentDiscountBps: z.number().int() }),
    apiKey: z.object({ id: z.string(), prefix: z.string(), createdAt: timestamp(), expiresAt: timestamp().nullable() }),
  })
  .meta({ id: 'AgentAccount', description: 'The calling agent, as its key resolves' });

/** The published description of `GET /api/v1/agent/account`. */
export const accountOperations: readonly OperationSpec[] = [
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/agent/account',
    operationId: 'getAgentAccount',
    summary: 'The calling agent, resolved from its key',
    tags: ['account'],
    token: 'api-key',
    examples: (demo) => ({
      response: {
        agentId: EXAMPLE_IDS.agent,
        name: 'Demo Travel Agency',
        status: 'ACTIVE',
        channel: { code: 'DEMO-B2B', name: 'Demo B2B channel', currency: 'THB' },
        entitlements: ['airport-transfer', 'express-bus'],
        pricing: { currency: 'THB', channelMarkupBps: 1000, agentDiscountBps: 500 },
        apiKey: { id: EXAMPLE_IDS.apiKey, prefix: 'pbk_3yQb', createdAt: demo.createdAt, expiresAt: null },
      },
    }),
    responses: {
      200: { description: 'The agent, its channel, pricing, entitlements and the key in use', schema: agentAccountSchema },
    },
  },
];
