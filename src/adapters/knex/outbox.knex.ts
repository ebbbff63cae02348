import type { Knex } from 'knex';
import type { DomainEvent } from '../../domain/webhooks/events.js';
import { outboxRecords } from '../webhooks/payloads.js';
import { rows } from './sql.js';

/**
 * The outbox's one write: records the events in the transaction `db` is (or as a statement of
 * its own), so they commit or roll back with the change they report. Every adapter write that
 * produces events calls this (or passes `eventsJson` to a statement that calls
 * `pbw_webhook_record` itself); deliveries are queued by the same call.
 */
export async function recordEvents(db: Knex | Knex.Transaction, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await rows(db, 'SELECT pbw_webhook_record($1::jsonb) AS queued', [eventsJson(events)], 'webhooks.record');
}

/** The events as the JSON argument of `pbw_webhook_record`. */
export const eventsJson = (events: readonly DomainEvent[]): string => JSON.stringify(outboxRecords(events));
