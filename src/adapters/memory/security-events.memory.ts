import {
  ONCE_PER_MINUTE_TYPES,
  REASON_APART_TYPES,
  minuteBucket,
  type NewSecurityEvent,
  type SecurityEvent,
} from '../../domain/security-events/security-event.js';
import type { SecurityEventQuery, SecurityEvents } from '../../domain/security-events/security-events.port.js';
import { pageOf, type Page } from '../../domain/shared/page.js';
import { nextSecurityEventId } from '../security-event-ids.js';
import { securityEventNotices, type DomainEvent } from '../../domain/webhooks/events.js';

/** The security trail in process memory, with the same rules as PostgreSQL. */
export class MemorySecurityEvents implements SecurityEvents {
  private readonly events: SecurityEvent[] = [];
  /** Where kept events go as webhook events (the memory outbox), once it is wired. */
  private outbox: ((events: DomainEvent[]) => void) | null = null;

  /** Sends every kept event to the owner's endpoints subscribed to its type, in the same step. */
  forwardTo(outbox: (events: DomainEvent[]) => void): void {
    this.outbox = outbox;
  }

  /**
   * Records the events at once, with no await: what the memory stores call in the same step as
   * the change they record. Returns how many were kept (a repeat of a once-a-minute event is not).
   */
  record(events: readonly NewSecurityEvent[]): number {
    let kept = 0;
    for (const e of events) {
      if (ONCE_PER_MINUTE_TYPES.includes(e.type) && this.events.some((s) => sameMinuteRepeat(s, e))) continue;
      const stored = { ...e, id: nextSecurityEventId() };
      this.events.push(stored);
      this.outbox?.(securityEventNotices([stored]));
      kept += 1;
    }
    return kept;
  }

  async append(event: NewSecurityEvent): Promise<boolean> {
    return this.record([event]) === 1;
  }

  async list(query: SecurityEventQuery): Promise<Page<SecurityEvent>> {
    const { owner, types, since, until, page } = query;
    const rows = this.events
      .filter((e) => e.owner.kind === owner.kind && e.owner.id === owner.id)
      .filter((e) => types === undefined || types.length === 0 || types.includes(e.type))
      .filter((e) => (since ?? null) === null || e.occurredAt.getTime() >= since!.getTime())
      .filter((e) => (until ?? null) === null || e.occurredAt.getTime() < until!.getTime())
      .map((e) => ({ e, createdAt: e.occurredAt, id: e.id }))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter(
        (r) =>
          page.after === null ||
          r.createdAt.getTime() < page.after.createdAt.getTime() ||
          (r.createdAt.getTime() === page.after.createdAt.getTime() && r.id < page.after.id),
      )
      .slice(0, page.limit + 1);
    const result = pageOf(rows, page.limit);
    return { data: result.data.map((r) => r.e), nextCursor: result.nextCursor };
  }

  async countBefore(cutoff: Date): Promise<number> {
    return this.events.filter((e) => e.occurredAt.getTime() < cutoff.getTime()).length;
  }

  async purgeBefore(cutoff: Date, limit: number): Promise<number> {
    let removed = 0;
    for (let i = this.events.length - 1; i >= 0 && removed < limit; i -= 1) {
      if (this.events[i]!.occurredAt.getTime() < cutoff.getTime()) {
        this.events.splice(i, 1);
        removed += 1;
      }
    }
    return removed;
  }
}

const sameMinuteRepeat = (stored: SecurityEvent, e: NewSecurityEvent): boolean =>
  stored.type === e.type &&
  stored.subject.kind === e.subject.kind &&
  stored.subject.id === e.subject.id &&
  (!REASON_APART_TYPES.includes(e.type) || String(stored.details['reason'] ?? '') === String(e.details['reason'] ?? '')) &&
  minuteBucket(stored.occurredAt) === minuteBucket(e.occurredAt);
