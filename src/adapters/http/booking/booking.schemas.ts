import { z } from 'zod';
import { OPERATOR_REJECTION_REASONS, ORDER_STATUSES } from '../../../domain/booking/order.js';
import { CONFIRMATION_MODES } from '../../../domain/catalogue/operator.js';
import { pageQueryFields } from '../page.schemas.js';
import { VEHICLE_CLASS_CODES } from '../../catalogue/thailand.js';

/**
 * Request and response schemas of the booking flow. Request objects strip unknown fields, so
 * a `channel`, `agentId`, `price`, `amount`, `currency` or `markup` sent by a caller never
 * reaches a use case.
 */
const id = (max = 64) => z.string().min(1).max(max);

/** An RFC 3339 UTC instant in a response (`format: date-time` in the files). */
export const timestamp = () => z.iso.datetime();

export const moneySchema = z.object({
  amount: z.number().int().describe('Integer minor units (satang for THB)'),
  currency: z.string().length(3).describe('ISO 4217'),
});

/** Who runs a trip or drives a transfer. */
export const operatorRefSchema = z
  .object({ code: z.string(), name: z.string() })
  .meta({ id: 'OperatorRef', description: 'The operator that runs the trip or drives the transfer' });

export const confirmationSchema = z
  .enum(CONFIRMATION_MODES as unknown as ['instant', 'on-request'])
  .describe('How the operator confirms a booking: `instant`, or `on-request` (by the operator, within its confirmation window)');

export const tripsQuery = z.object({
  fromCityId: id(),
  toCityId: id(),
  date: z.iso.date({ error: 'must be a calendar date, YYYY-MM-DD' }).describe('Local date of departure (YYYY-MM-DD)'),
});

export const tripSchema = z
  .object({
    id: z.string(),
    fromCityId: z.string(),
    toCityId: z.string(),
    departsAt: timestamp(),
    arrivesAt: timestamp(),
    operator: operatorRefSchema,
    confirmation: confirmationSchema,
    seatsLeft: z.number().int(),
    seatCapacity: z.number().int(),
    price: moneySchema.describe("The caller's channel price per seat"),
  })
  .meta({ id: 'Trip', description: 'One departure of an express-bus schedule' });

export const tripPageSchema = z.object({ data: z.array(tripSchema) }).meta({ id: 'TripList' });

export const transferQuoteBody = z
  .object({
    fromLocationId: id().describe('A location id from the locations autocomplete (`loc_…`)'),
    toLocationId: id().describe('A location id from the locations autocomplete (`loc_…`)'),
    pickupAt: z.iso.datetime({ offset: true }).describe('RFC 3339 instant of the pickup, in the future and at most 365 days ahead'),
    passengers: z.number().int().min(1).max(50),
    vehicleClass: z.enum(VEHICLE_CLASS_CODES).optional().describe('The smallest class that carries everybody when absent'),
  })
  .meta({ id: 'AirportTransferQuoteRequest' });

export const busQuoteBody = z
  .object({
    tripId: id(128).describe('A trip id from the trips list (`trp_…`)'),
    passengers: z.number().int().min(1).max(50),
  })
  .meta({ id: 'ExpressBusQuoteRequest' });

export const quoteParams = z.object({ quoteId: id() });

export const transferDetails = z
  .object({
    fromLocationId: z.string(),
    toLocationId: z.string(),
    pickupAt: timestamp(),
    passengers: z.number().int(),
    vehicleClass: z.enum(VEHICLE_CLASS_CODES),
    durationMinutes: z.number().int(),
  })
  .meta({ id: 'AirportTransferDetails', description: 'What an airport-transfer quote or order is for' });

export const busDetails = z
  .object({
    tripId: z.string(),
    fromCityId: z.string(),
    toCityId: z.string(),
    operator: z.string().describe("The operator's name (the quote's `operator` names it with its code)"),
    departsAt: timestamp(),
    arrivesAt: timestamp(),
    passengers: z.number().int(),
    unitPrice: moneySchema,
  })
  .meta({ id: 'ExpressBusDetails', description: 'What an express-bus quote or order is for' });

const channelRef = z.object({ code: z.string() });

/**
 * A quote of each product: `product` says which, and with it the shape of `details` (published as
 * `oneOf` with a `discriminator` on `product`, so generated clients narrow `details` by it).
 */
