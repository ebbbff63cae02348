import { z } from 'zod';
import { pageQueryFields } from '../page.schemas.js';
import { AGENT_EVENT_TYPES, TENANT_EVENT_TYPES } from '../../../domain/webhooks/events.js';
import { WEBHOOK_LIMITS, type WebhookDelivery, type WebhookEndpoint } from '../../../domain/webhooks/endpoint.js';
import { livemodeField } from '../wallet/transactions.schemas.js';

const endpointBody = <T extends readonly [string, ...string[]]>(types: T) =>
  z.object({
    url: z
      .string()
      .min(1)
      .max(WEBHOOK_LIMITS.urlLength)
      .describe('https URL that receives the events (checked at registration and at each delivery)'),
    events: z
      .array(z.enum(types))
      .min(1)
      .max(types.length * 2)
      .describe('The events to send here'),
    description: z.string().max(WEBHOOK_LIMITS.descriptionLength).optional(),
  });

export const agentEndpointBody = endpointBody(AGENT_EVENT_TYPES).meta({ id: 'BookingWebhookEndpointRequest' });
export const tenantEndpointBody = endpointBody(TENANT_EVENT_TYPES).meta({ id: 'WalletWebhookEndpointRequest' });

const testBody = <T extends readonly [string, ...string[]]>(types: T) =>
  z.object({ type: z.enum(types).describe('The event type to send a sample of (one the endpoint need not subscribe to)') });
export const agentTestBody = testBody(AGENT_EVENT_TYPES).meta({ id: 'BookingWebhookTestRequest' });
export const tenantTestBody = testBody(TENANT_EVENT_TYPES).meta({ id: 'WalletWebhookTestRequest' });

export const endpointParams = z.object({ endpointId: z.string().min(1).max(64) });
export const deliveryParams = z.object({ endpointId: z.string().min(1).max(64), deliveryId: z.string().min(1).max(64) });
export const pageQuery = z.object({
  ...pageQueryFields,
});

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(['active']),
    createdAt: z.string().datetime(),
    livemode: livemodeField,
  })
  .meta({ id: 'WebhookEndpoint' });

const secretField = z.string().describe('`whsec_` + base64 of 32 random bytes: the signing secret, shown only in this response');

export const createdEndpointSchema = webhookEndpointSchema.extend({ secret: secretField }).meta({ id: 'CreatedWebhookEndpoint' });

/** A tenant's endpoint, as the wallet answers it (the same fields, under the wallet's name). */
export const tenantEndpointSchema = webhookEndpointSchema.meta({ id: 'WalletWebhookEndpoint' });
export const createdTenantEndpointSchema = tenantEndpointSchema
  .extend({ secret: secretField })
  .meta({ id: 'CreatedWalletWebhookEndpoint' });

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string().describe('The `webhook-id` header of every attempt'),
    type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastAttemptAt: z.string().datetime().nullable(),
    nextAttemptAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
    livemode: livemodeField,
  })
  .meta({ id: 'WebhookDelivery' });

export const endpointPageSchema = z
  .object({ data: z.array(webhookEndpointSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WebhookEndpointPage' });
export const tenantEndpointPageSchema = z
  .object({ data: z.array(tenantEndpointSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WalletWebhookEndpointPage' });
export const deliveryPageSchema = z
  .object({ data: z.array(webhookDeliverySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryPage' });

/**
 * What the API shows of an endpoint: never its secret (only the registration answer has it).
 * `livemode` is its owner's: the caller's, as only the owner reads its endpoints.
 */
export const endpointJson = (e: WebhookEndpoint, livemode: boolean) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  status: e.status,
  createdAt: e.createdAt.toISOString(),
  livemode,
});

/** What the API shows of a delivery; `livemode` is its owner's, the caller's. */
export const deliveryJson = (d: WebhookDelivery, livemode: boolean) => ({
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
  livemode,
});
