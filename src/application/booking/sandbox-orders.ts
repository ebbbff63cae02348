import type { AgentBilling } from '../../domain/billing/agent-account.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import type { Order, OPERATOR_REJECTION_REASONS } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { deadlineReached, operatorCancel, operatorConfirm, operatorReject } from '../../domain/booking/order-transitions.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import type { FundAgent } from '../billing/agent-billing.js';
import { changeOrder } from './order-money.js';
import { amountIn, type AmountInput } from '../../domain/wallet/ledger.js';

/**
 * The booking sandbox's test helpers (CONTRACT §6.7): what a sandbox agent may do to its own
 * orders that only the operator or the clock does in live, each through the real transition (the
 * same change, money and event as the operator's answer or the lapse), and funding its own
 * account. A live agent has none: every helper answers null and writes nothing.
 */
export class SandboxOrders {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
    private readonly fundAgent: Pick<FundAgent, 'execute'>,
  ) {}

  /** As the order's operator confirming it with `operatorReference`: a PENDING order only. */
  operatorConfirm(principal: AgentPrincipal, orderId: string, operatorReference: string): Promise<Order | null> {
    return this.change(principal, orderId, (order, at) => operatorConfirm(order, operatorReference, at));
  }

  /** As the order's operator refusing it: a PENDING order only; its stock and price are free at once. */
  operatorReject(principal: AgentPrincipal, orderId: string, reason: (typeof OPERATOR_REJECTION_REASONS)[number]): Promise<Order | null> {
    return this.change(principal, orderId, (order) => operatorReject(order, reason));
  }

  /** As the order's operator cancelling it: a CONFIRMED order, with a full refund and no fee. */
  operatorCancel(principal: AgentPrincipal, orderId: string): Promise<Order | null> {
    return this.change(principal, orderId, (order, at) => operatorCancel(order, at));
  }

  /** A hold or a pending order reaches its deadline now: EXPIRED, or REJECTED `operator-timeout`. */
  expire(principal: AgentPrincipal, orderId: string): Promise<Order | null> {
    return this.change(principal, orderId, (order, at) => deadlineReached(order, at));
  }

  /** Money paid into the caller's own account, as `agent fund` records it. */
  /** `amount` in minor units or as money, in the channel's currency (else `currency-mismatch`). */
  async fund(principal: AgentPrincipal, amount: AmountInput): Promise<{ transactionId: string; billing: AgentBilling } | null> {
    if (principal.livemode) return null;
    const money = amountIn(amount, principal.channel.currency);
    return this.fundAgent.execute({ agentId: principal.agentId, amount: money.amount, reference: 'test-helper-fund' });
  }

  private async change(principal: AgentPrincipal, orderId: string, decide: (order: Order, at: Date) => Order): Promise<Order | null> {
    if (principal.livemode) return null;
    const now = this.clock.now();
    return changeOrder(
      { orders: this.orders, accounts: this.accounts, unitOfWork: this.unitOfWork },
      {
        scope: { agentId: principal.agentId },
        orderId,
        decide: (order) => decide(order, now),
        at: now,
        // The ledger names the helper as who changed it: the operator and the clock it stands in for did not.
        by: `test-helper:${principal.agentId}`,
      },
    );
  }
}
