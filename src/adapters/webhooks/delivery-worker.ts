import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { DomainError } from '../../domain/shared/errors.js';
import { retryDelayAfter } from '../../domain/webhooks/endpoint.js';
import type { SecretSealer, WebhookUrlGuard } from '../../domain/webhooks/webhook-ports.port.js';
import type { ClaimedDelivery, WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { bodyWithLivemode } from './payloads.js';
import { postSigned } from './sender.js';

// Attempts are traced by hand: no instrumentation knows them. Without a tracer provider (tracing
// off) the spans are no-ops.
const tracer = trace.getTracer('partner-booking-wallet/webhooks');

/** How the worker runs. */
export interface DeliveryWorkerOptions {
  /** Seconds between attempts (`WEBHOOK_RETRY_SCHEDULE`); n delays make n + 1 attempts. */
  readonly schedule: readonly number[];
  /** How often storage is asked for due deliveries when idle. */
  readonly pollMs: number;
  /** Attempts in flight at once in this process. */
  readonly concurrency: number;
  /** An attempt (resolving the host, connecting, the receiver's answer) ends after this (10 s). */
  readonly timeoutMs: number;
  /** How long a claim hides a delivery from other workers; longer than `timeoutMs`. */
  readonly leaseSeconds: number;
}

/**
 * Sends due deliveries from storage, in every instance. Claims are leased in storage, so two
 * instances never send the same attempt at once and a crashed instance's attempt is taken again
 * after its lease. The worker holds no database connection while it waits on a receiver: claim
 * (one statement), send, record the outcome (one statement). It never runs inside a request, so
 * a slow receiver slows nobody's API call.
 */
export class WebhookDeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private polling = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: WebhookStore,
    private readonly sealer: SecretSealer,
    private readonly guard: WebhookUrlGuard,
    private readonly options: DeliveryWorkerOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for due deliveries now (after a retry was asked for). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer !== null) clearTimeout(this.timer);
    // Outside the trace of whichever request woke the worker: each attempt starts its own.
    this.timer = setTimeout(() => void context.with(ROOT_CONTEXT, () => this.poll()), ms);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.timer = null;
    if (this.stopped || this.polling) return;
    this.polling = true;
    let full = false;
    try {
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) {
        const claims = await this.store.claimDue(free, this.options.leaseSeconds);
        full = claims.length === free;
        for (const claim of claims) {
          const attempt: Promise<void> = this.attempt(claim).finally(() => {
            this.inFlight.delete(attempt);
            if (full) this.wake();
          });
          this.inFlight.add(attempt);
        }
      }
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'webhook claim failed; will try again');
    } finally {
      this.polling = false;
      if (this.timer === null) this.schedule(full ? 0 : this.options.pollMs);
    }
  }

  /**
   * One span per attempt, its statements as children. It names the receiver's host, never its
   * URL (whose path or query may hold a secret), and holds nothing of the body or signature.
   */
  private attempt(claim: ClaimedDelivery): Promise<void> {
    const attributes = {
      'webhook.delivery.id': claim.id,
      'webhook.event.id': claim.eventId,
      'webhook.event.type': claim.type,
      'webhook.attempt': claim.attempt,
      'http.request.method': 'POST',
      'server.address': hostOf(claim.url),
    };
    return tracer.startActiveSpan('webhook delivery attempt', { kind: SpanKind.CLIENT, attributes }, (span) =>
      this.send(claim, span).finally(() => span.end()),
    );
  }

  private async send(claim: ClaimedDelivery, span: Span): Promise<void> {
    let status: number | null = null;
    try {
      // One deadline for the whole attempt: the lookup, the connection and the answer.
      const deadline = Date.now() + this.options.timeoutMs;
      const secret = this.sealer.open(claim.sealedSecret);
      const address = await this.guard.check(claim.url, { owner: claim.owner, withinMs: this.options.timeoutMs });
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('the attempt ran out of time before connecting');
      status = await postSigned({
        url: claim.url,
        address,
        id: claim.eventId,
        timestamp: Math.floor(Date.now() / 1000),
        body: bodyWithLivemode(claim.body, claim.livemode),
        secret,
        timeoutMs: left,
      });
    } catch (err) {
      const why = err instanceof DomainError ? err.message : (err as Error).message;
      this.log.warn({ deliveryId: claim.id, eventId: claim.eventId, reason: why }, 'webhook attempt not sent');
    }
    const delivered = status !== null && status >= 200 && status < 300;
    const retryInSeconds = delivered ? null : retryDelayAfter(claim.attempt, this.options.schedule);
    if (status !== null) span.setAttribute('http.response.status_code', status);
    span.setAttribute('webhook.delivered', delivered);
    if (!delivered) {
      span.setAttribute('error.type', status === null ? 'no_response' : String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (!delivered) {
      this.log.info(
        { deliveryId: claim.id, eventId: claim.eventId, attempt: claim.attempt, statusCode: status, retryInSeconds },
        retryInSeconds === null ? 'webhook delivery failed for good' : 'webhook attempt failed; will retry',
      );
    }
    try {
      await this.store.finish(claim, { delivered, statusCode: status, retryInSeconds });
    } catch (err) {
      // The lease runs out and the delivery is claimed again: at least once, never lost.
      this.log.warn({ deliveryId: claim.id, err: { message: (err as Error).message } }, 'webhook outcome not recorded');
    }
  }
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};
