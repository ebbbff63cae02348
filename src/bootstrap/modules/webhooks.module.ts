import { randomBytes } from 'node:crypto';
import { ContainerModule } from 'inversify';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { DeleteWebhookEndpoint } from '../../application/webhooks/delete-webhook-endpoint.js';
import { GetWebhookEndpoint } from '../../application/webhooks/get-webhook-endpoint.js';
import { ListWebhookDeliveries } from '../../application/webhooks/list-webhook-deliveries.js';
import { ListWebhookEndpoints } from '../../application/webhooks/list-webhook-endpoints.js';
import { RegisterWebhookEndpoint } from '../../application/webhooks/register-webhook-endpoint.js';
import { RetryWebhookDelivery } from '../../application/webhooks/retry-webhook-delivery.js';
import { AesGcmSecretSealer, DeferredSecretSealer } from '../../adapters/crypto/secret-sealer.js';
import { machineOf } from '../../adapters/http/bearer.middleware.js';
import { agentOf } from '../../adapters/http/request-context.js';
import { webhookRoutes, type WebhookUseCases } from '../../adapters/http/webhooks/webhooks.routes.js';
import type { Database } from '../../adapters/knex/database.js';
import { storedWebhookSecretKey } from '../../adapters/knex/webhook-secret-key.knex.js';
import { KnexWebhookStore } from '../../adapters/knex/webhook-store.knex.js';
import type { MemoryWebhookStore } from '../../adapters/memory/webhooks.memory.js';
import { WebhookDeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';
import { DnsWebhookUrlGuard } from '../../adapters/webhooks/url-guard.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

/** A receiver has this long to answer an attempt. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A claim hides a delivery from other instances this long: well past the timeout. */
const LEASE_SECONDS = 60;

/**
 * Webhooks: endpoint routes on both surfaces, the store, the URL guard, the sealer of secrets
 * and the delivery worker that every serving instance runs.
 */
export const webhooksModule = (config: Config, db: Database | null, memory?: MemoryWebhookStore): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const settings = config.webhooks;
    if (db === null) {
      if (memory === undefined) throw new Error('the in-memory composition needs the in-memory webhook store');
      bind(TOKENS.WebhookStore).toConstantValue(memory);
    } else {
      bind(TOKENS.WebhookStore).toConstantValue(new KnexWebhookStore(db.knex));
    }
    bind(TOKENS.WebhookUrlGuard).toConstantValue(
      new DnsWebhookUrlGuard({ allowInsecure: settings.allowInsecure, allowPrivate: settings.allowPrivate }),
    );
    bind(TOKENS.WebhookSealer).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger) => {
        if (settings.secretKey !== null) return new AesGcmSecretSealer(settings.secretKey);
        const sealer = new DeferredSecretSealer();
        lifecycle.onStart(async () => {
          if (db === null) {
            sealer.setKey(randomBytes(32));
          } else {
            sealer.setKey(await storedWebhookSecretKey(db.knex));
            // Said by serving instances; the admin command (no worker) keeps stderr for its own output.
            if (settings.worker)
              log.warn(
                'WEBHOOK_SECRET_KEY is not set: webhook secrets are sealed with a key generated and kept in the database; set it in production',
              );
          }
        });
        return sealer;
      },
      [TOKENS.Lifecycle, TOKENS.Logger],
    );
    bind(TOKENS.WebhookWorker).toResolvedValue(
      (store, sealer, guard, lifecycle: Lifecycle, log: Logger) => {
        const worker = new WebhookDeliveryWorker(
          store,
          sealer,
          guard,
          {
            schedule: settings.retrySchedule,
            pollMs: settings.pollMs,
            concurrency: settings.concurrency,
            timeoutMs: DELIVERY_TIMEOUT_MS,
            leaseSeconds: LEASE_SECONDS,
          },
          log,
        );
        if (settings.worker) {
          lifecycle.onStart(async () => worker.start());
          lifecycle.onStop(() => worker.stop());
        }
        return worker;
      },
      [TOKENS.WebhookStore, TOKENS.WebhookSealer, TOKENS.WebhookUrlGuard, TOKENS.Lifecycle, TOKENS.Logger],
    );
    bind(TOKENS.WebhookUseCases).toResolvedValue(
      (store, guard, sealer, random, ids, clock, worker: WebhookDeliveryWorker): WebhookUseCases => ({
        register: new RegisterWebhookEndpoint(store, guard, sealer, random, ids, clock),
        list: new ListWebhookEndpoints(store),
        get: new GetWebhookEndpoint(store),
        remove: new DeleteWebhookEndpoint(store),
        deliveries: new ListWebhookDeliveries(store),
        retry: new RetryWebhookDelivery(store, () => worker.wake()),
      }),
      [TOKENS.WebhookStore, TOKENS.WebhookUrlGuard, TOKENS.WebhookSealer, TOKENS.Random, TOKENS.Ids, TOKENS.Clock, TOKENS.WebhookWorker],
    );
    bind(TOKENS.BookingRouters).toResolvedValue(
      (useCases: WebhookUseCases) =>
        webhookRoutes({ surface: 'agent', ownerOf: (res: Response) => ({ kind: 'agent', id: agentOf(res.locals).agentId }), useCases }),
      [TOKENS.WebhookUseCases],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth, useCases: WebhookUseCases) =>
        webhookRoutes({
          surface: 'tenant',
          auth: auth('machine'),
          ownerOf: (res: Response) => ({ kind: 'tenant', id: machineOf(res.locals).tenantId }),
          useCases,
        }),
      [TOKENS.WalletAuth, TOKENS.WebhookUseCases],
    );
  });
