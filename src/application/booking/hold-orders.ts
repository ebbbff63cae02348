import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Contact, Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { confirmHold, releaseHold } from '../../domain/booking/order-transitions.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import { changeOrderWithMoney } from './order-money.js';

/** What a confirm of a hold may bring: the traveller's details, when the hold was placed without them. */
export interface ConfirmHoldRequest {
  readonly contact?: { readonly name: string; readonly email: string; readonly phone?: string | undefined } | undefined;
  readonly passengers?: ReadonlyArray<{ readonly name: string }> | undefined;
}

/**
 * Confirms one of the caller's holds: CONFIRMED with an instant operator, PENDING with an
 * on-request one. The moment that counts is when the request was received: a confirm received
 * before `holdExpiresAt` succeeds however long it then waits for the order's lock.
 */
export class ConfirmHold {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string, input: ConfirmHoldRequest): Promise<Order> {
    const receivedAt = this.clock.now();
    const contact: Contact | undefined =
      input.contact === undefined
        ? undefined
        : { name: input.contact.name, email: input.contact.email, phone: input.contact.phone ?? null };
    const changed = await this.unitOfWork.run(() =>
      changeOrderWithMoney(this.orders, this.accounts, {
        scope: { agentId: principal.agentId },
        orderId,
        decide: (locked) => confirmHold(locked, receivedAt, { contact, passengers: input.passengers }),
        at: receivedAt,
        by: `agent:${principal.agentId}`,
      }),
    );
    if (changed === null) throw new DomainError('order-not-found');
    return changed.order;
  }
}

/** Releases one of the caller's holds: its stock and price are free at once; a released order is answered as it is. */
export class ReleaseHold {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const now = this.clock.now();
    const changed = await this.unitOfWork.run(() =>
      changeOrderWithMoney(this.orders, this.accounts, {
        scope: { agentId: principal.agentId },
        orderId,
        decide: (locked) => releaseHold(locked, 'agent'),
        at: now,
        by: `agent:${principal.agentId}`,
      }),
    );
    if (changed === null) throw new DomainError('order-not-found');
    return changed.order;
  }
}
