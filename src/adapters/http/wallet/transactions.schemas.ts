import { z } from 'zod';
import type { TransactionQuery } from '../../../application/wallet/transaction-query.js';
import { pageQueryFields } from '../page.schemas.js';
import { MAX_TRANSACTION_AMOUNT } from '../../../domain/wallet/ledger.js';
import { TRANSACTION_TYPES } from '../../../domain/wallet/transaction.js';

/** Money in integer minor units of an ISO 4217 currency. */
export const moneySchema = z.object({
  amount: z.number().int().meta({ description: 'Integer minor units (satang for THB)', example: 5000 }),
  currency: z.string().meta({ description: 'ISO 4217', example: 'THB' }),
});

const minorUnits = z.number().int().min(1).max(MAX_TRANSACTION_AMOUNT);

/**
 * An amount in a request: money in the tenant's currency (another currency is 422
 * `currency-mismatch`), or a bare integer of minor units of the tenant's currency.
 */
export const amountInputSchema = z
  .union([z.object({ amount: minorUnits, currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code') }), minorUnits])
  .meta({
    description: `Money \`{ amount, currency }\` in the tenant’s currency, or an integer of its minor units; 1..${MAX_TRANSACTION_AMOUNT}`,
    example: { amount: 5000, currency: 'THB' },
  });

export const reference = z.string().trim().min(1).max(128);
const freeText = z.string().trim().max(500);
export const walletId = z.string().min(1).max(128);

export const topUpBody = z
  .object({
    amount: amountInputSchema,
    reference: reference.meta({ description: 'The tenant’s own reference for the top-up' }),
  })
  .meta({ id: 'TopUpRequest' });

export const fundTestUserBody = z
  .object({ amount: amountInputSchema })
  .meta({ id: 'FundTestUserRequest', description: 'What a sandbox tenant’s test helper credits the user with' });

export const refundBody = z
  .object({
    amount: amountInputSchema.optional().meta({ description: 'Omitted: everything that remains of the payment' }),
  })
  .meta({ id: 'RefundRequest' });

export const paymentBody = z
  .object({
    amount: amountInputSchema,
    reference: reference.meta({ description: 'What the payment is for (an order number, …)' }),
    description: freeText.optional(),
  })
  .meta({ id: 'PaymentRequest' });

export const transferBody = z
  .object({
    toUserId: walletId.meta({ description: 'A wallet user of the same tenant' }),
    amount: amountInputSchema,
    note: freeText.optional(),
  })
  .meta({ id: 'TransferRequest' });

export const userIdParams = z.object({ userId: walletId });
export const transactionParams = z.object({ transactionId: walletId });

export const idempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description:
      'Retries with the same key, caller and body answer the first response again; the money moves once. Make a new one (a UUID) for each new request',
  }),
});

export const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const TYPE = `(?:${TRANSACTION_TYPES.join('|')})`;
const types = z
  .string()
  .regex(new RegExp(`^\\s*${TYPE}\\s*(?:,\\s*${TYPE}\\s*)*$`), `must be one or more of ${TRANSACTION_TYPES.join(', ')}, comma-separated`)
  .transform((s) => s.split(',').map((t) => t.trim()))
  .pipe(z.array(z.enum(TRANSACTION_TYPES)).min(1))
  .meta({ description: `One type or several, comma-separated: ${TRANSACTION_TYPES.join(', ')}` });

const readFilters = {
  type: types.optional(),
  userId: walletId
    .optional()
    .meta({ description: 'Machine token: one user’s activity. Ignored for a user token, which always reads its own' }),
  from: instant.optional().meta({ description: 'Created at or after (RFC 3339)' }),
  to: instant.optional().meta({ description: 'Created before (RFC 3339)' }),
};

export const listQuery = z.object({
  ...readFilters,
  ...pageQueryFields,
});

export const summaryQuery = z.object(readFilters);

/** The read filters as the listing and the summary take them alike: the `type` parameter is their `types`. */
export const transactionQueryOf = (q: z.infer<typeof summaryQuery>): TransactionQuery => ({
  ...(q.userId === undefined ? {} : { userId: q.userId }),
  ...(q.type === undefined ? {} : { types: q.type }),
  ...(q.from === undefined ? {} : { from: q.from }),
  ...(q.to === undefined ? {} : { to: q.to }),
});

export const initiatorSchema = z
  .object({
    kind: z.enum(['machine', 'user']),
    tenantId: z.string(),
    clientId: z.string(),
    userId: z.string().nullable(),
    amr: z
      .array(z.string())
      .nullable()
      .meta({ description: '`["pwd"]` password login, `["tenant_delegated"]` delegated; null for a machine token' }),
    act: z.object({ sub: z.string() }).nullable().meta({ description: 'The client that vouched for the person (delegated tokens)' }),
  })
  .meta({ id: 'Initiator', description: 'Who initiated a transaction, as its token said' });

/**
 * Whether an object belongs to a live tenant (true) or a sandbox one (false, `tenant create
 * --test`): every wallet object the tenant API answers carries it, from the calling tenant.
 */
export const livemodeField = z
  .boolean()
  .meta({ description: 'False for a sandbox tenant’s object (`tenant create --test`, client id `cli_test_…`), true for a live tenant’s' });

/** Adds the calling tenant's `livemode` to an object the tenant API answers. */
export const withLivemode = <T extends object>(body: T, livemode: boolean): T & { livemode: boolean } => ({ ...body, livemode });

const transactionFields = z.object({
  id: z.string(),
  type: z.enum(TRANSACTION_TYPES),
  amount: moneySchema,
  userId: z.string().meta({ description: 'Credited by a top-up or refund; the payer of a payment; the sender of a transfer' }),
  counterpartyUserId: z.string().nullable().meta({ description: 'The recipient of a transfer' }),
  reference: z.string().nullable(),
  description: z.string().nullable().meta({ description: 'A payment’s description or a transfer’s note' }),
  refundOf: z.string().nullable().meta({ description: 'The payment a refund is for' }),
  refunded: moneySchema.nullable().meta({ description: 'For a payment: how much of it has been refunded' }),
  authorizationId: z.string().nullable().meta({ description: 'For a payment that captures an authorization: the authorization' }),
  createdAt: z.iso.datetime().meta({ description: 'RFC 3339 UTC' }),
  initiatedBy: initiatorSchema,
});

/** A transaction as a webhook event's `data` carries it. */
export const transactionDataSchema = transactionFields.meta({
  id: 'TransactionData',
  description: 'A top-up, payment, transfer or refund, as an event carries it',
});

export const transactionSchema = transactionFields
  .extend({ livemode: livemodeField })
  .meta({ id: 'Transaction', description: 'A top-up, payment, transfer or refund' });

export const transactionPageSchema = z
  .object({ data: z.array(transactionSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'TransactionPage' });

export const summarySchema = z
  .object({
    from: z.iso.datetime().nullable(),
    to: z.iso.datetime().nullable(),
    byType: z.array(z.object({ type: z.enum(TRANSACTION_TYPES), count: z.number().int(), total: z.number().int() })),
    livemode: livemodeField,
  })
  .meta({ id: 'TransactionSummary' });

export const balanceSchema = z
  .object({
    available: moneySchema.describe('What the holder can spend: `ledger − held`'),
    held: moneySchema.describe('What the holder’s pending authorizations hold now'),
    ledger: moneySchema.describe('What the ledger records for the holder'),
    livemode: livemodeField,
  })
  .meta({ id: 'Balance', description: 'What the holder has, holds and can spend' });

export { transactionJson } from '../../json-views.js';
