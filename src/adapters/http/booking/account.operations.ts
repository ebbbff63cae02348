import { z } from 'zod';
import type { AgentAccount, GetAgentAccount } from '../../../application/booking/get-agent-account.js';
import type { AgentPrincipal } from '../../../domain/identity/principal.js';
import { JsonText, NO_STORE, operation, type Operation } from '../operation.js';
import { moneySchema, timestamp } from './booking.schemas.js';
import { EXAMPLE_IDS } from '../openapi/examples.js';

/** What the agent's account in the ledger holds (CONTRACT §6.4). */
export const agentBillingSchema = z
  .object({
    mode: z.enum(['prepaid', 'invoice']),
    balance: moneySchema,
    held: moneySchema.describe('What holds and pending orders hold until they are confirmed or lapse'),
    creditLimit: moneySchema,
    spendable: moneySchema.describe('balance + creditLimit − held: what a prepaid agent may still book'),
    lowBalanceAlert: moneySchema.nullable().describe('Below this spendable the agent is told agent_account.low_balance'),
  })
  .meta({ id: 'AgentBilling', description: "The agent's account in the ledger (CONTRACT §6.4)" });

/** The example of a prepaid account in THB holding `amount`, nothing held and no credit: all of it spendable. */
export const prepaidBillingExample = (amount: number) => ({
  mode: 'prepaid',
  balance: { amount, currency: 'THB' },
  held: { amount: 0, currency: 'THB' },
  creditLimit: { amount: 0, currency: 'THB' },
  spendable: { amount, currency: 'THB' },
  lowBalanceAlert: null,
});

export const agentAccountSchema = z
  .object({
    agentId: z.string(),
    name: z.string(),
    status: z.literal('ACTIVE'),
    channel: z.object({ code: z.string(), name: z.string(), currency: z.string() }),
    entitlements: z.array(z.enum(['airport-transfer', 'express-bus'])),
    pricing: z.object({ currency: z.string(), channelMarkupBps: z.number().int(), agentDiscountBps: z.number().int() }),
    apiKey: z.object({ id: z.string(), prefix: z.string(), createdAt: timestamp(), expiresAt: timestamp().nullable() }),
    billing: agentBillingSchema,
    livemode: z.boolean().describe('False for a sandbox agent (`pbk_test_…` keys): its data never meets live data'),
  })
  .meta({ id: 'AgentAccount', description: 'The calling agent, as its key resolves' });

/** One key's account as last answered: what it was built from, and its JSON. */
interface Answered {
  readonly from: AgentPrincipal;
  readonly body: string;
}

/**
 * Whether `a` and `b` give the same account: the same scalars, and the same channel and
 * entitlement objects (the resolved key's, replaced whenever the key, agent or channel changes).
 */
const sameAccount = (a: AgentPrincipal, b: AgentPrincipal): boolean =>
  a.agentId === b.agentId &&
  a.agentName === b.agentName &&
  a.discountBps === b.discountBps &&
  a.channel === b.channel &&
  a.entitlements === b.entitlements &&
  a.key.id === b.key.id &&
  a.key.prefix === b.key.prefix &&
  a.key.createdAt === b.key.createdAt &&
  a.key.expiresAt === b.key.expiresAt;

/** Keys whose account JSON is kept; past this the oldest is dropped. */
const KEPT_ACCOUNTS = 1000;

const answered = new Map<string, Answered>();

/**
 * The account JSON of a key: serialised once and sent again while nothing it is built from has
 * changed (checked on every request).
 */
const accountJson = (getAgentAccount: GetAgentAccount, principal: AgentPrincipal): string => {
  const last = answered.get(principal.keyId);
  if (last !== undefined && sameAccount(last.from, principal)) return last.body;
  const account: AgentAccount = getAgentAccount.execute(principal);
  const body = JSON.stringify(account);
  answered.delete(principal.keyId);
  answered.set(principal.keyId, { from: principal, body });
  if (answered.size > KEPT_ACCOUNTS) answered.delete(answered.keys().next().value!);
  return body;
};

/** `GET /api/v1/agent/account`: the calling agent, from its key. */
export const accountOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/agent/account',
    operationId: 'getAgentAccount',
    summary: 'The calling agent, resolved from its key',
    tags: ['account'],
    token: 'api-key',
    scope: 'account:read',
    examples: (demo) => ({
      response: {
        agentId: EXAMPLE_IDS.agent,
        name: 'Demo Travel Agency',
        status: 'ACTIVE',
        channel: { code: 'DEMO-B2B', name: 'Demo B2B channel', currency: 'THB' },
        entitlements: ['airport-transfer', 'express-bus'],
        pricing: { currency: 'THB', channelMarkupBps: 1000, agentDiscountBps: 500 },
        apiKey: { id: EXAMPLE_IDS.apiKey, prefix: 'pbk_3yQb', createdAt: demo.createdAt, expiresAt: null },
        billing: prepaidBillingExample(5_000_000),
        livemode: true,
      },
    }),
    responses: {
      200: { description: 'The agent, its channel, pricing, entitlements and the key in use', schema: agentAccountSchema },
    },
    handler: async ({ caller, core }) => {
      const principal = caller.agent();
      const account = accountJson(core.booking.getAgentAccount, principal);
      const billing = core.booking.getAgentBilling === undefined ? null : await core.booking.getAgentBilling.execute(principal);
      // The account's JSON is kept while nothing it is built from changes; the billing is read every time.
      const body = billing === null ? account : `${account.slice(0, -1)},"billing":${JSON.stringify(billing)}}`;
      return { status: 200, headers: NO_STORE, body: new JsonText(body) };
    },
  }),
];
