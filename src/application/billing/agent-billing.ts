import { BILLING_MODES, requireAmount, type AgentBilling, type BillingMode } from '../../domain/billing/agent-account.js';
import type { AgentAccounts, StatementStream } from '../../domain/billing/agent-accounts.port.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';

type Directory = Pick<AgentDirectory, 'findAgent' | 'findChannel'>;

/** The agent's mode and the currency of its channel (its account's), or `agent-not-found`. */
async function agentAccountOf(directory: Directory, agentId: string): Promise<{ currency: string; livemode: boolean }> {
  const agent = await directory.findAgent(agentId);
  if (agent === null) throw new DomainError('agent-not-found');
  const channel = await directory.findChannel(agent.channelCode);
  if (channel === null) throw new DomainError('channel-not-found');
  return { currency: channel.currency, livemode: agent.livemode };
}

/** The calling agent's billing (`billing` of `GET /agent/account`), from its key alone. */
export class GetAgentBilling {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'billingOf'>,
    private readonly clock: Clock,
  ) {}

  execute(principal: AgentPrincipal): Promise<AgentBilling> {
    return this.accounts.billingOf(principal.agentId, principal.channel.currency, this.clock.now());
  }
}

/** `agent fund`: records money an agent paid in (a positive whole number of minor units of its channel's currency). */
export class FundAgent {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'fund'>,
    private readonly directory: Directory,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    agentId: string;
    amount: number;
    reference?: string | undefined;
  }): Promise<{ transactionId: string; billing: AgentBilling }> {
    const amount = requireAmount('--amount', input.amount);
    const { currency, livemode } = await agentAccountOf(this.directory, input.agentId);
    const id = this.ids.next('txn');
    const billing = await this.accounts.fund({
      id,
      agentId: input.agentId,
      amount: { amount, currency },
      reference: input.reference ?? null,
      at: this.clock.now(),
      livemode,
    });
    return { transactionId: id, billing };
  }
}

/** `agent set-billing`: prepaid or invoice, and the credit limit (kept when not given). */
export class SetAgentBilling {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'setBilling'>,
    private readonly directory: Directory,
    private readonly clock: Clock,
  ) {}

  async execute(input: { agentId: string; mode: string; creditLimit?: number | undefined }): Promise<AgentBilling> {
    if (!(BILLING_MODES as readonly string[]).includes(input.mode))
      throw new DomainError('invalid-request', { message: `The billing mode is one of ${BILLING_MODES.join(', ')}.` });
    const limit = input.creditLimit === undefined ? null : requireAmount('--credit-limit', input.creditLimit, true);
    const { currency } = await agentAccountOf(this.directory, input.agentId);
    return this.accounts.setBilling(input.agentId, currency, input.mode as BillingMode, limit, this.clock.now());
  }
}

/** `agent set-low-balance-alert`: the spendable below which the agent is told `agent_account.low_balance` (0 clears it). */
export class SetLowBalanceAlert {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'setLowBalanceAlert'>,
    private readonly directory: Directory,
    private readonly clock: Clock,
  ) {}

  async execute(input: { agentId: string; amount: number }): Promise<AgentBilling> {
    const amount = requireAmount('--amount', input.amount, true);
    const { currency } = await agentAccountOf(this.directory, input.agentId);
    return this.accounts.setLowBalanceAlert(input.agentId, currency, amount === 0 ? null : amount, this.clock.now());
  }
}

/** The longest period one statement covers (a year and a day: a leap year whole). */
const MAX_STATEMENT_MS = 367 * 24 * 3600 * 1000;

/** A statement's period, checked: `from` before `to`, at most a year and a day apart. */
export const statementPeriod = (from: Date, to: Date): { from: Date; to: Date } => {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from.getTime() >= to.getTime())
    throw new DomainError('invalid-request', {
      message: 'A statement needs from before to (RFC 3339 times).',
      details: { errors: [{ path: 'from', message: 'must be before to' }] },
    });
  if (to.getTime() - from.getTime() > MAX_STATEMENT_MS)
    throw new DomainError('invalid-request', {
      message: 'A statement covers at most a year and a day.',
      details: { errors: [{ path: 'to', message: 'at most 367 days after from' }] },
    });
  return { from, to };
};

/**
 * Statements (CONTRACT §6.4): the calling agent's own (only its own: the account is the key's
 * agent), any agent's for the operator of the service, and what is owed to an operator.
 */
export class GetStatement {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'statement'>,
    private readonly directory: Directory,
    private readonly operators: Pick<OperatorDirectory, 'find'>,
  ) {}

  /** The calling agent's statement over `[from, to)`. */
  ofCaller(principal: AgentPrincipal, from: Date, to: Date): Promise<StatementStream> {
    return this.accounts.statement({ account: { agentId: principal.agentId }, ...statementPeriod(from, to) }, principal.channel.currency);
  }

  /** An agent's statement, for the service's operator (`agent statement`). */
  async ofAgent(agentId: string, from: Date, to: Date): Promise<StatementStream> {
    const period = statementPeriod(from, to);
    const { currency } = await agentAccountOf(this.directory, agentId);
    return this.accounts.statement({ account: { agentId }, ...period }, currency);
  }

  /** What is owed to an operator over `[from, to)`: its payable's statement (`operator statement`). */
  async ofOperator(operatorCode: string, from: Date, to: Date): Promise<StatementStream> {
    const period = statementPeriod(from, to);
    const operator = await this.operators.find(operatorCode);
    if (operator === null) throw new DomainError('operator-not-found');
    // An operator's payable takes the currency of its first sale; none yet reads as no currency (ISO 4217 XXX).
    return this.accounts.statement({ account: { operatorCode, livemode: operator.livemode }, ...period }, 'XXX');
  }
}
