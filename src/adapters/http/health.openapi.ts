import { z } from 'zod';
import { HEALTH_PATH, READINESS_PATH } from './health.routes.js';
import type { OperationSpec } from './operation.js';

/** The published description of the health routes (for load balancers and orchestrators). */
export const healthOperations: readonly OperationSpec[] = [
  {
    surface: 'platform',
    method: 'get',
    path: HEALTH_PATH,
    operationId: 'getHealth',
    summary: 'The process is up',
    tags: ['platform'],
    token: 'none',
    responses: { 200: { description: 'Up', schema: z.object({ status: z.literal('ok') }) } },
  },
  {
    surface: 'platform',
    method: 'get',
    path: READINESS_PATH,
    operationId: 'getReadiness',
    summary: 'The database answers and the service is not shutting down',
    tags: ['platform'],
    token: 'none',
    responses: {
      200: { description: 'Ready for traffic', schema: z.object({ status: z.literal('ready') }) },
      503: { description: 'Shutting down, or the database does not answer', reasons: ['shutting-down', 'service-unavailable'] },
    },
  },
];
