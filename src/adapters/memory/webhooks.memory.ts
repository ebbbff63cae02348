import {
  webhookEndpointCreatedEvent,
  webhookEndpointDeletedEvent,
  type SecurityContext,
} from '../../domain/security-events/security-event.js';
import type { MemorySecurityEvents } from './security-events.memory.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Cursor } from '../../domain/shared/page.js';
import type { StoredWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import type { EventLog, RecordedEvent } from '../../domain/webhooks/event-log.port.js';
import type { DomainEvent, EventOwner, EventType } from '../../domain/webhooks/events.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  FeedEvent,
  PurgedDeliveries,
  TestEvent,
  WebhookStore,
} from '../../domain/webhooks/webhook-store.port.js';
import { outboxRecords, type OutboxRecord } from '../webhooks/payloads.js';

/** Where the in-memory adapters record the events of their changes (synchronously, with the change). */
export interface MemoryOutbox {
  record(events: readonly DomainEvent[]): void;
}

interface Delivery {
  id: string;
  endpointId: string;
  event: OutboxRecord;
  /** A test delivery's sample event (not a change's). */
  test?: true;
  status: WebhookDelivery['status'];
  attempts: number;
  lastStatusCode: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  lease: string | null;
  createdAt: Date;
}

const sameOwner = (a: EventOwner, b: EventOwner): boolean => a.kind === b.kind && a.id === b.id;
/** Newest first, then id descending. */
const newer = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const after = (cursor: Cursor | null) => (x: { createdAt: Date; id: string }) => cursor === null || newer(x, cursor) > 0;

/** Endpoints, the outbox and deliveries in process memory, with the decisions PostgreSQL makes. */
export class MemoryWebhookStore implements WebhookStore, MemoryOutbox, EventLog {
  private readonly endpoints = new Map<string, StoredWebhookEndpoint>();
  private readonly deliveries = new Map<string, Delivery>();
  /** Every recorded event but test ones, in the order recorded: the feed (one process, so no commit can overtake). */
  private readonly feedEvents = new Map<string, OutboxRecord>();

  /** Whether an owner is live, as the stores of agents and tenants say (`modesFrom`); everyone is live until told. */
  private livemodeOf: (owner: EventOwner) => boolean = () => true;

  /** `trail`: the security trail endpoint changes are recorded in (when given a context). */
  constructor(
    private readonly clock: Clock,
    private readonly trail?: MemorySecurityEvents,
  ) {}

  /** Where the owners' modes are read (the stores of agents and tenants are made after this one). */
  modesFrom(livemodeOf: (owner: EventOwner) => boolean): void {
    this.livemodeOf = livemodeOf;
  }

  record(events: readonly DomainEvent[]): void {
    const now = this.clock.now();
    for (const event of outboxRecords(events)) {
      this.feedEvents.set(event.id, event);
      for (const ep of this.endpoints.values()) {
        if (ep.owner.kind !== event.owner_kind || ep.owner.id !== event.owner_id || !ep.events.includes(event.type)) continue;
        const id = `dlv_${randomUUID().replaceAll('-', '')}`;
        this.deliveries.set(id, {
          id,
          endpointId: ep.id,
          event,
          status: 'pending',
          attempts: 0,
          lastStatusCode: null,
          lastAttemptAt: null,
          nextAttemptAt: now,
          lockedUntil: null,
          lease: null,
          createdAt: new Date(event.created_at),
        });
      }
    }
  }

  async createEndpoint(endpoint: StoredWebhookEndpoint, maxPerOwner: number, trail?: SecurityContext): Promise<WebhookEndpoint | null> {
    const count = [...this.endpoints.values()].filter((e) => sameOwner(e.owner, endpoint.owner)).length;
    if (count >= maxPerOwner) return null;
    this.endpoints.set(endpoint.id, endpoint);
    if (trail !== undefined) this.trail?.record([webhookEndpointCreatedEvent(endpoint, trail)]);
    return publicOf(endpoint);
  }

  async findEndpoint(owner: EventOwner, endpointId: string): Promise<WebhookEndpoint | null> {
    const ep = this.endpoints.get(endpointId);
    return ep !== undefined && sameOwner(ep.owner, owner) ? publicOf(ep) : null;
  }

  async listEndpoints(owner: EventOwner, cursor: Cursor | null, limit: number): Promise<WebhookEndpoint[]> {
    return [...this.endpoints.values()]
      .filter((e) => sameOwner(e.owner, owner))
      .filter(after(cursor))
      .sort(newer)
      .slice(0, limit)
      .map(publicOf);
  }

  async deleteEndpoint(
    owner: EventOwner,
    endpointId: string,
    trail?: { readonly context: SecurityContext; readonly at: Date },
  ): Promise<boolean> {
    const ep = this.endpoints.get(endpointId);
    if (ep === undefined || !sameOwner(ep.owner, owner)) return false;
    this.endpoints.delete(endpointId);
    if (trail !== undefined) this.trail?.record([webhookEndpointDeletedEvent(owner, endpointId, trail.context, trail.at)]);
    for (const [id, d] of this.deliveries) if (d.endpointId === endpointId) this.deliveries.delete(id);
    return true;
  }

  async listDeliveries(owner: EventOwner, endpointId: string, cursor: Cursor | null, limit: number): Promise<WebhookDelivery[] | null> {
    if ((await this.findEndpoint(owner, endpointId)) === null) return null;
    return [...this.deliveries.values()]
      .filter((d) => d.endpointId === endpointId)
      .filter(after(cursor))
      .sort(newer)
      .slice(0, limit)
      .map(viewOf);
  }

