import { requireEntitlement } from '../../domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { confirmedOrPending, grantedHoldExpiry, passengersMismatch } from '../../domain/booking/order-transitions.js';
import { requireOwned } from '../../domain/booking/ownership.js';
import { checkQuoteBookable } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { keyReused } from '../../domain/shared/idempotency.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';

/** What placing an order asks for. */
export interface PlaceOrderRequest {
  readonly quoteId: string;
  /** Required unless the order is held: a hold may wait for the traveller's details until its confirm. */
  readonly contact?: { readonly name: string; readonly email: string; readonly phone?: string | undefined } | undefined;
  readonly passengers?: ReadonlyArray<{ readonly name: string }> | undefined;
  readonly agentReference?: string | undefined;
  /** Hold the stock and price instead of booking now (`seconds` defaults to 900, at most the channel's most). */
  readonly hold?: { readonly seconds?: number | undefined } | undefined;
  /** The request's Idempotency-Key: stored on the order, unique per agent. */
  readonly idempotencyKey?: string | undefined;
}

/**
 * Books one of the caller's quotes, or holds it. The checks run in the contract's order (unknown
 * or another agent's quote, entitlement, channel, expiry); booking at most once and stock (a bus's
 * seats, a transfer's vehicle) are then decided by storage in one atomic step. A booking with an
 * instant operator is CONFIRMED, with an on-request one PENDING until its operator answers; a hold
 * is ON_HOLD until it is confirmed, released or lapses.
 */
export class PlaceOrder {
  constructor(
    private readonly quotes: QuoteRepo,
    private readonly orders: OrderRepo,
    private readonly tariffs: Pick<TariffReader, 'findOperators'>,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'precheck' | 'follow'>,
  ) {}

  /** The reads and the write run in one unit of work (with the request's idempotency claim, if any). */
  execute(principal: AgentPrincipal, input: PlaceOrderRequest): Promise<Order> {
    return this.unitOfWork.run(() => this.place(principal, input));
  }

  private async place(principal: AgentPrincipal, input: PlaceOrderRequest): Promise<Order> {
    const { agentId } = principal;
    const now = this.clock.now();
    let order: Order;
    try {
      order = await this.prepare(principal, input, now);
    } catch (err) {
      // A retry whose first attempt placed the order (even if that instance died before
      // answering) may meet refusals the first did not (its quote expired or booked since, its
      // price no longer covered): the order it placed is its answer. Looked for only then: a
      // retry that passes the checks finds it when its insert meets the key.
      const key = input.idempotencyKey;
      if (!(err instanceof DomainError) || key === undefined) throw err;
      const earlier = await this.orders.findByIdempotencyKey(agentId, key);
      if (earlier === null) throw err;
      return sameQuote(earlier, input.quoteId);
    }
    const placed = await this.orders.place(order);
    // The price is held or paid in the same unit of work: refused, nothing is booked. A replayed
    // idempotency key answers the order it placed, whose money moved with it.
    if (placed.id === order.id) await this.accounts.follow(null, placed, now, `agent:${agentId}`);
    return sameQuote(placed, input.quoteId);
  }

  /** The order the request would place, checked in the contract's order, its price covered; nothing written. */
  private async prepare(principal: AgentPrincipal, input: PlaceOrderRequest, now: Date): Promise<Order> {
    const { agentId } = principal;
    const quote = requireOwned(await this.quotes.findForAgent(agentId, input.quoteId), agentId, 'quote-not-found');
    requireEntitlement(principal, quote.product);
    checkQuoteBookable(quote, principal, now);
    const passengers = input.passengers ?? [];
    const expected = quote.details.passengers;
    if (passengers.length > 0 && passengers.length !== expected) throw passengersMismatch(expected);
    const [operator] = await this.tariffs.findOperators([quote.operator.code]);
    const base: Order = {
      id: this.ids.next('ord'),
      agentId,
      channelCode: quote.channelCode,
      keyId: principal.keyId,
      quoteId: quote.id,
      product: quote.product,
      status: 'ON_HOLD',
      price: quote.price,
      ...(quote.baseFare === undefined ? {} : { baseFare: quote.baseFare }),
      contact:
        input.contact === undefined ? null : { name: input.contact.name, email: input.contact.email, phone: input.contact.phone ?? null },
      passengers: passengers.map((p) => ({ name: p.name })),
      agentReference: input.agentReference ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      details: quote.details,
      seats: quote.seats,
      vehicle: quote.vehicle,
      operatorCode: quote.operator.code,
      // How the operator confirms, as it stands now, stays with the order.
      operatorTerms: {
        confirmation: operator?.confirmation ?? quote.confirmation,
        confirmationWindowMinutes: operator?.confirmationWindowMinutes ?? 120,
      },
      startsAt: quote.startsAt,
      createdAt: now,
      holdExpiresAt: null,
      confirmationDeadline: null,
      confirmedAt: null,
      operatorReference: null,
      rejectionReason: null,
      releaseReason: null,
      cancelledAt: null,
      cancelledBy: null,
      // The terms of the channel the order is booked on, as they stand now, stay with the order.
      terms: {
        freeCancellationHours: principal.channel.freeCancellationHours,
        lateCancellationFeeBps: principal.channel.lateCancellationFeeBps,
      },
      refund: null,
      fee: null,
      livemode: principal.livemode,
    };
    const order =
      input.hold !== undefined
        ? { ...base, holdExpiresAt: grantedHoldExpiry(input.hold.seconds, principal.channel.maxHoldMinutes, now, quote.startsAt) }
        : confirmedOrPending(requireContact(base), now);
    await this.accounts.precheck(order, now);
    return order;
  }
}

/** An order booked now (not held) names its contact. */
const requireContact = (order: Order): Order => {
  if (order.contact === null) {
    throw new DomainError('invalid-request', {
      message: 'An order names its contact; only a hold may send it later, with its confirm.',
      details: { errors: [{ path: 'contact', message: 'is required' }] },
    });
  }
  return order;
};

/** An idempotency key names one booking: reused for another quote, it is refused. */
const sameQuote = (order: Order, quoteId: string): Order => {
  if (order.quoteId !== quoteId) throw keyReused();
  return order;
};
