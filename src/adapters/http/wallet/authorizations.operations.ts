import type { Request } from 'express';
import { stringify } from 'csv-stringify';
import type { AuthorizationAt } from '../../../application/wallet/authorizations.js';
import type { Statement } from '../../../application/wallet/get-statement.js';
import { authorizationJson } from '../../json-views.js';
import { NO_STORE, operation, StreamedBody, type Answer, type Operation } from '../operation.js';
import { HttpProblem } from '../problem.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS } from '../openapi/examples.js';
import {
  authorizationListQuery,
  authorizationPageSchema,
  authorizationParams,
  authorizationSchema,
  authorizeBody,
  balanceQuery,
  captureAnswerSchema,
  captureBody,
  statementQuery,
  statementSchema,
} from './authorizations.schemas.js';
import { balanceSchema, idempotencyHeaders, transactionJson, userIdParams, withLivemode } from './transactions.schemas.js';
import { AUTHORIZATION_AMOUNTS, authorizationExample, captureAnswerExample, live, thb, WALLET_AMOUNTS } from './wallet-examples.js';

/** Where one authorization is read, relative to `WALLET_BASE_PATH`. */
export const AUTHORIZATION_PATH = '/authorizations/{authorizationId}';

const badBody = {
  description: 'Bad body or amount (zero, negative, fractional, too large), or a lifetime out of range',
  reasons: ['invalid-request', 'malformed-json'],
} as const;
const keyInUse = {
  description: 'A request with this Idempotency-Key is still running after a 5 s wait',
  reasons: ['idempotency-key-in-use'],
} as const;
const notFound = {
  description: 'Unknown, another tenant’s, or (user token) another person’s',
  reasons: ['authorization-not-found'],
} as const;
const notPending = {
  description: 'Already captured, voided or lapsed (`authorization-not-pending`), or a key still in use',
  reasons: ['authorization-not-pending', 'idempotency-key-in-use'],
} as const;
const scopeNote =
  'A machine token reads the whole tenant (`userId` narrows it to one user); a user token reads only the person’s own authorizations, whatever the parameters say.';

const authorizationAnswer = (status: number, at: AuthorizationAt, livemode: boolean, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { ...NO_STORE, ...headers },
  body: withLivemode(authorizationJson(at.authorization, at.now), livemode),
});

const located = (req: Request, id: string): Record<string, string> => ({
  Location: `${req.baseUrl}${AUTHORIZATION_PATH.replace('{authorizationId}', id)}`,
});

/** The columns of a statement's CSV, in order, with its header row. */
const STATEMENT_COLUMNS = ['at', 'type', 'transactionId', 'reference', 'amount', 'balance', 'currency'] as const;

/**
 * A statement as it leaves: JSON written line by line (the closing balance last, once every line
 * has gone), or with `Accept: text/csv` a CSV with a header row. Either way the lines are read
 * from storage page by page as the connection drains, never held whole.
 */
function statementAnswer(req: Request, s: Statement, livemode: boolean): Answer {
  if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
    const csv = stringify({ header: true, columns: [...STATEMENT_COLUMNS] });
    async function* rows(): AsyncIterable<string> {
      const feed = (async () => {
        for await (const l of s.lines)
          if (!csv.write({ ...l, at: l.at.toISOString(), reference: l.reference ?? '', currency: s.currency }))
            await new Promise((r) => csv.once('drain', r));
        csv.end();
      })();
      feed.catch((err: unknown) => csv.destroy(err instanceof Error ? err : new Error(String(err))));
      for await (const chunk of csv) yield String(chunk);
      await feed;
    }
    return { status: 200, headers: NO_STORE, body: new StreamedBody('text/csv; charset=utf-8', rows()) };
  }
  async function* json(): AsyncIterable<string> {
    const money = (amount: number) => ({ amount, currency: s.currency });
    yield `{"from":${JSON.stringify(s.from.toISOString())},"to":${JSON.stringify(s.to.toISOString())},"currency":${JSON.stringify(s.currency)},"livemode":${livemode},"opening":${JSON.stringify(money(s.opening))},"lines":[`;
    let balance = s.opening;
    let first = true;
    for await (const l of s.lines) {
      balance = l.balance;
      const line = {
        at: l.at.toISOString(),
        type: l.type,
        transactionId: l.transactionId,
        reference: l.reference,
        amount: money(l.amount),
        balance: money(l.balance),
      };
      yield `${first ? '' : ','}${JSON.stringify(line)}`;
      first = false;
    }
    yield `],"closing":${JSON.stringify(money(balance))}}`;
  }
  return { status: 200, headers: NO_STORE, body: new StreamedBody('application/json', json()) };
}