const quoteOf = <P extends 'airport-transfer' | 'express-bus', D extends z.ZodType>(product: P, details: D) =>
  z.object({
    id: z.string(),
    product: z.literal(product),
    channel: channelRef,
    price: moneySchema,
    expiresAt: timestamp(),
    createdAt: timestamp(),
    operator: operatorRefSchema,
    confirmation: confirmationSchema,
    details,
    livemode: z.boolean().describe('False in the sandbox: a test key’s object, apart from live data (CONTRACT §6.7)'),
  });

export const airportTransferQuoteSchema = quoteOf('airport-transfer', transferDetails).meta({ id: 'AirportTransferQuote' });
export const expressBusQuoteSchema = quoteOf('express-bus', busDetails).meta({ id: 'ExpressBusQuote' });
export const quoteSchema = z
  .discriminatedUnion('product', [airportTransferQuoteSchema, expressBusQuoteSchema])
  .meta({ id: 'Quote', description: 'A priced offer of one product, bookable once until `expiresAt`' });

const contactBody = z.object({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(254),
  phone: z.string().trim().min(1).max(40).optional(),
});
const passengersBody = z
  .array(z.object({ name: z.string().trim().min(1).max(200) }))
  .max(50)
  .optional();

export const orderBody = z
  .object({
    quoteId: id().describe('The `id` of a quote of the caller, not expired'),
    contact: contactBody.optional().describe('Required, unless the order is held: a hold may send it with its confirm'),
    passengers: passengersBody,
    agentReference: z.string().min(1).max(100).optional(),
    hold: z
      .object({
        seconds: z
          .number()
          .int()
          .min(1)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .describe(
            'How long to hold (default 900); longer than the channel’s `maxHoldMinutes` is granted that most, and never past the start (`holdExpiresAt` says what was granted)',
          ),
      })
      .optional()
      .describe('Hold the seats or vehicle and the price, to confirm or release later'),
  })
  .meta({ id: 'OrderRequest' });

export const confirmHoldBody = z
  .object({ contact: contactBody.optional(), passengers: passengersBody })
  .meta({ id: 'ConfirmHoldRequest', description: 'The traveller’s details, if the hold was placed without them' });

export const idempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('Retries with the same key and body replay the first response. Make a new one (a UUID) for each new request'),
});

export const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional().describe('The status as it is now (a hold past its expiry is EXPIRED)'),
  agentReference: z.string().min(1).max(100).optional().describe('Only the orders with exactly this agent reference'),
  ...pageQueryFields,
});

export const orderParams = z.object({ orderId: id() });

/** An order of each product: as for quotes, `product` discriminates `details`. */
const orderOf = <P extends 'airport-transfer' | 'express-bus', D extends z.ZodType>(product: P, details: D) =>
  z.object({
    id: z.string(),
    status: z.enum(ORDER_STATUSES),
    product: z.literal(product),
    quoteId: z.string(),
    channel: channelRef,
    price: moneySchema,
    contact: z.object({ name: z.string(), email: z.string(), phone: z.string().nullable() }).nullable(),
    passengers: z.array(z.object({ name: z.string() })),
    agentReference: z.string().nullable(),
    details,
    createdAt: timestamp(),
    holdExpiresAt: timestamp().nullable().describe('Until when a hold keeps its stock and price'),
    confirmationDeadline: timestamp().nullable().describe('Until when an on-request operator may confirm a PENDING order'),
    confirmedAt: timestamp().nullable(),
    operator: z.object({ code: z.string(), confirmation: z.enum(['instant', 'on-request']) }).nullable(),
    operatorReference: z.string().nullable().describe('The operator’s own reference, once it confirmed'),
    rejectionReason: z.enum([...OPERATOR_REJECTION_REASONS, 'operator-timeout']).nullable(),
    releaseReason: z.enum(['agent', 'key-leaked']).nullable(),
    cancelledAt: timestamp().nullable(),
    cancelledBy: z.enum(['agent', 'operator']).nullable(),
    cancellationTerms: z.object({ freeCancellationHours: z.number().int(), lateCancellationFeeBps: z.number().int() }),
    refund: moneySchema.nullable().describe('What the cancel refunded; null until the order is cancelled'),
    fee: moneySchema.nullable().describe('What the cancel charged; null until the order is cancelled'),
    livemode: z.boolean().describe('False in the sandbox: a test key’s object, apart from live data (CONTRACT §6.7)'),
  });

