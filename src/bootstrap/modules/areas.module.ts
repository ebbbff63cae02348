import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { WebhookDeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';
import { keyExpiryJob, lapseJob, retentionJob } from '../background-job.js';
import { RecordOrderLapses } from '../../application/booking/record-order-lapses.js';
import { ExpireAuthorizations } from '../../application/wallet/authorizations.js';
import { SendKeyExpiryNotices } from '../../application/identity/send-key-expiry-notices.js';
import { DEFAULT_RETENTION, PurgeExpired } from '../../application/admin/purge-expired.js';
import type { Config } from '../config.js';
import {
  adminUseCases,
  bookingUseCases,
  catalogueUseCases,
  identityUseCases,
  walletUseCases,
  webhookUseCases,
  type AdminUseCases,
  type BookingUseCases,
  type CatalogueUseCases,
  type IdentityUseCases,
  type WalletUseCases,
  type WebhookUseCases,
  type CoreOptions,
  idempotentWritesOf,
} from '../core.js';
import type { Lifecycle } from '../lifecycle.js';
import type { PortSet } from '../ports.js';
import { TOKENS } from '../tokens.js';
import { TOKEN_PATH } from '../../adapters/oauth-paths.js';

/** A receiver has this long to answer an attempt. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A claim hides a delivery from other instances this long: well past the timeout. */
const LEASE_SECONDS = 60;
/** Records past their retention are looked for this often. */
const PURGE_EVERY_MS = 10 * 60_000;
/** How often the expiry notices are looked for (a notice may come this much after its day starts). */
const KEY_EXPIRY_EVERY_MS = 5 * 60_000;
/** How often lapsed holds and pending orders are recorded (each within a minute of its lapse, §6.2). */
const ORDER_LAPSES_EVERY_MS = 10_000;

/** The public catalogue: search and the shipped demo data. */
export const catalogueModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Catalogue).toResolvedValue((ports: PortSet) => catalogueUseCases(ports), [TOKENS.Ports]);
});

/** The booking flow: trips, quotes, orders and cancellation. */
export const bookingModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Booking).toResolvedValue(
    (ports: PortSet, options: CoreOptions) => bookingUseCases(ports, options),
    [TOKENS.Ports, TOKENS.CoreOptions],
  );
});

/** Agents' keys, wallet tokens and wallet users. */
export const identityModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Identity).toResolvedValue(
    (ports: PortSet, options: CoreOptions) => identityUseCases(ports, options),
    [TOKENS.Ports, TOKENS.CoreOptions],
  );
});

/** Wallet money. */
export const walletModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Wallet).toResolvedValue((ports: PortSet) => walletUseCases(ports), [TOKENS.Ports]);
});

/** Operator commands, sharing the catalogue seed. */
export const adminModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Admin).toResolvedValue(
    (ports: PortSet, catalogue: CatalogueUseCases, options: CoreOptions) => adminUseCases(ports, { catalogue }, options),
    [TOKENS.Ports, TOKENS.Catalogue, TOKENS.CoreOptions],
  );
});

/** Webhook endpoints and deliveries, as their owners and the operator manage them. */
export const webhookUseCasesModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Webhooks).toResolvedValue(
    (ports: PortSet, options: CoreOptions) => webhookUseCases(ports, options),
    [TOKENS.Ports, TOKENS.CoreOptions],
  );
});

/**
 * The service's background work: the webhook delivery worker, the retention purge and the key
 * expiry notices, which every serving instance runs (`WEBHOOK_WORKER=off` leaves them to other
 * instances); and the options the use cases take from the configuration (a retried delivery
 * wakes the worker).
 */
