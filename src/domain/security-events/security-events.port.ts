import type { Page, PageRequest } from '../shared/page.js';
import type { EventOwner } from '../webhooks/events.js';
import type { NewSecurityEvent, SecurityEvent, SecurityEventType } from './security-event.js';

/** Which events to list: one owner's, newest first, optionally filtered. */
export interface SecurityEventQuery {
  readonly owner: EventOwner;
  /** Only these types (empty or absent: every type). */
  readonly types?: readonly SecurityEventType[];
  /** Events at or after this time. */
  readonly since?: Date | null;
  /** Events before this time. */
  readonly until?: Date | null;
  readonly page: PageRequest;
}

/**
 * The security trail: append-only. Stores that change credentials record their events in the
 * transaction of the change (so an event exists exactly when its change committed); this port
 * appends the ones with no stored change of their own (a refusal), reads, and purges.
 */
export interface SecurityEvents {
  /**
   * Records one event. A type of ONCE_PER_MINUTE_TYPES is kept at most once per subject and UTC
   * minute (and `details.reason`, for REASON_APART_TYPES): returns false (and stores nothing) for
   * a repeat.
   */
  append(event: NewSecurityEvent): Promise<boolean>;
  /** One page of the owner's events, newest first (then by id, descending). */
  list(query: SecurityEventQuery): Promise<Page<SecurityEvent>>;
  /** How many events are older than `cutoff`. */
  countBefore(cutoff: Date): Promise<number>;
  /** Removes at most `limit` events older than `cutoff` (the retention purge, the only removal); returns how many. */
  purgeBefore(cutoff: Date, limit: number): Promise<number>;
}
