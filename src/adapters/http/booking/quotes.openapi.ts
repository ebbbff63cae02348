import type { OperationSpec } from '../operation.js';
import { BODY_LIMITS, INVALID, INVALID_BODY, KEY_ERRORS, PRODUCT_KEY_ERRORS } from './booking.openapi-common.js';
import { busQuoteBody, quoteParams, quoteSchema, transferQuoteBody } from './booking.schemas.js';

const PRICE_NOTE =
  "The price is the catalogue's base fare through the channel's markup and the agent's discount, rounded once to the minor unit, half away from zero. Any channel, agent or price the caller sends is ignored.";

/** The published description of the quote routes. */
export const quoteOperations: readonly OperationSpec[] = [
  {
    surface: 'booking',
    method: 'post',
    path: '/api/v1/airport-transfer/quotes',
    operationId: 'quoteAirportTransfer',
    summary: 'Price an airport transfer',
    description: `One vehicle between two locations. Without vehicleClass the smallest class that carries the passengers is chosen. ${PRICE_NOTE} Valid for QUOTE_TTL_SECONDS, never past the pickup.`,
    tags: ['airport-transfer', 'quotes'],
    token: 'api-key',
    request: { body: transferQuoteBody },
    responses: {
      201: { description: 'The quote', schema: quoteSchema, headers: { Location: 'The quote' } },
      400: {
        description: 'Bad body, pickup in the past or beyond 365 days, same pickup and drop-off, unknown vehicle class or one too small',
        reasons: INVALID_BODY.reasons!,
      },
      ...PRODUCT_KEY_ERRORS,
      404: { description: 'A location does not exist', reasons: ['location-not-found'] },
      ...BODY_LIMITS,
      422: {
        description: 'No fare between these locations (for this vehicle class or passenger count, or in the channel currency)',
        reasons: ['no-fare'],
      },
    },
  },
  {
    surface: 'booking',
    method: 'post',
    path: '/api/v1/express-bus/quotes',
    operationId: 'quoteBusTrip',
    summary: 'Price seats on an express-bus trip',
    description: `${PRICE_NOTE} The price is the per-seat price times the passengers. Valid for QUOTE_TTL_SECONDS, never past the departure. Seats are not held by a quote: they are taken when the order is placed.`,
    tags: ['express-bus', 'quotes'],
    token: 'api-key',
    request: { body: busQuoteBody },
    responses: {
      201: { description: 'The quote', schema: quoteSchema, headers: { Location: 'The quote' } },
      400: INVALID_BODY,
      ...PRODUCT_KEY_ERRORS,
      404: { description: 'No such trip', reasons: ['trip-not-found'] },
      409: { description: 'The trip has departed, or fewer seats are left than passengers', reasons: ['trip-departed', 'sold-out'] },
      ...BODY_LIMITS,
      422: { description: "The fare is not in the channel's currency", reasons: ['no-fare'] },
    },
  },
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/quotes/{quoteId}',
    operationId: 'getQuote',
    summary: 'One of the caller’s quotes',
    tags: ['quotes'],
    token: 'api-key',
    request: { params: quoteParams },
    responses: {
      200: { description: 'The quote', schema: quoteSchema },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No such quote, or another agent’s', reasons: ['quote-not-found'] },
    },
  },
];
