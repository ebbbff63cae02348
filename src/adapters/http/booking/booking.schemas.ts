import { z } from 'zod';
import { ORDER_STATUSES } from '../../../domain/booking/order.js';
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

export const tripsQuery = z.object({
  fromCityId: id(),
  toCityId: id(),
  date: z.iso.date({ error: 'must be a calendar date, YYYY-MM-DD' }).describe('Local date of departure (YYYY-MM-DD)'),
});

export const tripSchema = z.object({
  id: z.string(),
  fromCityId: z.string(),
  toCityId: z.string(),
  departsAt: timestamp(),
  arrivesAt: timestamp(),
  operator: z.string(),
  seatsLeft: z.number().int(),
  seatCapacity: z.number().int(),
  price: moneySchema.describe("The caller's channel price per seat"),
});

export const transferQuoteBody = z.object({
  fromLocationId: id(),
  toLocationId: id(),
  pickupAt: z.iso.datetime({ offset: true }).describe('RFC 3339 instant of the pickup'),
  passengers: z.number().int().min(1).max(50),
  vehicleClass: z.enum(VEHICLE_CLASS_CODES).optional().describe('The smallest class that carries everybody when absent'),
});

export const busQuoteBody = z.object({
  tripId: id(128),
  passengers: z.number().int().min(1).max(50),
});

export const quoteParams = z.object({ quoteId: id() });

const transferDetails = z.object({
  fromLocationId: z.string(),
  toLocationId: z.string(),
  pickupAt: timestamp(),
  passengers: z.number().int(),
  vehicleClass: z.enum(VEHICLE_CLASS_CODES),
  durationMinutes: z.number().int(),
});

const busDetails = z.object({
  tripId: z.string(),
  fromCityId: z.string(),
  toCityId: z.string(),
  operator: z.string(),
  departsAt: timestamp(),
  arrivesAt: timestamp(),
  passengers: z.number().int(),
  unitPrice: moneySchema,
});

const product = z.enum(['airport-transfer', 'express-bus']);

export const quoteSchema = z.object({
  id: z.string(),
  product,
  channel: z.object({ code: z.string() }),
  price: moneySchema,
  expiresAt: timestamp(),
  createdAt: timestamp(),
  details: z.union([transferDetails, busDetails]),
});

export const orderBody = z.object({
  quoteId: id(),
  contact: z.object({
    name: z.string().trim().min(1).max(200),
    email: z.email().max(254),
    phone: z.string().trim().min(1).max(40).optional(),
  }),
  passengers: z
    .array(z.object({ name: z.string().trim().min(1).max(200) }))
    .max(50)
    .optional(),
  agentReference: z.string().min(1).max(100).optional(),
});

export const idempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().describe('Retries with the same key and body replay the first response'),
});

export const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES as unknown as ['CONFIRMED', 'CANCELLED']).optional(),
  agentReference: z.string().min(1).max(100).optional().describe('Only the orders with exactly this agent reference'),
  ...pageQueryFields,
});

export const orderParams = z.object({ orderId: id() });

export const orderSchema = z.object({
  id: z.string(),
  status: z.enum(['CONFIRMED', 'CANCELLED']),
  product,
  quoteId: z.string(),
  channel: z.object({ code: z.string() }),
  price: moneySchema,
  contact: z.object({ name: z.string(), email: z.string(), phone: z.string().nullable() }),
  passengers: z.array(z.object({ name: z.string() })),
  agentReference: z.string().nullable(),
  details: z.union([transferDetails, busDetails]),
  createdAt: timestamp(),
  cancelledAt: timestamp().nullable(),
  cancellationTerms: z.object({ freeCancellationHours: z.number().int(), lateCancellationFeeBps: z.number().int() }),
  refund: moneySchema.nullable().describe('What the cancel refunded; null until the order is cancelled'),
  fee: moneySchema.nullable().describe('What the cancel charged; null until the order is cancelled'),
});

export const cancellationSchema = z.object({
  cancellable: z.boolean(),
  reason: z
    .enum(['order-already-cancelled', 'booked-with-leaked-key', 'cancellation-window-closed'])
    .nullable()
    .describe('The reason a cancel would be refused with now, or null'),
  refund: moneySchema.nullable().describe('What a cancel now would refund; null when it would be refused'),
  fee: moneySchema.nullable().describe('What a cancel now would charge; null when it would be refused'),
  freeUntil: timestamp().describe('Until this moment (inclusive) a cancel is free of charge'),
});

export const rollKeyBody = z.object({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .optional()
    .describe('How long the calling key keeps working after the roll (default 3600)'),
});

export const keySchema = z.object({
  id: z.string(),
  prefix: z.string(),
  status: z.enum(['ACTIVE', 'REVOKED']),
  createdAt: timestamp(),
  expiresAt: timestamp().nullable().describe("When the key stops working: its expiry, or the end of a rolled key's overlap"),
  lastUsedAt: timestamp().nullable().describe('Approximate: may lag by up to 60 s'),
  revokedAt: timestamp().nullable(),
  revokedReason: z.enum(['rotated', 'leaked', 'operator']).nullable(),
  rolledFromKeyId: z.string().nullable(),
});
