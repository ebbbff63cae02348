import { z } from 'zod';
import { STATEMENT_LINE_TYPES } from '../../../domain/billing/agent-account.js';
import { statementCsv, statementJsonChunks } from '../../statement-output.js';
import { NO_STORE, operation, StreamedBody, type Operation } from '../operation.js';
import { KEY_ERRORS } from './booking.openapi-common.js';
import { moneySchema, timestamp } from './booking.schemas.js';

const statementQuery = z.object({
  from: timestamp().describe('The first instant of the period (RFC 3339)'),
  to: timestamp().describe('The end of the period, not included (RFC 3339); at most 367 days after from'),
});

const statementSchema = z
  .object({
    from: timestamp(),
    to: timestamp(),
    currency: z.string(),
    livemode: z.boolean().describe('False for a sandbox agent’s account (CONTRACT §6.7)'),
    opening: moneySchema.describe('The balance at from'),
    closing: moneySchema.describe('The balance at to: opening plus every line'),
    lines: z.array(
      z.object({
        at: timestamp(),
        type: z.enum(STATEMENT_LINE_TYPES),
        orderId: z.string().nullable(),
        agentReference: z.string().nullable(),
        amount: moneySchema.describe('Signed: a credit of the account is positive, a debit negative'),
        balance: moneySchema.describe('The balance after this line'),
      }),
    ),
  })
  .meta({ id: 'Statement', description: "The agent's account over a period, line by line" });

/** `GET /api/v1/agent/statement`: the calling agent's statement, JSON or (`Accept: text/csv`) CSV, streamed. */
export const statementOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/agent/statement',
    operationId: 'getAgentStatement',
    summary: "The calling agent's statement: opening balance, every movement with the balance after it, closing balance",
    tags: ['account'],
    token: 'api-key',
    scope: 'billing:read',
    request: { query: statementQuery },
    examples: (demo) => ({
      query: { from: '2027-01-01T00:00:00Z', to: '2027-02-01T00:00:00Z' },
      response: {
        from: '2027-01-01T00:00:00.000Z',
        to: '2027-02-01T00:00:00.000Z',
        currency: 'THB',
        livemode: true,
        opening: { amount: 0, currency: 'THB' },
        closing: { amount: 4_912_000, currency: 'THB' },
        lines: [
          {
            at: demo.createdAt,
            type: 'FUNDING',
            orderId: null,
            agentReference: null,
            amount: { amount: 5_000_000, currency: 'THB' },
            balance: { amount: 5_000_000, currency: 'THB' },
          },
        ],
      },
    }),
    responses: {
      200: { description: 'The statement (with `Accept: text/csv`, CSV with a header row)', schema: statementSchema },
      400: { description: 'Bad from or to', reasons: ['invalid-request'] },
      ...KEY_ERRORS,
    },
    handler: async ({ query, caller, core, req }) => {
      const from = new Date(query.from);
      const to = new Date(query.to);
      const statement = await core.booking.statements.ofCaller(caller.agent(), from, to);
      const csv = req.accepts(['application/json', 'text/csv']) === 'text/csv';
      return {
        status: 200,
        headers: NO_STORE,
        body: csv
          ? new StreamedBody('text/csv; charset=utf-8', statementCsv(statement, from, to) as AsyncIterable<Buffer>)
          : new StreamedBody('application/json; charset=utf-8', statementJsonChunks(statement, from, to, caller.agent().livemode)),
      };
    },
  }),
];
