import type { Request } from 'express';
import { NO_STORE, operation, type Answer, type Operation } from '../operation.js';
import { HttpProblem } from '../problem.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS } from '../openapi/examples.js';
import { TRANSACTION_PATH } from './transactions.operations.js';
import { balanceQuery } from './authorizations.schemas.js';
import { live, paymentExample, refundExample, thb, topUpExample, transferExample, WALLET_AMOUNTS } from './wallet-examples.js';
import {
  balanceSchema,
  idempotencyHeaders,
  paymentBody,
  refundBody,
  topUpBody,
  fundTestUserBody,
  transactionJson,
  transactionParams,
  transactionSchema,
  transferBody,
  withLivemode,
  userIdParams,
} from './transactions.schemas.js';

const badBody = {
  description: 'Bad body or amount (zero, negative, fractional, too large)',
  reasons: ['invalid-request', 'malformed-json'],
} as const;
const notJson = { description: 'Body is not JSON', reasons: ['unsupported-media-type'] } as const;
const machineOnly = {
  401: { description: 'No valid machine token', reasons: ['invalid-token'] },
  403: { description: 'A user token was sent', reasons: ['machine-token-required'] },
} as const;
const userOnly = {
  401: {
    description: 'No valid token, or a machine token ("Authenticated principal is not a wallet user.")',
    reasons: ['invalid-token', 'not-a-wallet-user'],
  },
} as const;
const keyInUse = {
  description:
    'A request with this Idempotency-Key is still running after a 5 s wait (a duplicate waits for the first and replays its answer)',
  reasons: ['idempotency-key-in-use'],
} as const;
const created = {
  description: 'The transaction (a replay of the first response carries `Idempotent-Replayed: true`)',
  schema: transactionSchema,
  headers: { Location: TRANSACTION_PATH },
};

/** What refuses a credit of a user (a top-up, the sandbox's funding) once it is well formed. */
const creditRefused = {
  description: 'Another currency than the tenant’s, or a key reused for another request',
  reasons: ['currency-mismatch', 'idempotency-key-reused'],
} as const;

/** A transaction just made: 201 with its address under the wallet's base path. */
const transactionCreated = (req: Request, body: ReturnType<typeof transactionJson> & { livemode: boolean }): Answer => ({
  status: 201,
  headers: { 'Cache-Control': 'no-store', Location: `${req.baseUrl}${TRANSACTION_PATH.replace('{transactionId}', body.id)}` },
  body,
});

