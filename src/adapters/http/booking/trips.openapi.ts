import { z } from 'zod';
import type { OperationSpec } from '../operation.js';
import { INVALID, PRODUCT_KEY_ERRORS } from './booking.openapi-common.js';
import { tripSchema, tripsQuery } from './booking.schemas.js';

/** The published description of `GET /api/v1/express-bus/trips`. */
export const tripOperations: readonly OperationSpec[] = [
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/express-bus/trips',
    operationId: 'listBusTrips',
    summary: 'Express-bus trips of one day between two cities',
    description:
      "Departures on the local date (the departure city's time zone) that have not left yet, within 365 days, earliest first, with the seats left and the caller's channel price per seat. Unknown cities give an empty list.",
    tags: ['express-bus'],
    token: 'api-key',
    request: { query: tripsQuery },
    responses: {
      200: { description: 'The trips', schema: z.object({ data: z.array(tripSchema) }) },
      400: INVALID,
      ...PRODUCT_KEY_ERRORS,
      422: { description: "The fares are not in the channel's currency", reasons: ['no-fare'] },
    },
  },
];
