import { z } from 'zod';
import { AUTHORIZATION_MAX_SECONDS } from '../../../domain/wallet/authorization.js';
import { PENDING_TRANSFER_STATUSES } from '../../../domain/wallet/pending-transfer.js';
import { TRANSACTION_TYPES } from '../../../domain/wallet/transaction.js';
import { pageQueryFields } from '../page.schemas.js';
import { amountInputSchema, instant, livemodeField, moneySchema, reference, transactionSchema, walletId } from './transactions.schemas.js';

export const authorizeBody = z
  .object({
    amount: amountInputSchema,
    reference: reference.meta({ description: 'What the authorization is for (a ride, a deposit, a stay)' }),
    expiresInSeconds: z
      .number()
      .int()
      .min(1)
      .max(AUTHORIZATION_MAX_SECONDS)
      .optional()
      .meta({ description: `How long the money is held: default 604800 (7 days), at most ${AUTHORIZATION_MAX_SECONDS} (30 days)` }),
  })
  .meta({ id: 'AuthorizationRequest' });

export const captureBody = z
  .object({
    amount: amountInputSchema.optional().meta({ description: 'Omitted: everything that remains' }),
    final: z.boolean().optional().meta({ description: 'Resolves the authorization with this capture, releasing what remains' }),
  })
  .meta({ id: 'CaptureRequest' });

export const authorizationParams = z.object({ authorizationId: walletId });

export const authorizationListQuery = z.object({
  userId: walletId
    .optional()
    .meta({ description: 'Machine token: one user’s authorizations. Ignored for a user token, which always reads its own' }),
  status: z.enum(PENDING_TRANSFER_STATUSES).optional().meta({ description: 'As true now: a lapsed authorization is EXPIRED' }),
  ...pageQueryFields,
});

/** What an authorization shows, as the answers and the events' `data` (with its `capture`) both carry it. */
export const authorizationFields = z.object({
  id: z.string(),
  status: z.enum(PENDING_TRANSFER_STATUSES).meta({ description: 'As true at the moment of the answer: a lapsed one is EXPIRED' }),
  userId: z.string().nullable().meta({ description: 'The person whose money is held' }),
  amount: moneySchema.meta({ description: 'What was authorized' }),
  captured: moneySchema.meta({ description: 'What captures have taken so far' }),
  remaining: moneySchema.meta({ description: 'What a capture may still take (0 once resolved)' }),
  reference: z.string(),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().nullable().meta({ description: 'When it was captured in full, voided or lapsed' }),
});

export const authorizationSchema = authorizationFields
  .extend({ livemode: livemodeField })
  .meta({ id: 'Authorization', description: 'Money held from a wallet holder’s balance until it is captured, voided or lapses' });

export const captureAnswerSchema = z
  .intersection(authorizationSchema, z.object({ capture: transactionSchema.meta({ description: 'The PAYMENT this capture recorded' }) }))
  .meta({ id: 'CaptureResult' });

export const authorizationPageSchema = z
  .object({ data: z.array(authorizationSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'AuthorizationPage' });

export const balanceQuery = z.object({
  at: instant.optional().meta({ description: 'The balance as it stood at this instant (RFC 3339); now when absent' }),
});

export const statementQuery = z.object({
  from: instant.optional().meta({ description: 'Start of the period, inclusive (RFC 3339); default 30 days before `to`' }),
  to: instant.optional().meta({ description: 'End of the period, exclusive (RFC 3339); default now. At most 366 days after `from`' }),
});

export const statementSchema = z
  .object({
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    currency: z.string(),
    livemode: livemodeField,
    opening: moneySchema.meta({ description: 'The balance just before `from`' }),
    lines: z.array(
      z.object({
        at: z.iso.datetime(),
        type: z.enum(TRANSACTION_TYPES),
        transactionId: z.string(),
        reference: z.string().nullable(),
        amount: moneySchema.meta({ description: 'Signed: a credit positive, a debit negative' }),
        balance: moneySchema.meta({ description: 'The balance just after this line' }),
      }),
    ),
    closing: moneySchema.meta({ description: 'The balance at the end of the period: opening plus the lines' }),
  })
  .meta({ id: 'Statement', description: 'The entries of a wallet holder’s account over a period, in the order they were applied' });