/** The money movements: top-ups and refunds (machine token), payments, transfers and the balance (user token). */
export const moneyOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/users/{userId}/top-ups',
    operationId: 'topUpWalletUser',
    summary: 'Credit one of the tenant’s users',
    description: 'Money enters the wallet from the tenant’s funding account. The user must belong to the calling tenant.',
    tags: ['money'],
    token: 'machine',
    request: { params: userIdParams, body: topUpBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: { userId: EXAMPLE_IDS.demoUser },
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.topUpWalletUser },
      body: { amount: thb(WALLET_AMOUNTS.topUp), reference: 'topup-2026-0001' },
      response: live(topUpExample(demo)),
    }),
    responses: {
      201: created,
      400: badBody,
      ...machineOnly,
      404: { description: 'No such user in this tenant (another tenant’s user included)', reasons: ['user-not-found'] },
      409: keyInUse,
      415: notJson,
      422: creditRefused,
    },
    idempotency: { scope: 'wallet', oneLedgerWrite: true },
    handler: async (ctx) => {
      const { userId } = ctx.params;
      const { amount, reference } = ctx.body;
      const txn = await ctx.core.wallet.topUp.execute({
        principal: ctx.caller.machine(),
        userId,
        amount,
        reference,
      });
      return transactionCreated(ctx.req, withLivemode(transactionJson(txn), ctx.caller.livemode()));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/test-helpers/users/{userId}/fund',
    operationId: 'fundTestUser',
    summary: 'Sandbox: credit one of a test tenant’s users',
    description:
      'For a sandbox tenant (`tenant create --test`, client id `cli_test_…`) only: credits the user as a top-up does, with the same transaction, entries and events. A live tenant’s token gets 404 `not-found`.',
    tags: ['test-helpers'],
    token: 'machine',
    sandboxOnly: true,
    request: { params: userIdParams, body: fundTestUserBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: { userId: EXAMPLE_IDS.demoUser },
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.fundTestUser },
      body: { amount: thb(WALLET_AMOUNTS.topUp) },
      response: live(topUpExample(demo)),
    }),
    responses: {
      201: created,
      400: badBody,
      ...machineOnly,
      404: {
        description: 'A live tenant (test helpers are for sandbox tenants only), or no such user in this tenant',
        reasons: ['not-found', 'user-not-found'],
      },
      409: keyInUse,
      415: notJson,
      422: creditRefused,
    },
    idempotency: { scope: 'wallet', oneLedgerWrite: true },
    handler: async (ctx) => {
      const txn = await ctx.core.wallet.fundTestUser.execute({
        principal: ctx.caller.machine(),
        userId: ctx.params.userId,
        amount: ctx.body.amount,
      });
      if (txn === null) throw new HttpProblem(404, 'not-found', 'No such resource.');
      return transactionCreated(ctx.req, withLivemode(transactionJson(txn), ctx.caller.livemode()));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/transactions/{transactionId}/refunds',
    operationId: 'refundPayment',
    summary: 'Give back all or part of a payment',
    description:
      'Without `amount`, refunds everything that remains. Refunds of one payment never add up to more than it, under any concurrency.',
    tags: ['money'],
    token: 'machine',
    request: { params: transactionParams, body: refundBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: { transactionId: EXAMPLE_IDS.payment },
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.refundPayment },
      body: { amount: thb(WALLET_AMOUNTS.refund) },
      response: live(refundExample(demo)),
    }),
    responses: {
      201: created,
      400: badBody,
      ...machineOnly,
      404: { description: 'No such transaction in this tenant', reasons: ['transaction-not-found'] },
      409: keyInUse,
      415: notJson,
      422: {
        description: 'More than what remains of the payment, not a payment, another currency, or a reused key',
        reasons: ['refund-exceeds-payment', 'not-refundable', 'currency-mismatch', 'idempotency-key-reused'],
      },
    },
    idempotency: { scope: 'wallet' },
    handler: async (ctx) => {
      const { transactionId } = ctx.params;
      const { amount } = ctx.body;
      const txn = await ctx.core.wallet.refundPayment.execute({
        principal: ctx.caller.machine(),
        transactionId,
        amount: amount ?? null,
      });
      return transactionCreated(ctx.req, withLivemode(transactionJson(txn), ctx.caller.livemode()));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/me/payments',
    operationId: 'makePayment',
    summary: 'Pay the tenant from the person’s balance',
    tags: ['me'],
    token: 'user',
    rateLimit: 'payments',
    request: { body: paymentBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.makePayment },
      body: { amount: thb(WALLET_AMOUNTS.payment), reference: 'ORDER-10042', description: 'Airport transfer, Suvarnabhumi to Sukhumvit' },
      response: live(paymentExample(demo)),
    }),
    responses: {
      201: created,
      400: badBody,
      ...userOnly,
      409: keyInUse,
      415: notJson,
      422: {
        description: 'The balance is too low, another currency, or a reused key',
        reasons: ['insufficient-funds', 'currency-mismatch', 'idempotency-key-reused'],
      },
    },
    idempotency: { scope: 'wallet', oneLedgerWrite: true },
    handler: async ({ body, caller, core, req }) => {
      const txn = await core.wallet.makePayment.execute({
        principal: caller.user(),
        amount: body.amount,
        reference: body.reference,
        description: body.description ?? null,
      });
      return transactionCreated(req, withLivemode(transactionJson(txn), caller.livemode()));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/me/transfers',
    operationId: 'makeTransfer',
    summary: 'Send money to another user of the same tenant',
    tags: ['me'],
    token: 'user',
    rateLimit: 'payments',
    request: { body: transferBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.makeTransfer },
      body: { toUserId: EXAMPLE_IDS.otherUser, amount: thb(WALLET_AMOUNTS.transfer), note: 'Dinner in Silom' },
      response: live(transferExample(demo)),
    }),
    responses: {
      201: created,
      400: badBody,
      ...userOnly,
      404: { description: 'No such recipient in this tenant (another tenant’s user included)', reasons: ['user-not-found'] },
      409: keyInUse,
      415: notJson,
      422: {
        description: 'The balance is too low, the recipient is the sender, another currency, or a reused key',
        reasons: ['insufficient-funds', 'same-user-transfer', 'currency-mismatch', 'idempotency-key-reused'],
      },
    },
    idempotency: { scope: 'wallet', oneLedgerWrite: true },
    handler: async ({ body, caller, core, req }) => {
      const txn = await core.wallet.makeTransfer.execute({
        principal: caller.user(),
        toUserId: body.toUserId,
        amount: body.amount,
        note: body.note ?? null,
      });
      return transactionCreated(req, withLivemode(transactionJson(txn), caller.livemode()));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/me/balance',
    operationId: 'getMyBalance',
    summary: 'The person’s balance, now or at an instant',
    description:
      '`available = ledger − held`; with `at`, the balance as it stood then (the ledger after every entry made by then, what authorizations held then).',
    tags: ['me'],
    token: 'user',
    request: { query: balanceQuery },
    examples: (demo) => ({
      query: { at: demo.to },
      response: live({
        available: thb(WALLET_AMOUNTS.topUp - WALLET_AMOUNTS.payment + WALLET_AMOUNTS.refund - WALLET_AMOUNTS.transfer),
        held: thb(0),
        ledger: thb(WALLET_AMOUNTS.topUp - WALLET_AMOUNTS.payment + WALLET_AMOUNTS.refund - WALLET_AMOUNTS.transfer),
      }),
    }),
    responses: {
      200: { description: 'The balance', schema: balanceSchema },
      400: { description: 'Bad time', reasons: ['invalid-request'] },
      ...userOnly,
    },
    handler: async ({ caller, core, query }) => ({
      status: 200,
      headers: NO_STORE,
      body: withLivemode(await core.wallet.getMyBalance.execute(caller.user(), query.at ?? null), caller.livemode()),
    }),
  }),
];