export const serviceModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const settings = config.webhooks;
    bind(TOKENS.WebhookWorker).toResolvedValue(
      (ports: PortSet, lifecycle: Lifecycle, log: Logger) => {
        const worker = new WebhookDeliveryWorker(
          ports.webhooks,
          ports.webhookSealer,
          ports.webhookUrlGuard,
          {
            schedule: settings.retrySchedule,
            pollMs: settings.pollMs,
            concurrency: settings.concurrency,
            timeoutMs: DELIVERY_TIMEOUT_MS,
            leaseSeconds: LEASE_SECONDS,
          },
          log,
        );
        // The instances that send also purge what is past retention (§5.4), off every request.
        const purge = new PurgeExpired(
          ports.webhooks,
          ports.idempotency,
          ports.clock,
          {
            ...DEFAULT_RETENTION,
            webhookRetentionDays: settings.retentionDays,
            securityEventRetentionDays: settings.securityEventRetentionDays,
          },
          ports.securityEvents,
          ports.replayGuard,
        );
        const retention = retentionJob(purge, PURGE_EVERY_MS, log);
        // They also tell agents of keys that expire soon (§5.1), once per key.
        const expiry = keyExpiryJob(
          new SendKeyExpiryNotices(ports.keyExpiryNotices, ports.clock, settings.keyExpiryNoticeDays),
          KEY_EXPIRY_EVERY_MS,
          log,
          () => worker.wake(),
        );
        // And record the holds, pending orders and wallet authorizations that lapsed, with their events.
        const wake = (): void => worker.wake();
        const lapses = lapseJob('orders', new RecordOrderLapses(ports.orders, ports.clock), ORDER_LAPSES_EVERY_MS, log, wake);
        const authorizationLapses = lapseJob(
          'authorizations',
          new ExpireAuthorizations(ports.pendingTransfers, ports.clock),
          ORDER_LAPSES_EVERY_MS,
          log,
          wake,
        );
        if (settings.worker) {
          lifecycle.onStart(async () => {
            worker.start();
            retention.start();
            expiry.start();
            lapses.start();
            authorizationLapses.start();
          });
          lifecycle.onStop(async () => {
            await authorizationLapses.stop();
            await lapses.stop();
            await expiry.stop();
            await retention.stop();
            await worker.stop();
          });
        }
        return worker;
      },
      [TOKENS.Ports, TOKENS.Lifecycle, TOKENS.Logger],
    );
    bind(TOKENS.CoreOptions).toResolvedValue(
      (worker: WebhookDeliveryWorker): CoreOptions => ({
        quoteTtlSeconds: config.quoteTtlSeconds,
        webhookRetentionDays: settings.retentionDays,
        securityEventRetentionDays: settings.securityEventRetentionDays,
        oauth: oauthAudiencesOf(config),
        wakeDeliveries: () => worker.wake(),
      }),
      [TOKENS.WebhookWorker],
    );
  });

/** Every area together: the core as `createCore` returns it. */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Core).toResolvedValue(
    (
      catalogue: CatalogueUseCases,
      booking: BookingUseCases,
      identity: IdentityUseCases,
      wallet: WalletUseCases,
      webhooks: WebhookUseCases,
      admin: AdminUseCases,
      ports: PortSet,
    ) => ({ catalogue, booking, identity, wallet, webhooks, admin, idempotentWrites: idempotentWritesOf(ports) }),
    [TOKENS.Catalogue, TOKENS.Booking, TOKENS.Identity, TOKENS.Wallet, TOKENS.Webhooks, TOKENS.Admin, TOKENS.Ports],
  );
});

/**
 * The modules that bind the use cases on `TOKENS.Ports` and `TOKENS.CoreOptions`: what the
 * service, the admin command line and `createCore` compose the core from.
 */
export const useCaseModules: readonly ContainerModule[] = [
  catalogueModule,
  bookingModule,
  identityModule,
  walletModule,
  webhookUseCasesModule,
  adminModule,
  coreModule,
];

/** The issuer and the token endpoint's URL, as the OAuth metadata publishes them, and the tokens' audience. */
export const oauthAudiencesOf = (
  config: Pick<Config, 'issuer' | 'walletBasePath' | 'tokenAudience'>,
): { issuer: string; tokenEndpoint: string; tokenAudience: string } => ({
  issuer: config.issuer,
  tokenEndpoint: `${config.issuer.replace(/\/+$/, '')}${config.walletBasePath}${TOKEN_PATH}`,
  tokenAudience: config.tokenAudience,
});
