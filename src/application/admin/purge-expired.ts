import type { PurgeableReplayGuard, ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from '../../domain/shared/idempotency.port.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';

/** How long each kind of record is kept, and how the purge goes about removing them. */
export interface RetentionPolicy {
  /** `WEBHOOK_RETENTION_DAYS`: delivered and failed deliveries, after their last attempt. */
  readonly webhookRetentionDays: number;
  /** `SECURITY_EVENT_RETENTION_DAYS`: security events, after they occurred. */
  readonly securityEventRetentionDays?: number;
  /** Rows per statement: each is a short statement of its own, never a long lock. */
  readonly batch: number;
  /** Statements per kind of record in one run at most; what is left waits for the next run. */
  readonly maxBatches: number;
}

/** What a purge removed (or, in a dry run, would remove now). */
export interface PurgeReport {
  readonly dryRun: boolean;
  readonly webhookDeliveries: number;
  readonly webhookEvents: number;
  readonly idempotencyRecords: number;
  readonly securityEvents: number;
  /** The cut-offs: records older than these are past their retention. */
  readonly webhookCutoff: string;
  readonly idempotencyCutoff: string;
  readonly securityEventCutoff: string;
}

const DAY_MS = 86_400_000;

/** `WEBHOOK_RETENTION_DAYS` unless set. */
export const DEFAULT_WEBHOOK_RETENTION_DAYS = 30;
/** `SECURITY_EVENT_RETENTION_DAYS` unless set. */
export const DEFAULT_SECURITY_EVENT_RETENTION_DAYS = 400;

export const DEFAULT_RETENTION: RetentionPolicy = { webhookRetentionDays: DEFAULT_WEBHOOK_RETENTION_DAYS, batch: 500, maxBatches: 100 };

/**
 * Removes what is past its retention (CONTRACT §5.4): delivered and failed webhook deliveries
 * with the events none is left for, and idempotency records past the 24 hours they answer
 * retries (kept 48), and security events past theirs. In bounded batches, so several instances may run it at once and none holds
 * a lock a payment waits for.
 */
export class PurgeExpired {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly idempotency: IdempotencyStore,
    private readonly clock: Clock,
    private readonly policy: RetentionPolicy,
    private readonly securityEvents: SecurityEvents | null = null,
    /** One-time identifiers: a store that keeps them past their expiry has them removed here. */
    private readonly usedOnce: ReplayGuard | PurgeableReplayGuard | null = null,
  ) {}

  async execute(options: { readonly dryRun: boolean }): Promise<PurgeReport> {
    const now = this.clock.now().getTime();
    const webhookCutoff = new Date(now - this.policy.webhookRetentionDays * DAY_MS);
    const idempotencyCutoff = new Date(now - IDEMPOTENCY_RETENTION_MS);
    const securityEventCutoff = new Date(now - (this.policy.securityEventRetentionDays ?? DEFAULT_SECURITY_EVENT_RETENTION_DAYS) * DAY_MS);
    const cutoffs = {
      webhookCutoff: webhookCutoff.toISOString(),
      idempotencyCutoff: idempotencyCutoff.toISOString(),
      securityEventCutoff: securityEventCutoff.toISOString(),
    };
    if (options.dryRun) {
      const [hooks, idempotencyRecords, securityEvents] = await Promise.all([
        this.webhooks.countPurgeable(webhookCutoff),
        this.idempotency.countBefore(idempotencyCutoff),
        this.securityEvents?.countBefore(securityEventCutoff) ?? 0,
      ]);
      return {
        dryRun: true,
        webhookDeliveries: hooks.deliveries,
        webhookEvents: hooks.events,
        idempotencyRecords,
        securityEvents,
        ...cutoffs,
      };
    }
    const { batch, maxBatches } = this.policy;
    let webhookDeliveries = 0;
    let webhookEvents = 0;
    for (let i = 0; i < maxBatches; i += 1) {
      const removed = await this.webhooks.purgeDeliveries(webhookCutoff, batch);
      webhookDeliveries += removed.deliveries;
      webhookEvents += removed.events;
      if (removed.deliveries < batch && removed.events < batch) break;
    }
    let idempotencyRecords = 0;
    for (let i = 0; i < maxBatches; i += 1) {
      const removed = await this.idempotency.purge(idempotencyCutoff, batch);
      idempotencyRecords += removed;
      if (removed < batch) break;
    }
    let securityEvents = 0;
    for (let i = 0; this.securityEvents !== null && i < maxBatches; i += 1) {
      const removed = await this.securityEvents.purgeBefore(securityEventCutoff, batch);
      securityEvents += removed;
      if (removed < batch) break;
    }
    // Expired one-time identifiers refuse nothing any more (what carried them has expired too);
    // they are only removed, not reported, as they are no record anyone looks up.
    const usedOnce = this.usedOnce;
    if (usedOnce !== null && 'purge' in usedOnce) {
      for (let i = 0; i < maxBatches; i += 1) if ((await usedOnce.purge(new Date(now), batch)) < batch) break;
    }
    return { dryRun: false, webhookDeliveries, webhookEvents, idempotencyRecords, securityEvents, ...cutoffs };
  }
}
