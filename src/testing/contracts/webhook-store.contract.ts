import { expect } from 'chai';
import { orderRecord } from '../fixtures.js';
import { randomBytes } from 'node:crypto';
import type { StoredWebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import { type DomainEvent, type EventOwner, type EventType, orderChanged, walletUserCreated } from '../../domain/webhooks/events.js';
import type { ClaimedDelivery, FeedEvent, WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import type { EventLog } from '../../domain/webhooks/event-log.port.js';

/** A store and the outbox write of the same adapter. */
export interface WebhookStoreSubject {
  readonly store: WebhookStore;
  record(events: readonly DomainEvent[]): Promise<void>;
  /** The outbox's read side of the same adapter; without it the event log cases are skipped. */
  readonly log?: EventLog;
  /**
   * Waits until every write begun before the call has ended (the feed serves an event once no
   * transaction that could precede it is open: on a shared server, other sessions' transactions
   * count too). Absent: nothing to wait for.
   */
  settle?(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex').toUpperCase()}`;

const endpoint = (owner: EventOwner, events: StoredWebhookEndpoint['events'], at = new Date()): StoredWebhookEndpoint => ({
  id: id('whe'),
  owner,
  url: 'https://hooks.example/in',
  events,
  description: null,
  status: 'active',
  createdAt: at,
  sealedSecret: 'v1.sealed',
});

const order = orderRecord;
/** A `wallet_user.created` event of a new user of `tenantId`. */
const userCreated = (tenantId: string) =>
  walletUserCreated({ id: id('usr'), tenantId, externalUserRef: 'r', email: null, passwordHash: null, createdAt: new Date() });

type EventOwnerTypes = readonly EventType[] | null;

/** The WebhookStore port's contract, run over each adapter. */
export function webhookStoreContract(
  name: string,
  make: () => Promise<WebhookStoreSubject>,
  options: { concurrent: () => Promise<boolean> },
): void {
  describe(`webhook store contract: ${name}`, () => {
    let s: WebhookStoreSubject;
    beforeEach(async () => {
      s = await make();
    });
    /** Claims due deliveries, keeping only those of these endpoints (a shared database may hold others). */
    const claimOf = async (leaseSeconds = 60): Promise<ClaimedDelivery[]> =>
      (await s.store.claimDue(100, leaseSeconds)).filter((c) => ours.has(c.id));
    const ours = new Set<string>();
    const register = async (owner: EventOwner, events: StoredWebhookEndpoint['events']) => {
      return (await s.store.createEndpoint(endpoint(owner, events), 10))!;
    };
    const remember = async (owner: EventOwner, endpointId: string) => {
      for (const d of (await s.store.listDeliveries(owner, endpointId, null, 100))!) ours.add(d.id);
    };

    it('when an event is recorded, then one pending delivery per subscribed endpoint of its owner, and none elsewhere', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const other: EventOwner = { kind: 'agent', id: id('agt') };
      const subscribed = await register(agent, ['order.confirmed']);
      const notThisType = await register(agent, ['order.cancelled']);
      const othersEndpoint = await register(other, ['order.confirmed']);
      await s.record([orderChanged(order(agent.id), null, new Date())]);
      const [d] = (await s.store.listDeliveries(agent, subscribed.id, null, 10))!;
      expect(d).to.include({ status: 'pending', attempts: 0, type: 'order.confirmed', lastStatusCode: null });
      expect(d!.eventId).to.match(/^evt_/);
      expect(await s.store.listDeliveries(agent, notThisType.id, null, 10)).to.deep.equal([]);
      expect(await s.store.listDeliveries(other, othersEndpoint.id, null, 10)).to.deep.equal([]);
    });

    it('when another owner names an endpoint or delivery, then not found, and nothing changes', async () => {
      const tenant: EventOwner = { kind: 'tenant', id: id('tnt') };
      const stranger: EventOwner = { kind: 'tenant', id: id('tnt') };
      const ep = await register(tenant, ['wallet_user.created']);
      await s.record([userCreated(tenant.id)]);
      const [d] = (await s.store.listDeliveries(tenant, ep.id, null, 10))!;
      expect(await s.store.findEndpoint(stranger, ep.id)).to.equal(null);
      expect(await s.store.listDeliveries(stranger, ep.id, null, 10)).to.equal(null);
      expect(await s.store.retryNow(stranger, ep.id, d!.id)).to.equal(null);
      expect(await s.store.deleteEndpoint(stranger, ep.id)).to.equal(false);
      expect(await s.store.findEndpoint(tenant, ep.id)).to.not.equal(null);
      // The agent with the same id as a tenant is another owner too.
      expect(await s.store.findEndpoint({ kind: 'agent', id: tenant.id }, ep.id)).to.equal(null);
    });

    it('when an owner is at the limit, then createEndpoint returns null', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      expect(await s.store.createEndpoint(endpoint(agent, ['order.confirmed']), 1)).to.not.equal(null);
      expect(await s.store.createEndpoint(endpoint(agent, ['order.confirmed']), 1)).to.equal(null);
    });

    it('when a delivery is claimed, then no other claim gets it during the lease; after the lease it is claimed again and the stale outcome is ignored', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      await s.record([orderChanged(order(agent.id), null, new Date())]);
      await remember(agent, ep.id);
      const [first] = await claimOf(1);
      expect(first).to.include({ attempt: 1, type: 'order.confirmed', url: 'https://hooks.example/in', sealedSecret: 'v1.sealed' });
      expect(JSON.parse(first!.body).type).to.equal('order.confirmed');
      expect(await claimOf(1)).to.deep.equal([]);
      await new Promise((r) => setTimeout(r, 1_200));
      const [second] = await claimOf(60);
      expect(second).to.include({ id: first!.id, attempt: 2, eventId: first!.eventId, body: first!.body });
      await s.store.finish(first!, { delivered: true, statusCode: 200, retryInSeconds: null });
      expect((await s.store.listDeliveries(agent, ep.id, null, 10))![0]).to.include({ status: 'pending', attempts: 2 });
      await s.store.finish(second!, { delivered: false, statusCode: 500, retryInSeconds: null });
      const [failed] = (await s.store.listDeliveries(agent, ep.id, null, 10))!;
      expect(failed).to.include({ status: 'failed', attempts: 2, lastStatusCode: 500, nextAttemptAt: null });
      const retried = await s.store.retryNow(agent, ep.id, failed!.id);
      expect(retried).to.include({ status: 'pending' });
      const [third] = await claimOf();
      expect(third).to.include({ attempt: 3, eventId: first!.eventId });
      await s.store.finish(third!, { delivered: false, statusCode: 503, retryInSeconds: 3600 });
      const [later] = (await s.store.listDeliveries(agent, ep.id, null, 10))!;
      expect(later!.status).to.equal('pending');
      expect(later!.nextAttemptAt!.getTime()).to.be.greaterThan(Date.now() + 3_500_000);
      expect(await claimOf()).to.deep.equal([]);
    });

    it('when an endpoint is deleted, then its deliveries are not claimed', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      await s.record([orderChanged(order(agent.id), null, new Date())]);
      await remember(agent, ep.id);
      expect(await s.store.deleteEndpoint(agent, ep.id)).to.equal(true);
      expect(await claimOf()).to.deep.equal([]);
    });

    it('when many claimers run at once, then every due delivery is claimed exactly once', async function () {
      if (!(await options.concurrent())) this.skip(); // needs a server that runs claims concurrently
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      await s.record(Array.from({ length: 30 }, () => orderChanged(order(agent.id), null, new Date())));
      await remember(agent, ep.id);
      const claims = (await Promise.all(Array.from({ length: 8 }, () => s.store.claimDue(5, 60)))).flat().filter((c) => ours.has(c.id));
      const rest = (await s.store.claimDue(100, 60)).filter((c) => ours.has(c.id));
      const ids = [...claims, ...rest].map((c) => c.id);
      expect(ids).to.have.length(30);
      expect(new Set(ids).size).to.equal(30);
    });
    describe('event log', () => {
      let log: EventLog;
      beforeEach(function () {
        if (s.log === undefined) this.skip();
        log = s.log;
      });

      it('when events are recorded, then the log lists those an endpoint of their owner subscribes to, oldest first, with their bodies', async () => {
        const agent: EventOwner = { kind: 'agent', id: id('agt') };
        const stranger: EventOwner = { kind: 'agent', id: id('agt') };
        await register(agent, ['order.confirmed']);
        await register(stranger, ['order.confirmed']);
        const first = { ...order(agent.id), createdAt: new Date('2026-03-01T00:00:00.000Z') };
        const second = { ...order(agent.id), createdAt: new Date('2026-03-01T00:00:01.000Z') };
        await s.record([
          orderChanged(second, null, second.createdAt),
          orderChanged(first, null, first.createdAt),
          orderChanged({ ...first, status: 'CANCELLED' }, 'CONFIRMED', first.cancelledAt ?? first.createdAt),
        ]);
        const listed = await log.eventsFor(agent);
        expect(listed.map((e) => [e.type, (JSON.parse(e.body) as { data: { id: string } }).data.id])).to.deep.equal([
          ['order.confirmed', first.id],
          ['order.confirmed', second.id],
        ]);
        expect(listed[0]).to.deep.include({ owner: agent, occurredAt: first.createdAt });
        expect(listed[0]!.id).to.match(/^evt_/);
        const [d] = (await s.store.listDeliveries(agent, (await s.store.listEndpoints(agent, null, 1))[0]!.id, null, 10))!;
        expect(listed.map((e) => e.id)).to.include(d!.eventId);
        expect(await log.eventsFor(stranger)).to.deep.equal([]);
        expect(await log.eventsFor({ kind: 'tenant', id: agent.id })).to.deep.equal([]);
      });

      it('when the only endpoint that received an event is deleted, then the log no longer lists it', async () => {
        const agent: EventOwner = { kind: 'agent', id: id('agt') };
        const ep = await register(agent, ['order.confirmed']);
        await s.record([orderChanged(order(agent.id), null, new Date())]);
        expect(await log.eventsFor(agent)).to.have.length(1);
        await s.store.deleteEndpoint(agent, ep.id);
        expect(await log.eventsFor(agent)).to.deep.equal([]);
      });
    });
  });

  describe(`webhook store contract: ${name}: event feed`, () => {
    let s: WebhookStoreSubject;
    beforeEach(async () => {
      s = await make();
    });
    const settled = async () => s.settle?.();
    const register = async (owner: EventOwner, events: StoredWebhookEndpoint['events']) =>
      (await s.store.createEndpoint(endpoint(owner, events), 10))!;
    /** Every event of the owner's feed, paging `limit` at a time with the last id got. */
    const pagedAll = async (owner: EventOwner, limit: number, types: EventOwnerTypes = null): Promise<string[]> => {
      const seen: string[] = [];
      let after: string | null = null;
      for (let i = 0; i < 1000; i++) {
        const page: FeedEvent[] = (await s.store.feed(owner, after, types, limit))!;
        seen.push(...page.map((e) => e.id));
        if (page.length < limit) return seen;
        after = page[page.length - 1]!.id;
      }
      throw new Error('the feed did not end');
    };
    const dataIdOf = (body: string) => (JSON.parse(body) as { data: { id: string } }).data.id;

    it('when events are recorded, then the feed lists every one of the owner, subscribed to or not, in the order recorded, with the deliveries’ ids and bodies', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.cancelled']);
      const first = order(agent.id);
      const second = order(agent.id);
      await s.record([orderChanged(first, null, new Date())]);
      await s.record([orderChanged(second, null, new Date()), orderChanged({ ...second, status: 'CANCELLED' }, 'CONFIRMED', new Date())]);
      await settled();
      const feed = (await s.store.feed(agent, null, null, 10))!;
      expect(feed.map((e) => [e.type, dataIdOf(e.body)])).to.deep.equal([
        ['order.confirmed', first.id],
        ['order.confirmed', second.id],
        ['order.cancelled', second.id],
      ]);
      const [d] = (await s.store.listDeliveries(agent, ep.id, null, 10))!;
      expect(d!.eventId).to.equal(feed[2]!.id);
      const [claim] = (await s.store.claimDue(100, 60)).filter((c) => c.id === d!.id);
      expect(claim!.body).to.equal(feed[2]!.body);
    });

    it('when another owner reads, or names an event of another owner as after, then it sees none of them', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const stranger: EventOwner = { kind: 'agent', id: id('agt') };
      await s.record([orderChanged(order(agent.id), null, new Date()), orderChanged(order(stranger.id), null, new Date())]);
      await settled();
      const [mine] = (await s.store.feed(agent, null, null, 10))!;
      const [theirs] = (await s.store.feed(stranger, null, null, 10))!;
      expect(mine!.id).to.not.equal(theirs!.id);
      expect(await s.store.feed(stranger, mine!.id, null, 10)).to.equal(null);
      expect(await s.store.feed({ kind: 'tenant', id: agent.id }, null, null, 10)).to.deep.equal([]);
      expect(await s.store.feed(agent, 'evt_NOSUCHEVENT', null, 10)).to.equal(null);
    });

    it('when the feed is paged with the last id got, then every event comes once, in order, and a type filter keeps only its type', async () => {
      const tenant: EventOwner = { kind: 'tenant', id: id('tnt') };
      const recorded: DomainEvent[] = Array.from({ length: 7 }, () => userCreated(tenant.id));
      for (const e of recorded) await s.record([e]);
      await settled();
      const all = (await s.store.feed(tenant, null, null, 100))!.map((e) => e.id);
      expect(all).to.have.length(7);
      for (const limit of [1, 2, 3, 7, 8]) expect(await pagedAll(tenant, limit), `pages of ${limit}`).to.deep.equal(all);
      expect(await s.store.feed(tenant, all[6]!, null, 10)).to.deep.equal([]);
      expect((await s.store.feed(tenant, all[2]!, null, 2))!.map((e) => e.id)).to.deep.equal(all.slice(3, 5));
      expect(await s.store.feed(tenant, null, ['transaction.created'], 10)).to.deep.equal([]);
      expect(await pagedAll(tenant, 3, ['wallet_user.created'])).to.deep.equal(all);
    });

    it('when a test delivery is queued, then it is due to the endpoint with its body, listed with its deliveries, and never in the feed', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      const event = {
        id: id('evt'),
        type: 'order.cancelled' as const,
        body: '{"type":"order.cancelled","test":true}',
        createdAt: new Date(),
      };
      expect(await s.store.queueTestDelivery({ kind: 'agent', id: id('agt') }, ep.id, event)).to.equal(null);
      const delivery = await s.store.queueTestDelivery(agent, ep.id, event);
      expect(delivery).to.include({ eventId: event.id, type: 'order.cancelled', status: 'pending', attempts: 0, endpointId: ep.id });
      expect((await s.store.listDeliveries(agent, ep.id, null, 10))!.map((d) => d.id)).to.deep.equal([delivery!.id]);
      const [claim] = (await s.store.claimDue(1000, 60)).filter((c) => c.id === delivery!.id);
      expect(claim).to.include({ eventId: event.id, body: event.body, sealedSecret: 'v1.sealed', attempt: 1 });
      await settled();
      expect(await s.store.feed(agent, null, null, 10)).to.deep.equal([]);
      expect(await s.store.feed(agent, event.id, null, 10)).to.equal(null);
    });

    it('when the purge passes events nobody subscribed to, then they leave the feed; those with deliveries held stay', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      await s.record([orderChanged(order(agent.id), null, new Date())]);
      const ep = await register(agent, ['order.confirmed']);
      await s.record([orderChanged(order(agent.id), null, new Date())]);
      await settled();
      const [gone, kept] = (await s.store.feed(agent, null, null, 10))!;
      const cutoff = new Date(Date.now() + 60_000);
      expect((await s.store.countPurgeable(cutoff)).events, 'the unsubscribed event is counted').to.be.at.least(1);
      for (let i = 0; i < 1000; i++) {
        const batch = await s.store.purgeDeliveries(cutoff, 100);
        if (batch.events === 0 && batch.deliveries === 0) break;
      }
      expect((await s.store.feed(agent, null, null, 10))!.map((e) => e.id)).to.deep.equal([kept!.id]);
      expect(await s.store.feed(agent, gone!.id, null, 10)).to.equal(null);
      expect((await s.store.listDeliveries(agent, ep.id, null, 10))!.map((d) => d.eventId)).to.deep.equal([kept!.id]);
    });
  });

  describe(`webhook store contract: ${name}: claims and retention`, () => {
    let s: WebhookStoreSubject;
    beforeEach(async () => {
      s = await make();
    });
    const register = async (owner: EventOwner, events: StoredWebhookEndpoint['events']) =>
      (await s.store.createEndpoint(endpoint(owner, events), 10))!;
    const deliveriesOf = async (owner: EventOwner, endpointId: string) => (await s.store.listDeliveries(owner, endpointId, null, 100))!;
    /** Claims the deliveries of this endpoint (a shared database may hold others due). */
    const claimAll = async (owner: EventOwner, endpointId: string): Promise<ClaimedDelivery[]> => {
      const ids = new Set((await deliveriesOf(owner, endpointId)).map((d) => d.id));
      return (await s.store.claimDue(1000, 60)).filter((c) => ids.has(c.id));
    };

    it('when a delivery is claimed, then the claim names the endpoint’s owner', async () => {
      const tenant: EventOwner = { kind: 'tenant', id: id('tnt') };
      const ep = await register(tenant, ['wallet_user.created']);
      await s.record([userCreated(tenant.id)]);
      const [claim] = await claimAll(tenant, ep.id);
      expect(claim!.owner).to.deep.equal(tenant);
    });

    it('when deliveries are purged, then delivered and failed ones last attempted before the date go, in batches; pending, claimed and later ones stay', async () => {
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      await s.record(Array.from({ length: 7 }, () => orderChanged(order(agent.id), null, new Date())));
      const claims = await claimAll(agent, ep.id);
      expect(claims).to.have.length(7);
      const [d1, d2, d3, f1, f2, p1, held] = claims as [ClaimedDelivery, ...ClaimedDelivery[]] as ClaimedDelivery[];
      for (const c of [d1, d2, d3]) await s.store.finish(c!, { delivered: true, statusCode: 204, retryInSeconds: null });
      for (const c of [f1, f2]) await s.store.finish(c!, { delivered: false, statusCode: 500, retryInSeconds: null });
      await s.store.finish(p1!, { delivered: false, statusCode: 500, retryInSeconds: 3600 });
      // `held` stays claimed (its attempt in flight).
      const statusOf = async () => Object.fromEntries((await deliveriesOf(agent, ep.id)).map((d) => [d.id, d.status]));

      // Nothing was last attempted an hour ago or earlier.
      expect(await s.store.purgeDeliveries(new Date(Date.now() - 3_600_000), 500)).to.deep.include({ deliveries: 0 });
      expect(Object.keys(await statusOf())).to.have.length(7);

      // A shared database may hold other finished deliveries: purge until this endpoint's are gone, in batches of 2.
      const cutoff = new Date(Date.now() + 60_000);
      expect((await s.store.countPurgeable(cutoff)).deliveries, 'counted before: the five finished ones at least').to.be.at.least(5);
      const first = await s.store.purgeDeliveries(cutoff, 2);
      expect(first.deliveries).to.equal(2);
      for (let i = 0; i < 1000 && (await s.store.purgeDeliveries(cutoff, 2)).deliveries > 0; i++);
      expect(await statusOf()).to.deep.equal({ [p1!.id]: 'pending', [held!.id]: 'pending' });
      expect((await s.store.countPurgeable(cutoff)).deliveries, 'none is left to count').to.equal(0);

      // Once the claimed one is finished, it goes too.
      await s.store.finish(held!, { delivered: true, statusCode: 200, retryInSeconds: null });
      for (let i = 0; i < 1000 && (await s.store.purgeDeliveries(cutoff, 100)).deliveries > 0; i++);
      expect(await statusOf()).to.deep.equal({ [p1!.id]: 'pending' });
    });

    it('when instances purge at once, then each delivery is removed once and none is left', async function () {
      if (!(await options.concurrent())) this.skip(); // needs a server that runs statements concurrently
      const agent: EventOwner = { kind: 'agent', id: id('agt') };
      const ep = await register(agent, ['order.confirmed']);
      await s.record(Array.from({ length: 20 }, () => orderChanged(order(agent.id), null, new Date())));
      for (const c of await claimAll(agent, ep.id)) await s.store.finish(c, { delivered: true, statusCode: 200, retryInSeconds: null });
      const cutoff = new Date(Date.now() + 60_000);
      const purge = async () => {
        let n = 0;
        for (;;) {
          const batch = await s.store.purgeDeliveries(cutoff, 3);
          n += batch.deliveries;
          if (batch.deliveries === 0) return n;
        }
      };
      const removed = (await Promise.all(Array.from({ length: 4 }, purge))).reduce((a, b) => a + b, 0);
      expect(removed).to.be.at.least(20);
      expect(await deliveriesOf(agent, ep.id)).to.deep.equal([]);
    });
  });
}
