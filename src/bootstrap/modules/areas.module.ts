import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { WebhookDeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';
import { RetentionSchedule } from '../retention-schedule.js';
import { KeyExpirySchedule } from '../key-expiry-schedule.js';
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
  idempotentWritesOf,
} from '../core.js';
import type { Lifecycle } from '../lifecycle.js';
import type { PortSet } from '../ports.js';
import { TOKENS } from '../tokens.js';

/** A receiver has this long to answer an attempt. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A claim hides a delivery from other instances this long: well past the timeout. */
const LEASE_SECONDS = 60;
/** Records past their retention are looked for this often. */
const PURGE_EVERY_MS = 10 * 60_000;
/** How often the expiry notices are looked for (a notice may come this much after its day starts). */
const KEY_EXPIRY_EVERY_MS = 5 * 60_000;

/** The public catalogue: search and the shipped demo data. */
export const catalogueModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Catalogue).toResolvedValue((ports: PortSet) => catalogueUseCases(ports), [TOKENS.Ports]);
});

/** The booking flow: trips, quotes, orders and cancellation. */
export const bookingModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Booking).toResolvedValue(
      (ports: PortSet) => bookingUseCases(ports, { quoteTtlSeconds: config.quoteTtlSeconds }),
      [TOKENS.Ports],
    );
  });

/** Agents' keys, wallet tokens and wallet users. */
export const identityModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Identity).toResolvedValue(
    (ports: PortSet, config: Config) => identityUseCases(ports, { oauth: oauthAudiencesOf(config) }),
    [TOKENS.Ports, TOKENS.Config],
  );
});

/** Wallet money. */
export const walletModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Wallet).toResolvedValue((ports: PortSet) => walletUseCases(ports), [TOKENS.Ports]);
});

/** Operator commands, sharing the catalogue seed. */
export const adminModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Admin).toResolvedValue(
      (ports: PortSet, catalogue: CatalogueUseCases) =>
        adminUseCases(
          ports,
          { catalogue },
          {
            webhookRetentionDays: config.webhooks.retentionDays,
            securityEventRetentionDays: config.webhooks.securityEventRetentionDays,
          },
        ),
      [TOKENS.Ports, TOKENS.Catalogue],
    );
  });

/**
 * Webhooks: the endpoint use cases, and the delivery worker and retention purge that every
 * serving instance runs (`WEBHOOK_WORKER=off` leaves both to other instances). A retried
 * delivery wakes the worker.
 */
export const webhooksModule = (config: Config): ContainerModule =>
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
        const retention = new RetentionSchedule(purge, PURGE_EVERY_MS, log);
        // They also tell agents of keys that expire soon (§5.1), once per key.
        const expiry = new KeyExpirySchedule(
          new SendKeyExpiryNotices(ports.keyExpiryNotices, ports.clock, settings.keyExpiryNoticeDays),
          KEY_EXPIRY_EVERY_MS,
          log,
          () => worker.wake(),
        );
        if (settings.worker) {
          lifecycle.onStart(async () => {
            worker.start();
            retention.start();
            expiry.start();
          });
          lifecycle.onStop(async () => {
            await expiry.stop();
            await retention.stop();
            await worker.stop();
          });
        }
        return worker;
      },
      [TOKENS.Ports, TOKENS.Lifecycle, TOKENS.Logger],
    );
    bind(TOKENS.Webhooks).toResolvedValue(
      (ports: PortSet, worker: WebhookDeliveryWorker) => webhookUseCases(ports, { wakeDeliveries: () => worker.wake() }),
      [TOKENS.Ports, TOKENS.WebhookWorker],
    );
  });

/** Every area together. */
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

/** The issuer and the token endpoint's URL, as the OAuth metadata publishes them. */
export const oauthAudiencesOf = (config: Pick<Config, 'issuer' | 'walletBasePath'>): { issuer: string; tokenEndpoint: string } => ({
  issuer: config.issuer,
  tokenEndpoint: `${config.issuer.replace(/\/+$/, '')}${config.walletBasePath}/oauth/token`,
});
