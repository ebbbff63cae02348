import type { Knex } from 'knex';
import type { NewSecurityEvent, SecurityActor, SecurityEvent, SecurityEventType } from '../../domain/security-events/security-event.js';
import type { SecurityEventQuery, SecurityEvents } from '../../domain/security-events/security-events.port.js';
import { pageOf, type Page } from '../../domain/shared/page.js';
import { nextSecurityEventId } from '../security-event-ids.js';
import { rows } from './sql.js';
import { recordEvents } from './outbox.knex.js';
import { securityEventNotices } from '../../domain/webhooks/events.js';
import { KnexStore } from './knex-store.js';

interface SecurityEventRow {
  id: string;
  owner_kind: 'agent' | 'tenant';
  owner_id: string;
  type: SecurityEventType;
  occurred_at: Date;
  actor: SecurityActor;
  subject_kind: string;
  subject_id: string;
  ip: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

/**
 * The trail's one write: records the events in the transaction `db` is (or as a statement of its
 * own), so they commit or roll back with the change they record. A repeat of a once-a-minute
 * event meets the unique index and is skipped. Returns how many were kept.
 */
export async function recordSecurityEvents(db: Knex | Knex.Transaction, events: readonly NewSecurityEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const stored: SecurityEvent[] = events.map((e) => ({ ...e, id: nextSecurityEventId() }));
  const json = JSON.stringify(
    stored.map((e) => ({
      id: e.id,
      owner_kind: e.owner.kind,
      owner_id: e.owner.id,
      type: e.type,
      occurred_at: e.occurredAt.toISOString(),
      actor: e.actor,
      subject_kind: e.subject.kind,
      subject_id: e.subject.id,
      ip: e.ip,
      request_id: e.requestId,
      details: e.details,
    })),
  );
  const inserted = await rows<{ id: string }>(
    db,
    `INSERT INTO security_events (id, owner_kind, owner_id, type, occurred_at, actor, subject_kind, subject_id, ip, request_id, details)
       SELECT id, owner_kind, owner_id, type, occurred_at, actor, subject_kind, subject_id, ip, request_id, details
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, owner_kind text, owner_id text, type text, occurred_at timestamptz,
              actor jsonb, subject_kind text, subject_id text, ip text, request_id text, details jsonb)
     ON CONFLICT DO NOTHING RETURNING id`,
    [json],
    'security_events.record',
  );
  // Each kept event goes to the owner's endpoints subscribed to its type, in the same transaction.
  const kept = new Set(inserted.map((r) => r.id));
  await recordEvents(db, securityEventNotices(stored.filter((e) => kept.has(e.id))));
  return inserted.length;
}

/** The security trail on PostgreSQL (append-only by its trigger). */
export class KnexSecurityEvents extends KnexStore implements SecurityEvents {
  async append(event: NewSecurityEvent): Promise<boolean> {
    return (await recordSecurityEvents(this.knex, [event])) === 1;
  }

  async list(query: SecurityEventQuery): Promise<Page<SecurityEvent>> {
    const { owner, types, since, until, page } = query;
    const q = this.knex<SecurityEventRow>('security_events').where({ owner_kind: owner.kind, owner_id: owner.id });
    if (types !== undefined && types.length > 0) void q.whereIn('type', [...types]);
    if (since !== undefined && since !== null) void q.where('occurred_at', '>=', since);
    if (until !== undefined && until !== null) void q.where('occurred_at', '<', until);
    if (page.after !== null) {
      void q.whereRaw('(occurred_at, id COLLATE "C") < (?, ? COLLATE "C")', [page.after.createdAt, page.after.id]);
    }
    const found = (await q.orderByRaw('occurred_at DESC, id COLLATE "C" DESC').limit(page.limit + 1)) as SecurityEventRow[];
    const result = pageOf(
      found.map((r) => ({ e: toEvent(r), createdAt: new Date(r.occurred_at), id: r.id })),
      page.limit,
    );
    return { data: result.data.map((r) => r.e), nextCursor: result.nextCursor };
  }

  async countBefore(cutoff: Date): Promise<number> {
    const [row] = await rows<{ n: string }>(this.knex, 'SELECT count(*) AS n FROM security_events WHERE occurred_at < $1', [cutoff]);
    return Number(row?.n ?? 0);
  }

  async purgeBefore(cutoff: Date, limit: number): Promise<number> {
    // The one removal the trigger lets through: the setting lives only as long as this transaction.
    return this.knex.transaction(async (trx) => {
      await trx.raw(`SELECT set_config('pbw.security_event_purge', 'on', true)`);
      const removed = await rows<{ id: string }>(
        trx,
        `DELETE FROM security_events WHERE id IN (
           SELECT id FROM security_events WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [cutoff, limit],
      );
      return removed.length;
    });
  }
}

const toEvent = (r: SecurityEventRow): SecurityEvent => ({
  id: r.id,
  type: r.type,
  owner: { kind: r.owner_kind, id: r.owner_id },
  occurredAt: new Date(r.occurred_at),
  actor: r.actor,
  subject: { kind: r.subject_kind, id: r.subject_id },
  ip: r.ip,
  requestId: r.request_id,
  details: r.details,
});