  async queueTestDelivery(owner: EventOwner, endpointId: string, event: TestEvent): Promise<WebhookDelivery | null> {
    if ((await this.findEndpoint(owner, endpointId)) === null) return null;
    const id = `dlv_${randomUUID().replaceAll('-', '')}`;
    const delivery: Delivery = {
      id,
      endpointId,
      event: {
        id: event.id,
        owner_kind: owner.kind,
        owner_id: owner.id,
        type: event.type,
        body: event.body,
        created_at: event.createdAt.toISOString(),
      },
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastAttemptAt: null,
      nextAttemptAt: this.clock.now(),
      lockedUntil: null,
      lease: null,
      createdAt: event.createdAt,
      test: true,
    };
    this.deliveries.set(id, delivery);
    return viewOf(delivery);
  }

  async feed(owner: EventOwner, after: string | null, types: readonly EventType[] | null, limit: number): Promise<FeedEvent[] | null> {
    const all = [...this.feedEvents.values()].filter((e) => e.owner_kind === owner.kind && e.owner_id === owner.id);
    const start = after === null ? 0 : all.findIndex((e) => e.id === after) + 1;
    if (start === 0 && after !== null) return null;
    return all
      .slice(start)
      .filter((e) => types === null || types.includes(e.type))
      .slice(0, limit)
      .map((e) => ({ id: e.id, type: e.type, body: e.body }));
  }

  async retryNow(owner: EventOwner, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    if ((await this.findEndpoint(owner, endpointId)) === null) return null;
    const d = this.deliveries.get(deliveryId);
    if (d === undefined || d.endpointId !== endpointId) return null;
    d.status = 'pending';
    d.nextAttemptAt = this.clock.now();
    return viewOf(d);
  }

  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now().getTime();
    const due = [...this.deliveries.values()]
      .filter(
        (d) => d.status === 'pending' && d.nextAttemptAt.getTime() <= now && (d.lockedUntil === null || d.lockedUntil.getTime() <= now),
      )
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
      .slice(0, limit);
    return due.map((d) => {
      const ep = this.endpoints.get(d.endpointId)!;
      d.attempts += 1;
      d.lockedUntil = new Date(now + leaseSeconds * 1000);
      d.lease = randomUUID();
      return {
        id: d.id,
        eventId: d.event.id,
        type: d.event.type,
        body: d.event.body,
        url: ep.url,
        owner: ep.owner,
        livemode: this.livemodeOf(ep.owner),
        sealedSecret: ep.sealedSecret,
        attempt: d.attempts,
        lease: d.lease,
      };
    });
  }

  /** The events the deliveries held carry (an event is kept exactly while one of its deliveries is, as on PostgreSQL). */
  async eventsFor(owner: EventOwner): Promise<RecordedEvent[]> {
    const events = new Map<string, OutboxRecord>();
    for (const d of this.deliveries.values()) {
      if (d.test !== true && d.event.owner_kind === owner.kind && d.event.owner_id === owner.id) events.set(d.event.id, d.event);
    }
    return [...events.values()]
      .map((e) => ({
        id: e.id,
        type: e.type,
        owner: { kind: e.owner_kind, id: e.owner_id },
        body: e.body,
        occurredAt: new Date(e.created_at),
      }))
      .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async finish(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const d = this.deliveries.get(claim.id);
    if (d === undefined || d.lease !== claim.lease) return;
    const now = this.clock.now();
    d.lease = null;
    d.lockedUntil = null;
    d.lastStatusCode = outcome.statusCode;
    d.lastAttemptAt = now;
    if (outcome.delivered) d.status = 'delivered';
    else if (outcome.retryInSeconds === null) d.status = 'failed';
    else d.nextAttemptAt = new Date(now.getTime() + outcome.retryInSeconds * 1000);
  }

  async purgeDeliveries(olderThan: Date, batch: number): Promise<PurgedDeliveries> {
    let deliveries = 0;
    for (const [id, d] of this.deliveries) {
      if (deliveries >= batch) break;
      if (d.status === 'pending' || d.lease !== null || d.lastAttemptAt === null || d.lastAttemptAt >= olderThan) continue;
      this.deliveries.delete(id);
      deliveries += 1;
    }
    // The feed's events go once older than `olderThan` with no delivery left, as on PostgreSQL.
    let events = 0;
    for (const id of this.purgeableEvents(olderThan)) {
      if (events >= batch) break;
      this.feedEvents.delete(id);
      events += 1;
    }
    return { deliveries, events };
  }

  /** The feed's events older than `olderThan` that no delivery holds. */
  private purgeableEvents(olderThan: Date, deliveryLeft: (d: Delivery) => boolean = () => true): string[] {
    const held = new Set([...this.deliveries.values()].filter(deliveryLeft).map((d) => d.event.id));
    return [...this.feedEvents.values()].filter((e) => new Date(e.created_at) < olderThan && !held.has(e.id)).map((e) => e.id);
  }

  async countPurgeable(olderThan: Date): Promise<PurgedDeliveries> {
    let deliveries = 0;
    for (const d of this.deliveries.values()) {
      if (d.status !== 'pending' && d.lease === null && d.lastAttemptAt !== null && d.lastAttemptAt < olderThan) deliveries += 1;
    }
    const events = this.purgeableEvents(
      olderThan,
      (d) => !(d.status !== 'pending' && d.lastAttemptAt !== null && d.lastAttemptAt < olderThan),
    ).length;
    return { deliveries, events };
  }
}

const publicOf = (e: StoredWebhookEndpoint): WebhookEndpoint => ({
  id: e.id,
  owner: e.owner,
  url: e.url,
  events: e.events,
  description: e.description,
  status: e.status,
  createdAt: e.createdAt,
});

const viewOf = (d: Delivery): WebhookDelivery => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.event.id,
  type: d.event.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastAttemptAt: d.lastAttemptAt,
  nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
  createdAt: d.createdAt,
});
