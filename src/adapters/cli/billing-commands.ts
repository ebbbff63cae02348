import { BILLING_MODES } from '../../domain/billing/agent-account.js';
import type { AgentBilling } from '../../domain/billing/agent-account.js';
import type { StatementStream } from '../../domain/billing/agent-accounts.port.js';
import { statementCsv, statementJsonChunks, textOf } from '../statement-output.js';
import type { ServiceCommand } from './admin.js';
import { CommandRefused, oneOf, optional, required, UsageError, type Values } from './command.js';

/**
 * A whole positive amount of minor units; anything else (zero, negative, a fraction, not a
 * number) is refused with a clear reason and exit code 1, before anything is written.
 */
const amountFlag = (v: Values, flag: string, allowZero = false): number => {
  const text = required(v, flag).trim();
  const n = Number(text);
  if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isSafeInteger(n) || n < (allowZero ? 0 : 1))
    throw new CommandRefused(
      'invalid-request',
      `--${flag} must be a whole ${allowZero ? 'non-negative' : 'positive'} number of minor units (such as 150000 for 1,500.00); got ${text}`,
    );
  return n;
};

const timeFlag = (v: Values, flag: string): Date => {
  const text = required(v, flag);
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--${flag} must be an RFC 3339 time, such as 2027-01-01T00:00:00Z`);
  return at;
};

/** The billing as the commands print it. */
const billingJson = (agentId: string, b: AgentBilling): Record<string, unknown> => ({
  agentId,
  mode: b.mode,
  balance: b.balance,
  held: b.held,
  creditLimit: b.creditLimit,
  spendable: b.spendable,
  lowBalanceAlert: b.lowBalanceAlert,
});

/** A statement for the command line: the JSON object, or with `--csv` its CSV text. */
const statementResult = async (s: StatementStream, from: Date, to: Date, csv: boolean): Promise<Record<string, unknown>> =>
  csv
    ? { csv: await textOf(statementCsv(s, from, to) as AsyncIterable<Buffer>) }
    : (JSON.parse(await textOf(statementJsonChunks(s, from, to))) as Record<string, unknown>);

const statementText = (r: Record<string, unknown>): string => {
  if (typeof r.csv === 'string') return r.csv.trimEnd();
  const lines = (r.lines as Array<Record<string, { amount: number } | string | null>>).map(
    (l) =>
      `${String(l.at)}  ${String(l.type).padEnd(10)}  ${String((l.amount as { amount: number }).amount).padStart(12)}  ${String((l.balance as { amount: number }).amount).padStart(12)}  ${String(l.orderId ?? '-')}`,
  );
  const money = (m: unknown) => String((m as { amount: number }).amount);
  return [`currency: ${String(r.currency)}`, `opening: ${money(r.opening)}`, ...lines, `closing: ${money(r.closing)}`].join('\n');
};

/** The agents' accounts in the ledger (CONTRACT §6.4): funding, billing mode, alerts, statements. */
export const BILLING_COMMANDS: readonly ServiceCommand[] = [
  {
    name: 'agent fund',
    summary: "record money an agent paid in: its account's balance rises by the amount",
    flags: {
      agent: { value: 'ID', required: true, description: 'the agent (agt_…)' },
      amount: { value: 'N', required: true, description: "a positive whole number of minor units of its channel's currency" },
      reference: { value: 'R', description: 'your reference of the payment (a bank transfer, a receipt)' },
    },
    run: async (v, u) => {
      const agentId = required(v, 'agent');
      const { transactionId, billing } = await u.fundAgent.execute({
        agentId,
        amount: amountFlag(v, 'amount'),
        reference: optional(v, 'reference'),
      });
      return { transactionId, ...billingJson(agentId, billing) };
    },
    output: 'fields',
  },
  {
    name: 'agent set-billing',
    summary: 'set how an agent pays: prepaid (balance plus credit limit must cover each order) or invoice (billed later)',
    flags: {
      agent: { value: 'ID', required: true, description: 'the agent (agt_…)' },
      mode: { value: BILLING_MODES.join('|'), required: true, description: 'prepaid or invoice' },
      'credit-limit': {
        value: 'N',
        description: 'how far below zero a prepaid balance may go, in minor units (default: unchanged, 0 at first)',
      },
    },
    run: async (v, u) => {
      const agentId = required(v, 'agent');
      const mode = oneOf('mode', required(v, 'mode'), BILLING_MODES);
      const creditLimit = v['credit-limit'] === undefined ? undefined : amountFlag(v, 'credit-limit', true);
      return billingJson(agentId, await u.setAgentBilling.execute({ agentId, mode, creditLimit }));
    },
    output: 'fields',
  },
  {
    name: 'agent set-low-balance-alert',
    summary: 'tell the agent (event agent_account.low_balance) each time its spendable falls below this amount (0: never)',
    flags: {
      agent: { value: 'ID', required: true, description: 'the agent (agt_…)' },
      amount: { value: 'N', required: true, description: 'the spendable, in minor units, below which it is told' },
    },
    run: async (v, u) => {
      const agentId = required(v, 'agent');
      return billingJson(agentId, await u.setLowBalanceAlert.execute({ agentId, amount: amountFlag(v, 'amount', true) }));
    },
    output: 'fields',
  },
  statementCommand(
    'agent',
    'ID',
    "an agent's statement over [from, to): opening balance, each movement with the balance after it, closing balance",
    'the agent (agt_…)',
    (u, id, from, to) => u.statements.ofAgent(id, from, to),
  ),
  statementCommand(
    'operator',
    'C',
    'what is owed to an operator over [from, to): its payable, credited with the base fare of each sale',
    'the operator code',
    (u, id, from, to) => u.statements.ofOperator(id, from, to),
  ),
];

/** `agent statement` and `operator statement`: one period's statement of one account, as JSON or CSV. */
function statementCommand(
  of: 'agent' | 'operator',
  value: string,
  summary: string,
  description: string,
  read: (u: Parameters<ServiceCommand['run']>[1], id: string, from: Date, to: Date) => Promise<StatementStream>,
): ServiceCommand {
  return {
    name: `${of} statement`,
    summary,
    flags: {
      [of]: { value, required: true, description },
      from: { value: 'RFC3339', required: true, description: 'the first instant of the period' },
      to: { value: 'RFC3339', required: true, description: 'the end of the period (not included)' },
      csv: { description: 'print CSV with a header row instead' },
    },
    run: async (v, u) => {
      const from = timeFlag(v, 'from');
      const to = timeFlag(v, 'to');
      return statementResult(await read(u, required(v, of), from, to), from, to, v.csv === true);
    },
    output: statementText,
  };
}