const statementResponses = {
  200: {
    description:
      'The statement: JSON, or with `Accept: text/csv` a CSV (`at,type,transactionId,reference,amount,balance,currency`, amounts in minor units) with a header row',
    schema: statementSchema,
  },
  400: { description: 'Bad time, `from` after `to`, or more than 366 days', reasons: ['invalid-request'] },
} as const;

const statementExample = (demo: { from: string; to: string; createdAt: string }) => ({
  from: demo.from.replace('Z', '.000Z'),
  to: demo.to.replace('Z', '.000Z'),
  currency: 'THB',
  livemode: true,
  opening: thb(0),
  lines: [
    {
      at: demo.createdAt,
      type: 'TOP_UP',
      transactionId: EXAMPLE_IDS.topUp,
      reference: 'topup-2026-0001',
      amount: thb(WALLET_AMOUNTS.topUp),
      balance: thb(WALLET_AMOUNTS.topUp),
    },
  ],
  closing: thb(WALLET_AMOUNTS.topUp),
});

/** Wallet authorizations (hold, capture, void), balances at an instant and statements (CONTRACT §6.6). */
export const authorizationOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'post',
    path: '/me/authorizations',
    operationId: 'authorizePayment',
    summary: 'Hold money from the person’s balance for a later charge',
    description:
      'The amount is taken from the available balance at once (`available = ledger − held`) and held until the tenant captures it, it is voided, or it lapses at `expiresAt` (true on every read from that instant).',
    tags: ['authorizations'],
    token: 'user',
    rateLimit: 'payments',
    request: { body: authorizeBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.authorizePayment },
      body: { amount: thb(AUTHORIZATION_AMOUNTS.held), reference: 'RIDE-20417', expiresInSeconds: 86_400 },
      response: live(authorizationExample(demo)),
    }),
    responses: {
      201: { description: 'The authorization, PENDING', schema: authorizationSchema, headers: { Location: AUTHORIZATION_PATH } },
      400: badBody,
      409: keyInUse,
      422: {
        description: 'The available balance is too low, another currency, or a reused key',
        reasons: ['insufficient-funds', 'currency-mismatch', 'idempotency-key-reused'],
      },
    },
    idempotency: { scope: 'wallet' },
    handler: async ({ body, caller, core, req }) => {
      const made = await core.wallet.authorize.execute({
        principal: caller.user(),
        amount: body.amount,
        reference: body.reference,
        ...(body.expiresInSeconds === undefined ? {} : { expiresInSeconds: body.expiresInSeconds }),
      });
      return authorizationAnswer(201, made, caller.livemode(), located(req, made.authorization.id));
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: `${AUTHORIZATION_PATH}/capture`,
    operationId: 'captureAuthorization',
    summary: 'Charge all or part of an authorization',
    description:
      'Records a PAYMENT of the amount (everything that remains when omitted) naming the authorization. Several partial captures are allowed until one is `final` or nothing remains; under any concurrency the captures never exceed the authorization.',
    tags: ['authorizations'],
    token: 'machine',
    request: { params: authorizationParams, body: captureBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: { authorizationId: EXAMPLE_IDS.authorization },
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.captureAuthorization },
      body: { amount: thb(AUTHORIZATION_AMOUNTS.captured), final: true },
      response: captureAnswerExample(demo),
    }),
    responses: {
      200: { description: 'The authorization after the capture, with the PAYMENT it recorded', schema: captureAnswerSchema },
      400: badBody,
      404: notFound,
      409: notPending,
      422: {
        description: 'More than remains of the authorization, another currency, or a reused key',
        reasons: ['exceeds-authorization', 'currency-mismatch', 'idempotency-key-reused'],
      },
    },
    idempotency: { scope: 'wallet' },
    handler: async ({ params, body, caller, core }) => {
      const done = await core.wallet.captureAuthorization.execute({
        principal: caller.machine(),
        authorizationId: params.authorizationId,
        amount: body.amount ?? null,
        final: body.final ?? false,
      });
      return {
        status: 200,
        headers: NO_STORE,
        body: withLivemode(
          { ...authorizationJson(done.authorization, done.now), capture: withLivemode(transactionJson(done.capture), caller.livemode()) },
          caller.livemode(),
        ),
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: `${AUTHORIZATION_PATH}/void`,
    operationId: 'voidAuthorization',
    summary: 'Give the held money back',
    description:
      'The tenant’s backend, or the person whose money it holds. A repeated void answers the voided authorization unchanged; a captured or lapsed one is refused.',
    tags: ['authorizations'],
    token: 'either',
    request: { params: authorizationParams, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: { authorizationId: EXAMPLE_IDS.authorization },
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.voidAuthorization },
      response: live({
        ...authorizationExample(demo),
        status: 'VOIDED',
        remaining: thb(0),
        resolvedAt: demo.createdAt.replace('T03:00', 'T03:50'),
      }),
    }),
    responses: {
      200: { description: 'The authorization, VOIDED', schema: authorizationSchema },
      404: notFound,
      400: { description: 'A body that is not valid JSON, or not an object', reasons: ['malformed-json', 'invalid-request'] },
      409: notPending,
      413: { description: 'A body over 64 KiB', reasons: ['payload-too-large'] },
      415: { description: 'A body that is not JSON', reasons: ['unsupported-media-type'] },
      422: { description: 'A reused key', reasons: ['idempotency-key-reused'] },
    },
    // It takes no fields, but a body it is sent is JSON or refused.
    jsonBody: true,
    idempotency: { scope: 'wallet' },
    handler: async ({ params, caller, core }) =>
      authorizationAnswer(200, await core.wallet.voidAuthorization.execute(caller.wallet(), params.authorizationId), caller.livemode()),
  }),
  operation({
    surface: 'wallet',
    method: 'post',
    path: `/test-helpers${AUTHORIZATION_PATH}/expire`,
    operationId: 'expireTestAuthorization',
    summary: 'Sandbox: an authorization reaches its deadline now',
    description:
      'For a sandbox tenant (`tenant create --test`, client id `cli_test_…`) only: a PENDING authorization lapses now, exactly as at its deadline: `EXPIRED`, `expiresAt` and `resolvedAt` now, the held amount available again at once, and one `authorization.expired` event. A live tenant’s token gets 404 `not-found`.',
    tags: ['test-helpers'],
    token: 'machine',
    sandboxOnly: true,
    request: { params: authorizationParams, headers: idempotencyHeaders },
    examples: (demo) => {
      const at = demo.createdAt.replace('T03:00', 'T03:50');
      return {
        params: { authorizationId: EXAMPLE_IDS.authorization },
        headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.expireTestAuthorization },
        response: live({ ...authorizationExample(demo), status: 'EXPIRED', remaining: thb(0), expiresAt: at, resolvedAt: at }),
      };
    },
    responses: {
      200: { description: 'The authorization, EXPIRED, as `GET /authorizations/{authorizationId}` shows it', schema: authorizationSchema },
      404: {
        description: 'A live tenant (test helpers are for sandbox tenants only), or an authorization unknown or another tenant’s',
        reasons: ['not-found', 'authorization-not-found'],
      },
      409: notPending,
      422: { description: 'A reused key', reasons: ['idempotency-key-reused'] },
    },
    idempotency: { scope: 'wallet' },
    handler: async ({ params, caller, core }) => {
      const expired = await core.wallet.expireTestAuthorization.execute(caller.machine(), params.authorizationId);
      if (expired === null) throw new HttpProblem(404, 'not-found', 'No such resource.');
      return authorizationAnswer(200, expired, caller.livemode());
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/authorizations',
    operationId: 'listAuthorizations',
    summary: 'Authorizations the caller may see, newest first',
    description: scopeNote,
    tags: ['authorizations'],
    token: 'either',
    request: { query: authorizationListQuery },
    examples: (demo) => ({
      query: { userId: EXAMPLE_IDS.demoUser, status: 'PENDING', limit: 20 },
      response: { data: [live(authorizationExample(demo))], nextCursor: null },
    }),
    responses: {
      200: { description: 'A keyset page', schema: authorizationPageSchema },
      400: { description: 'Bad status, limit or cursor', reasons: ['invalid-request'] },
    },
    handler: async ({ query: q, caller, core }) => {
      const page = await core.wallet.listAuthorizations.execute(caller.wallet(), {
        limit: q.limit,
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.userId === undefined ? {} : { userId: q.userId }),
        ...(q.status === undefined ? {} : { status: q.status }),
      });
      return {
        status: 200,
        headers: NO_STORE,
        body: { data: page.data.map((a) => withLivemode(authorizationJson(a, page.now), caller.livemode())), nextCursor: page.nextCursor },
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: AUTHORIZATION_PATH,
    operationId: 'getAuthorization',
    summary: 'One authorization within the caller’s scope',
    description: scopeNote,
    tags: ['authorizations'],
    token: 'either',
    request: { params: authorizationParams },
    examples: (demo) => ({ params: { authorizationId: EXAMPLE_IDS.authorization }, response: live(authorizationExample(demo)) }),
    responses: {
      200: { description: 'The authorization, as true now', schema: authorizationSchema },
      404: notFound,
    },
    handler: async ({ params, caller, core }) =>
      authorizationAnswer(200, await core.wallet.getAuthorization.execute(caller.wallet(), params.authorizationId), caller.livemode()),
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/users/{userId}/balance',
    operationId: 'getUserBalance',
    summary: 'One user’s balance, now or at an instant',
    tags: ['users'],
    token: 'machine',
    request: { params: userIdParams, query: balanceQuery },
    examples: (demo) => ({
      params: { userId: EXAMPLE_IDS.demoUser },
      query: { at: demo.to },
      response: live({ available: thb(WALLET_AMOUNTS.topUp), held: thb(0), ledger: thb(WALLET_AMOUNTS.topUp) }),
    }),
    responses: {
      200: { description: 'The balance', schema: balanceSchema },
      400: { description: 'Bad time', reasons: ['invalid-request'] },
      404: { description: 'No such user in this tenant', reasons: ['user-not-found'] },
    },
    handler: async ({ params, query, caller, core }) => ({
      status: 200,
      headers: NO_STORE,
      body: withLivemode(await core.wallet.getUserBalance.execute(caller.machine(), params.userId, query.at ?? null), caller.livemode()),
    }),
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/me/statement',
    operationId: 'getMyStatement',
    summary: 'The person’s statement over a period',
    description: 'Opening balance, every entry of the period in the order it was applied with the balance it left, closing balance.',
    tags: ['me'],
    token: 'user',
    request: { query: statementQuery },
    examples: (demo) => ({ query: { from: demo.from, to: demo.to }, response: statementExample(demo) }),
    responses: statementResponses,
    handler: async ({ query, caller, core, req }) =>
      statementAnswer(req, await core.wallet.getMyStatement.execute(caller.user(), query.from, query.to), caller.livemode()),
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/users/{userId}/statement',
    operationId: 'getUserStatement',
    summary: 'One user’s statement over a period',
    description: 'As `GET /me/statement`, for one of the tenant’s users.',
    tags: ['users'],
    token: 'machine',
    request: { params: userIdParams, query: statementQuery },
    examples: (demo) => ({
      params: { userId: EXAMPLE_IDS.demoUser },
      query: { from: demo.from, to: demo.to },
      response: statementExample(demo),
    }),
    responses: { ...statementResponses, 404: { description: 'No such user in this tenant', reasons: ['user-not-found'] } },
    handler: async ({ params, query, caller, core, req }) =>
      statementAnswer(
        req,
        await core.wallet.getUserStatement.execute(caller.machine(), params.userId, query.from, query.to),
        caller.livemode(),
      ),
  }),
];
