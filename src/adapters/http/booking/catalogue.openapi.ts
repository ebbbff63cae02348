import { z } from 'zod';
import type { OperationSpec } from '../operation.js';
import { autocompleteQuery, citySchema, locationSchema } from './catalogue.schemas.js';

/** The published description of the public autocomplete routes. */
export const catalogueOperations: readonly OperationSpec[] = [
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/airport-transfer/locations',
    operationId: 'searchTransferLocations',
    summary: 'Autocomplete airport-transfer locations (public)',
    description: 'Case- and accent-insensitive prefix and substring search over airports, districts and hotels. No key needed.',
    tags: ['catalogue'],
    token: 'none',
    request: { query: autocompleteQuery },
    responses: {
      200: { description: 'Matching locations, prefix matches first', schema: z.object({ data: z.array(locationSchema) }) },
      400: { description: 'Bad query', reasons: ['invalid-request'] },
    },
  },
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/express-bus/cities',
    operationId: 'searchBusCities',
    summary: 'Autocomplete express-bus cities (public)',
    tags: ['catalogue'],
    token: 'none',
    request: { query: autocompleteQuery },
    responses: {
      200: { description: 'Matching cities', schema: z.object({ data: z.array(citySchema) }) },
      400: { description: 'Bad query', reasons: ['invalid-request'] },
    },
  },
];
