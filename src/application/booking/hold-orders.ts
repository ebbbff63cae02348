import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Contact, Order } from '../../domain/booking/order.js';
import { confirmHold, releaseHold } from '../../domain/booking/order-transitions.js';
import { OwnOrderChange } from './order-money.js';

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
export class ConfirmHold extends OwnOrderChange {
  async execute(principal: AgentPrincipal, orderId: string, input: ConfirmHoldRequest): Promise<Order> {
    const receivedAt = this.clock.now();
    const contact: Contact | undefined =
      input.contact === undefined
        ? undefined
        : { name: input.contact.name, email: input.contact.email, phone: input.contact.phone ?? null };
    return this.change(principal, orderId, receivedAt, (locked) =>
      confirmHold(locked, receivedAt, { contact, passengers: input.passengers }),
    );
  }
}

/** Releases one of the caller's holds: its stock and price are free at once; a released order is answered as it is. */
export class ReleaseHold extends OwnOrderChange {
  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    return this.change(principal, orderId, this.clock.now(), (locked) => releaseHold(locked, 'agent'));
  }
}
