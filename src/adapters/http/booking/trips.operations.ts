import { tripView } from './booking.views.js';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { INVALID, PRODUCT_KEY_ERRORS } from './booking.openapi-common.js';
import { tripPageSchema, tripsQuery } from './booking.schemas.js';

/** `GET /api/v1/express-bus/trips`: a day's trips between two cities, priced for the caller. */
export const tripOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/express-bus/trips',
    operationId: 'listBusTrips',
    summary: 'Express-bus trips of one day between two cities',
    description:
      "Departures on the local date (the departure city's time zone) that have not left yet, within 365 days, earliest first, with the seats left and the caller's channel price per seat. Unknown cities give an empty list.",
    tags: ['trips'],
    token: 'api-key',
    scope: 'trips:read',
    request: { query: tripsQuery },
    examples: (demo) => ({
      query: { fromCityId: 'cty_bangkok', toCityId: 'cty_pattaya', date: demo.travelDate },
      response: {
        data: [
          {
            id: demo.tripId,
            fromCityId: 'cty_bangkok',
            toCityId: 'cty_pattaya',
            departsAt: demo.departsAt,
            arrivesAt: demo.arrivesAt,
            operator: { code: 'GULF-COAST-COACHES', name: 'Gulf Coast Coaches' },
            confirmation: 'instant',
            seatsLeft: 40,
            seatCapacity: 40,
            price: { amount: demo.busSeatPrice, currency: 'THB' },
          },
        ],
      },
    }),
    responses: {
      200: { description: 'The trips', schema: tripPageSchema },
      400: INVALID,
      ...PRODUCT_KEY_ERRORS,
      422: { description: "The fares are not in the channel's currency", reasons: ['no-fare'] },
    },
    handler: async ({ query, caller, core }) => {
      const trips = await core.booking.listTrips.execute(caller.agent(), query);
      return { status: 200, headers: NO_STORE, body: { data: trips.map(tripView) } };
    },
  }),
];
