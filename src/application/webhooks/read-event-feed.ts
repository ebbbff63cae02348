import { DomainError } from '../../domain/shared/errors.js';
import { PAGE_LIMITS } from '../../domain/shared/page.js';
import { eventTypesFor, type EventType } from '../../domain/webhooks/events.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { FeedEvent, WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

/** What a caller asks of the feed: the event to start after, the types, the page size. */
export interface EventFeedQuery {
  readonly after?: string | undefined;
  /** Comma-separated on the wire, a list here. */
  readonly types?: readonly string[] | undefined;
  readonly limit?: number | undefined;
}

/** One page of the feed: the events, and the id to ask `after` for the next page (null when none is ready yet). */
export interface EventFeedPage {
  readonly data: readonly FeedEvent[];
  readonly nextCursor: string | null;
}

const invalid = (path: string, message: string, problem: string): DomainError =>
  new DomainError('invalid-request', { message, details: { errors: [{ path, message: problem }] } });

/**
 * The caller's events (an agent's or a tenant's, never another owner's), oldest first, after the
 * event `after`: the events its webhook endpoints get or would get, with the same ids. A page
 * ends where the events ready to serve end; a caller pages on with the last id it got.
 */
export class ReadEventFeed {
  constructor(private readonly store: WebhookStore) {}

  async execute(caller: WebhookCaller, query: EventFeedQuery): Promise<EventFeedPage> {
    const owner = webhookOwnerOf(caller);
    const limit = query.limit ?? PAGE_LIMITS.default;
    if (!Number.isInteger(limit) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
      throw invalid('limit', `limit must be a whole number from ${PAGE_LIMITS.min} to ${PAGE_LIMITS.max}.`, 'out of range');
    }
    const allowed = eventTypesFor(owner.kind);
    const types = [...new Set((query.types ?? []).map((t) => t.trim()).filter((t) => t !== ''))];
    const unknown = types.filter((t) => !(allowed as readonly string[]).includes(t));
    if (unknown.length > 0) {
      throw invalid('type', `Unknown event type ${unknown.join(', ')}.`, `must be among ${allowed.join(', ')}`);
    }
    const after = query.after ?? null;
    const rows = await this.store.feed(owner, after, types.length === 0 ? null : (types as EventType[]), limit + 1);
    if (rows === null) {
      throw invalid(
        'after',
        'after is not an event of this caller’s feed.',
        'unknown, another caller’s, a test event, or older than WEBHOOK_RETENTION_DAYS',
      );
    }
    const data = rows.slice(0, limit);
    return { data, nextCursor: rows.length > limit ? data[data.length - 1]!.id : null };
  }
}
