import {
  webhookEndpointCreatedEvent,
  webhookEndpointDeletedEvent,
  type SecurityContext,
} from '../../domain/security-events/security-event.js';
import { recordSecurityEvents } from './security-events.knex.js';
import { randomUUID } from 'node:crypto';
import type { Cursor } from '../../domain/shared/page.js';
import type { StoredWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import type { EventLog, RecordedEvent } from '../../domain/webhooks/event-log.port.js';
import type { EventOwner, EventType } from '../../domain/webhooks/events.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  FeedEvent,
  PurgedDeliveries,
  TestEvent,
  WebhookStore,
} from '../../domain/webhooks/webhook-store.port.js';
import { rows } from './sql.js';
import { KnexStore } from './knex-store.js';

interface EndpointRow {
  id: string;
  owner_kind: 'agent' | 'tenant';
  owner_id: string;
  url: string;
  events: string[] | string;
  description: string | null;
  created_at: Date | string;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: EventType;
  status: WebhookDelivery['status'];
  attempts: number;
  last_status_code: number | null;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string;
  created_at: Date | string;
}

const textArray = (v: string[] | string): string[] =>
  Array.isArray(v)
    ? v
    : v
        .replace(/^\{|\}$/g, '')
        .split(',')
        .filter((s) => s !== '');
const date = (v: Date | string): Date => new Date(v);

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  owner: { kind: r.owner_kind, id: r.owner_id },
  url: r.url,
  events: textArray(r.events) as EventType[],
  description: r.description,
  status: 'active',
  createdAt: date(r.created_at),
});

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  type: r.type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastAttemptAt: r.last_attempt_at === null ? null : date(r.last_attempt_at),
  nextAttemptAt: r.status === 'pending' ? date(r.next_attempt_at) : null,
  createdAt: date(r.created_at),
});

const ENDPOINT_COLUMNS = 'id, owner_kind, owner_id, url, events, description, created_at';
const DELIVERY_COLUMNS =
  'd.id, d.endpoint_id, d.event_id, e.type, d.status, d.attempts, d.last_status_code, d.last_attempt_at, d.next_attempt_at, d.created_at';

/**
 * Webhook endpoints and deliveries on PostgreSQL. The deliveries table is the workers' queue:
 * a worker claims due rows with `FOR UPDATE SKIP LOCKED` and leases them (`locked_until`), so
 * two instances never send the same attempt at once and a dead worker's claim expires. Times
 * are the database's clock, the one every instance shares.
 */
export class KnexWebhookStore extends KnexStore implements WebhookStore, EventLog {
  async createEndpoint(endpoint: StoredWebhookEndpoint, maxPerOwner: number, trail?: SecurityContext): Promise<WebhookEndpoint | null> {
    return this.knex.transaction(async (trx) => {
      // Serialises registrations of one owner, so the count below cannot be raced past the limit.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhooks:${endpoint.owner.kind}:${endpoint.owner.id}`]);
      const [{ n }] = (await trx('webhook_endpoints')
        .where({ owner_kind: endpoint.owner.kind, owner_id: endpoint.owner.id })
        .count('* as n')) as Array<{ n: number | string }> as [{ n: number | string }];
      if (Number(n) >= maxPerOwner) return null;
      const [row] = (await trx('webhook_endpoints')
        .insert({
          id: endpoint.id,
          owner_kind: endpoint.owner.kind,
          owner_id: endpoint.owner.id,
          url: endpoint.url,
          events: [...endpoint.events],
          description: endpoint.description,
          sealed_secret: endpoint.sealedSecret,
          created_at: endpoint.createdAt,
        })
        .returning(ENDPOINT_COLUMNS.split(', '))) as EndpointRow[];
      if (trail !== undefined) await recordSecurityEvents(trx, [webhookEndpointCreatedEvent(endpoint, trail)]);
      return toEndpoint(row!);
    });
  }

  async findEndpoint(owner: EventOwner, endpointId: string): Promise<WebhookEndpoint | null> {
    const row = (await this.knex('webhook_endpoints')
      .select(ENDPOINT_COLUMNS.split(', '))
      .where({ id: endpointId, owner_kind: owner.kind, owner_id: owner.id })
      .first()) as EndpointRow | undefined;
    return row === undefined ? null : toEndpoint(row);
  }

  async listEndpoints(owner: EventOwner, after: Cursor | null, limit: number): Promise<WebhookEndpoint[]> {
    const q = this.knex('webhook_endpoints').select(ENDPOINT_COLUMNS.split(', ')).where({ owner_kind: owner.kind, owner_id: owner.id });
    if (after !== null) q.andWhereRaw('(created_at, id) < (?, ?)', [after.createdAt, after.id]);
    return ((await q.orderByRaw('created_at DESC, id DESC').limit(limit)) as EndpointRow[]).map(toEndpoint);
  }

