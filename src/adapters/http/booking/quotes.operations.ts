import { quoteView } from './booking.views.js';
import type { Quote } from '../../../domain/booking/quote.js';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';
import { BODY_LIMITS, INVALID, INVALID_BODY, KEY_ERRORS, PRODUCT_KEY_ERRORS } from './booking.openapi-common.js';
import { busQuoteBody, quoteParams, quoteSchema, transferQuoteBody } from './booking.schemas.js';

/** Where a quote is read; a quote just made answers with it as its `Location`. */
const QUOTE_PATH = '/api/v1/quotes/{quoteId}';

/** A quote just made: 201 with its address. */
const quoteCreated = (quote: Quote) => ({
  status: 201,
  headers: { 'Cache-Control': 'no-store', Location: QUOTE_PATH.replace('{quoteId}', quote.id) },
  body: quoteView(quote),
});

const PRICE_NOTE =
  "The price is the catalogue's base fare through the channel's markup and the agent's discount, rounded once to the minor unit, half away from zero. Any channel, agent or price the caller sends is ignored.";

const thb = (amount: number) => ({ amount, currency: 'THB' });

/** The quote the demo agent gets for the airport-transfer example: Suvarnabhumi to a Sukhumvit hotel, two passengers. */
export const transferQuoteExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.transferQuote,
  product: 'airport-transfer',
  channel: { code: 'DEMO-B2B' },
  price: thb(demo.transferPrice),
  expiresAt: demo.quoteExpiresAt,
  createdAt: demo.createdAt,
  operator: { code: 'SIAM-AIRPORT-TRANSFERS', name: 'Siam Airport Transfers' },
  confirmation: 'instant',
  details: {
    fromLocationId: 'loc_bkk',
    toLocationId: 'loc_bkk_h_sukhumvit',
    pickupAt: demo.pickupAtUtc,
    passengers: 2,
    vehicleClass: 'sedan',
    durationMinutes: 45,
  },
  livemode: true,
});

/** The quote of the express-bus example: two seats on the 09:00 Bangkok → Pattaya of the travel date. */
const busQuoteExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.busQuote,
  product: 'express-bus',
  channel: { code: 'DEMO-B2B' },
  price: thb(demo.busSeatPrice * 2),
  expiresAt: demo.quoteExpiresAt,
  createdAt: demo.createdAt,
  operator: { code: 'GULF-COAST-COACHES', name: 'Gulf Coast Coaches' },
  confirmation: 'instant',
  details: {
    tripId: demo.tripId,
    fromCityId: 'cty_bangkok',
    toCityId: 'cty_pattaya',
    operator: 'Gulf Coast Coaches',
    departsAt: demo.departsAt,
    arrivesAt: demo.arrivesAt,
    passengers: 2,
    unitPrice: thb(demo.busSeatPrice),
  },
  livemode: true,
});

/** Quotes for both products, and reading one back. */
export const quoteOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'post',
    path: '/api/v1/airport-transfer/quotes',
    operationId: 'quoteAirportTransfer',
    summary: 'Price an airport transfer',
    description: `One vehicle between two locations, driven by the fare's operator (the quote names it, and how it confirms). Without vehicleClass the smallest class that carries the passengers is chosen. ${PRICE_NOTE} Valid for QUOTE_TTL_SECONDS, never past the pickup. Each operator has a fleet of each vehicle class per pickup hour (local to the operator); when every vehicle is booked, 409 sold-out.`,
    tags: ['quotes'],
    token: 'api-key',
    scope: 'quotes:write',
    request: { body: transferQuoteBody },
    examples: (demo) => ({
      body: {
        fromLocationId: 'loc_bkk',
        toLocationId: 'loc_bkk_h_sukhumvit',
        pickupAt: demo.pickupAt,
        passengers: 2,
        vehicleClass: 'sedan',
      },
      response: transferQuoteExample(demo),
    }),
    responses: {
      201: { description: 'The quote', schema: quoteSchema, headers: { Location: 'The quote' } },
      400: {
        description: 'Bad body, pickup in the past or beyond 365 days, same pickup and drop-off, unknown vehicle class or one too small',
        reasons: INVALID_BODY.reasons!,
      },
      ...PRODUCT_KEY_ERRORS,
      404: { description: 'A location does not exist', reasons: ['location-not-found'] },
      409: { description: 'The operator has no vehicle of the class left in the pickup hour', reasons: ['sold-out'] },
      ...BODY_LIMITS,
      422: {
        description: 'No fare between these locations (for this vehicle class or passenger count, or in the channel currency)',
        reasons: ['no-fare'],
      },
    },
    handler: async ({ body, caller, core }) => {
      const quote = await core.booking.quoteTransfer.execute(caller.agent(), { ...body, pickupAt: new Date(body.pickupAt) });
      return quoteCreated(quote);
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: '/api/v1/express-bus/quotes',
    operationId: 'quoteBusTrip',
    summary: 'Price seats on an express-bus trip',
    description: `${PRICE_NOTE} The price is the per-seat price times the passengers. Valid for QUOTE_TTL_SECONDS, never past the departure. Seats are not held by a quote: they are taken when the order is placed.`,
    tags: ['quotes'],
    token: 'api-key',
    scope: 'quotes:write',
    request: { body: busQuoteBody },
    examples: (demo) => ({ body: { tripId: demo.tripId, passengers: 2 }, response: busQuoteExample(demo) }),
    responses: {
      201: { description: 'The quote', schema: quoteSchema, headers: { Location: 'The quote' } },
      400: INVALID_BODY,
      ...PRODUCT_KEY_ERRORS,
      404: { description: 'No such trip', reasons: ['trip-not-found'] },
      409: { description: 'The trip has departed, or fewer seats are left than passengers', reasons: ['trip-departed', 'sold-out'] },
      ...BODY_LIMITS,
      422: { description: "The fare is not in the channel's currency", reasons: ['no-fare'] },
    },
    handler: async (ctx) => quoteCreated(await ctx.core.booking.quoteBusTrip.execute(ctx.caller.agent(), ctx.body)),
  }),
  operation({
    surface: 'booking',
    method: 'get',
    path: QUOTE_PATH,
    operationId: 'getQuote',
    summary: 'One of the caller’s quotes',
    tags: ['quotes'],
    token: 'api-key',
    scope: 'quotes:write',
    request: { params: quoteParams },
    examples: (demo) => ({ params: { quoteId: EXAMPLE_IDS.transferQuote }, response: transferQuoteExample(demo) }),
    responses: {
      200: { description: 'The quote', schema: quoteSchema },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No such quote, or another agent’s', reasons: ['quote-not-found'] },
    },
    handler: async ({ params: { quoteId }, caller, core }) => {
      const quote = await core.booking.getQuote.execute(caller.agent(), quoteId);
      return { status: 200, headers: NO_STORE, body: quoteView(quote) };
    },
  }),
];
