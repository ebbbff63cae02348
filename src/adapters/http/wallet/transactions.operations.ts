import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDS } from '../openapi/examples.js';
import { live, paymentExample, topUpExample, WALLET_AMOUNTS } from './wallet-examples.js';
import {
  listQuery,
  summaryQuery,
  summarySchema,
  transactionPageSchema,
  transactionJson,
  transactionParams,
  transactionQueryOf,
  transactionSchema,
  withLivemode,
} from './transactions.schemas.js';

const eitherToken = { 401: { description: 'No valid token', reasons: ['invalid-token'] } } as const;
const scope =
  'A machine token reads the whole tenant (`userId` narrows it to one user’s activity); a user token reads only the transactions the person is party to, whatever the parameters say.';

/**
 * Transaction reads for either token. The scope comes from the token alone (the use cases build
 * it in the domain): `userId` narrows a machine token's reads and never widens a user token's.
 */
/** Where one transaction is read, relative to `WALLET_BASE_PATH`; a transaction just made answers with it as its `Location`. */
export const TRANSACTION_PATH = '/transactions/{transactionId}';

export const transactionOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/transactions',
    operationId: 'listTransactions',
    summary: 'Transactions the caller may see, newest first',
    description: scope,
    tags: ['transactions'],
    token: 'either',
    request: { query: listQuery },
    examples: (demo) => ({
      query: { type: 'TOP_UP,PAYMENT', userId: EXAMPLE_IDS.demoUser, from: demo.from, to: demo.to, limit: 20 },
      response: { data: [live(paymentExample(demo)), live(topUpExample(demo))], nextCursor: null },
    }),
    responses: {
      200: { description: 'A keyset page', schema: transactionPageSchema },
      400: { description: 'Bad type, time, limit or cursor', reasons: ['invalid-request'] },
      ...eitherToken,
    },
    handler: async ({ query: q, caller, core }) => {
      const page = await core.wallet.listTransactions.execute(caller.wallet(), {
        limit: q.limit,
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...transactionQueryOf(q),
      });
      return {
        status: 200,
        headers: NO_STORE,
        body: {
          data: page.data.map((t) => withLivemode(transactionJson(t), caller.livemode())),
          nextCursor: page.nextCursor,
        },
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/transactions/summary',
    operationId: 'summarizeTransactions',
    summary: 'Counts and totals per type over the caller’s scope',
    description: `Narrowed exactly like the list. ${scope}`,
    tags: ['transactions'],
    token: 'either',
    request: { query: summaryQuery },
    examples: (demo) => ({
      query: { type: 'TOP_UP,PAYMENT', userId: EXAMPLE_IDS.demoUser, from: demo.from, to: demo.to },
      response: {
        from: demo.from.replace('Z', '.000Z'),
        to: demo.to.replace('Z', '.000Z'),
        byType: [
          { type: 'TOP_UP', count: 1, total: WALLET_AMOUNTS.topUp },
          { type: 'PAYMENT', count: 1, total: WALLET_AMOUNTS.payment },
        ],
        livemode: true,
      },
    }),
    responses: {
      200: { description: 'One row per type, zero when none', schema: summarySchema },
      400: { description: 'Bad type or time', reasons: ['invalid-request'] },
      ...eitherToken,
    },
    handler: async ({ query: q, caller, core }) => {
      const summary = await core.wallet.summarizeTransactions.execute(caller.wallet(), transactionQueryOf(q));
      return {
        status: 200,
        headers: NO_STORE,
        body: {
          from: summary.from?.toISOString() ?? null,
          to: summary.to?.toISOString() ?? null,
          byType: summary.byType,
          livemode: caller.livemode(),
        },
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: TRANSACTION_PATH,
    operationId: 'getTransaction',
    summary: 'One transaction within the caller’s scope',
    tags: ['transactions'],
    token: 'either',
    request: { params: transactionParams },
    examples: (demo) => ({ params: { transactionId: EXAMPLE_IDS.payment }, response: live(paymentExample(demo)) }),
    responses: {
      200: { description: 'The transaction', schema: transactionSchema },
      ...eitherToken,
      404: { description: 'Unknown, another tenant’s, or (user token) another person’s', reasons: ['transaction-not-found'] },
    },
    handler: async ({ params: { transactionId }, caller, core }) => {
      const txn = await core.wallet.getTransaction.execute(caller.wallet(), transactionId);
      return { status: 200, headers: NO_STORE, body: withLivemode(transactionJson(txn), caller.livemode()) };
    },
  }),
];