  async deleteEndpoint(
    owner: EventOwner,
    endpointId: string,
    trail?: { readonly context: SecurityContext; readonly at: Date },
  ): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      // RETURNING, not the affected-row count, which the PGlite driver does not report.
      const gone = await trx('webhook_endpoints')
        .where({ id: endpointId, owner_kind: owner.kind, owner_id: owner.id })
        .delete()
        .returning('id');
      if (gone.length > 0 && trail !== undefined) {
        await recordSecurityEvents(trx, [webhookEndpointDeletedEvent(owner, endpointId, trail.context, trail.at)]);
      }
      return gone.length > 0;
    });
  }

  async listDeliveries(owner: EventOwner, endpointId: string, after: Cursor | null, limit: number): Promise<WebhookDelivery[] | null> {
    if ((await this.findEndpoint(owner, endpointId)) === null) return null;
    const result = await this.knex.raw(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE d.endpoint_id = ?${after === null ? '' : ' AND (d.created_at, d.id) < (?, ?)'}
       ORDER BY d.created_at DESC, d.id DESC LIMIT ?`,
      after === null ? [endpointId, limit] : [endpointId, after.createdAt, after.id, limit],
    );
    return (result.rows as DeliveryRow[]).map(toDelivery);
  }

  async queueTestDelivery(owner: EventOwner, endpointId: string, event: TestEvent): Promise<WebhookDelivery | null> {
    // One statement: the endpoint must be the owner's, the event is stored only with its delivery.
    const result = await this.knex.raw(
      `WITH w AS (SELECT id FROM webhook_endpoints WHERE id = ? AND owner_kind = ? AND owner_id = ?),
       e AS (
         INSERT INTO webhook_events (id, owner_kind, owner_id, type, body, created_at, test)
         SELECT ?, ?, ?, ?, ?, ?, true FROM w
         RETURNING id, type),
       d AS (
         INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
         SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), w.id, e.id, now(), ? FROM w, e
         RETURNING *)
       SELECT d.id, d.endpoint_id, d.event_id, e.type, d.status, d.attempts, d.last_status_code, d.last_attempt_at,
              d.next_attempt_at, d.created_at
       FROM d JOIN e ON e.id = d.event_id`,
      [endpointId, owner.kind, owner.id, event.id, owner.kind, owner.id, event.type, event.body, event.createdAt, event.createdAt],
    );
    const row = (result.rows as DeliveryRow[])[0];
    return row === undefined ? null : toDelivery(row);
  }

  async feed(owner: EventOwner, after: string | null, types: readonly EventType[] | null, limit: number): Promise<FeedEvent[] | null> {
    let from: { txid: string; seq: string } | undefined;
    if (after !== null) {
      [from] = await rows<{ txid: string; seq: string }>(
        this.knex,
        'SELECT txid::text AS txid, seq::text AS seq FROM webhook_events WHERE id = $1 AND owner_kind = $2 AND owner_id = $3 AND NOT test',
        [after, owner.kind, owner.id],
        'webhooks.feed-position',
      );
      if (from === undefined) return null;
    }
    // Only transactions below the oldest one still running (`xmin` of the statement's own snapshot)
    // are served: all of them have ended, and no transaction yet to commit can take a lower txid.
    // One text per shape, so that even a generic plan keeps `(txid, seq) > …` in the index range.
    const values: unknown[] = [owner.kind, owner.id];
    let where = '';
    if (from !== undefined) {
      values.push(from.txid, from.seq);
      where += ' AND (e.txid, e.seq) > ($3::xid8, $4::bigint)';
    }
    if (types !== null) {
      values.push([...types]);
      where += ` AND e.type = ANY ($${values.length}::text[])`;
    }
    values.push(limit);
    return rows<FeedEvent>(
      this.knex,
      `SELECT e.id, e.type, e.body FROM webhook_events e
       WHERE e.owner_kind = $1 AND e.owner_id = $2 AND NOT e.test
         AND e.txid < (SELECT pg_snapshot_xmin(pg_current_snapshot()))${where}
       ORDER BY e.txid, e.seq
       LIMIT $${values.length}`,
      values,
      `webhooks.feed${from === undefined ? '' : '-after'}${types === null ? '' : '-types'}`,
    );
  }

  async retryNow(owner: EventOwner, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const result = await this.knex.raw(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now()
         WHERE id = ? AND endpoint_id = (SELECT id FROM webhook_endpoints WHERE id = ? AND owner_kind = ? AND owner_id = ?)
         RETURNING *)
       SELECT ${DELIVERY_COLUMNS} FROM d JOIN webhook_events e ON e.id = d.event_id`,
      [deliveryId, endpointId, owner.kind, owner.id],
    );
    const row = (result.rows as DeliveryRow[])[0];
    return row === undefined ? null : toDelivery(row);
  }

  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const lease = randomUUID();
    const claimed = await rows<{
      id: string;
      event_id: string;
      type: EventType;
      body: string;
      url: string;
      owner_kind: EventOwner['kind'];
      owner_id: string;
      livemode: boolean;
      sealed_secret: string;
      attempts: number;
    }>(
      this.knex,
      `UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, locked_until = now() + make_interval(secs => $2), lease = $3
       FROM (SELECT id FROM webhook_deliveries
             WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) due,
            webhook_endpoints w, webhook_events e
       WHERE d.id = due.id AND w.id = d.endpoint_id AND e.id = d.event_id
       RETURNING d.id, d.event_id, e.type, e.body, w.url, w.owner_kind, w.owner_id, w.sealed_secret, d.attempts,
         COALESCE((SELECT a.livemode FROM agents a WHERE w.owner_kind = 'agent' AND a.id = w.owner_id),
                  (SELECT t.livemode FROM tenants t WHERE w.owner_kind = 'tenant' AND t.id = w.owner_id), true) AS livemode`,
      [limit, leaseSeconds, lease],
      'webhooks.claim',
    );
    return claimed.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      type: r.type,
      body: r.body,
      url: r.url,
      owner: { kind: r.owner_kind, id: r.owner_id },
      livemode: r.livemode,
      sealedSecret: r.sealed_secret,
      attempt: r.attempts,
      lease,
    }));
  }

  /** The owner's events that deliveries are still held for (an event whose deliveries all went with their endpoints is not listed; nor a test event). */
  async eventsFor(owner: EventOwner): Promise<RecordedEvent[]> {
    const found = await rows<{ id: string; type: EventType; body: string; created_at: Date | string }>(
      this.knex,
      `SELECT e.id, e.type, e.body, e.created_at FROM webhook_events e
       WHERE e.owner_kind = $1 AND e.owner_id = $2 AND NOT e.test AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
       ORDER BY e.created_at, e.id`,
      [owner.kind, owner.id],
    );
    return found.map((r) => ({
      id: r.id,
      type: r.type,
      owner: { kind: owner.kind, id: owner.id },
      body: r.body,
      occurredAt: date(r.created_at),
    }));
  }

  async finish(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const status = outcome.delivered ? 'delivered' : outcome.retryInSeconds === null ? 'failed' : 'pending';
    await rows(
      this.knex,
      `UPDATE webhook_deliveries
       SET status = $3, last_status_code = $4, last_attempt_at = now(), locked_until = NULL, lease = NULL,
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $5) ELSE next_attempt_at END
       WHERE id = $1 AND lease = $2`,
      [claim.id, claim.lease, status, outcome.statusCode, outcome.retryInSeconds ?? 0],
      'webhooks.finish',
    );
  }

  async purgeDeliveries(olderThan: Date, batch: number): Promise<PurgedDeliveries> {
    // Rows a claimer, a retry or another purging instance holds are skipped, not waited for.
    const deliveries = await rows<{ id: string }>(
      this.knex,
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE status IN ('delivered', 'failed') AND last_attempt_at < $1
         LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [olderThan, batch],
      'webhooks.purge-deliveries',
    );
    // An event gets all its deliveries in the transaction that stores it, and never one later:
    // once none is left (purged, or its endpoint deleted), nothing will ever read it.
    const events = await rows<{ id: string }>(
      this.knex,
      `DELETE FROM webhook_events WHERE id IN (
         SELECT ev.id FROM webhook_events ev
         WHERE ev.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)
         LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [olderThan, batch],
      'webhooks.purge-events',
    );
    return { deliveries: deliveries.length, events: events.length };
  }

  async countPurgeable(olderThan: Date): Promise<PurgedDeliveries> {
    const [row] = await rows<{ deliveries: number; events: number }>(
      this.knex,
      `SELECT
         (SELECT count(*)::int FROM webhook_deliveries
           WHERE status IN ('delivered', 'failed') AND last_attempt_at < $1) AS deliveries,
         (SELECT count(*)::int FROM webhook_events ev
           WHERE ev.created_at < $1 AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries d
             WHERE d.event_id = ev.id AND NOT (d.status IN ('delivered', 'failed') AND d.last_attempt_at < $1))) AS events`,
      [olderThan],
      'webhooks.count-purgeable',
    );
    return { deliveries: row?.deliveries ?? 0, events: row?.events ?? 0 };
  }
}