export const airportTransferOrderSchema = orderOf('airport-transfer', transferDetails).meta({ id: 'AirportTransferOrder' });
export const expressBusOrderSchema = orderOf('express-bus', busDetails).meta({ id: 'ExpressBusOrder' });
export const orderSchema = z
  .discriminatedUnion('product', [airportTransferOrderSchema, expressBusOrderSchema])
  .meta({ id: 'Order', description: 'A booked quote: its price, contact and passengers, and how it may be cancelled' });

export const orderPageSchema = z.object({ data: z.array(orderSchema), nextCursor: z.string().nullable() }).meta({ id: 'OrderPage' });

export const cancellationSchema = z
  .object({
    cancellable: z.boolean(),
    reason: z
      .enum(['order-already-cancelled', 'order-not-cancellable', 'booked-with-leaked-key', 'cancellation-window-closed'])
      .nullable()
      .describe('The reason a cancel would be refused with now, or null'),
    refund: moneySchema.nullable().describe('What a cancel now would refund; null when it would be refused'),
    fee: moneySchema.nullable().describe('What a cancel now would charge; null when it would be refused'),
    freeUntil: timestamp().describe('Until this moment (inclusive) a cancel is free of charge'),
    livemode: z.boolean().describe('False for a sandbox order (CONTRACT §6.7)'),
  })
  .meta({ id: 'CancellationPreview' });

/** `POST /api/v1/keys`. */
export const createKeyBody = z
  .object({
    name: z.string().describe('What the key is for (1..100 characters)'),
    scopes: z
      .array(z.string())
      .describe(
        `What the key may call: ${'`*`'} or scopes the calling key holds (${'`account:read`'}, ${'`trips:read`'}, ${'`quotes:write`'}, ${'`orders:read`'}, ${'`orders:write`'}, ${'`orders:cancel`'}, ${'`webhooks:manage`'}, ${'`keys:manage`'}, ${'`events:read`'})`,
      ),
    allowedIps: z
      .array(z.string())
      .max(20)
      .optional()
      .describe(
        'Up to 20 IPv4 or IPv6 CIDRs the key may be used from, each inside a range of the calling key’s; absent: the calling key’s; empty: any (only from a key usable from anywhere)',
      ),
    expiresAt: timestamp()
      .nullable()
      .optional()
      .describe(
        'When the key stops working (RFC 3339), no later than the calling key’s expiry; absent: the calling key’s; null: never (only from a key that never expires)',
      ),
  })
  .meta({ id: 'NewApiKey' });

export const keyParams = z.object({ keyId: z.string().min(1).max(64) });

export const rollKeyBody = z
  .object({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(86_400)
      .optional()
      .describe('How long the calling key keeps working after the roll (default 3600)'),
  })
  .meta({ id: 'RollKeyRequest' });

export const keySchema = z
  .object({
    id: z.string(),
    prefix: z.string(),
    status: z.enum(['ACTIVE', 'REVOKED']),
    createdAt: timestamp(),
    expiresAt: timestamp().nullable().describe("When the key stops working: its expiry, or the end of a rolled key's overlap"),
    lastUsedAt: timestamp().nullable().describe('Approximate: may lag by up to 60 s'),
    revokedAt: timestamp().nullable(),
    revokedReason: z
      .enum(['rotated', 'leaked', 'operator', 'revoked'])
      .nullable()
      .describe('`rotated` (rolled), `leaked`, `operator` (revoked by the operator), `revoked` (by a key that created it)'),
    rolledFromKeyId: z.string().nullable(),
    name: z.string().nullable().describe('What the key is for, as its maker named it'),
    scopes: z.array(z.string()).describe('What the key may call; `*` holds every scope'),
    allowedIps: z.array(z.string()).describe('The IPv4 and IPv6 CIDRs the key may be used from; empty: any address'),
    createdByKeyId: z.string().nullable().describe('The key that created this one with `POST /api/v1/keys`, or null'),
    livemode: z.boolean().describe('False for a sandbox agent’s key (`pbk_test_…`, CONTRACT §6.7)'),
  })
  .meta({ id: 'ApiKey', description: 'An API key of the agent, without the key itself' });
