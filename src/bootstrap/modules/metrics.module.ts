import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { BOOKING_BASE_PATH } from '../../adapters/http/app.js';
import { createMetrics, serveMetrics, type CountedCache } from '../../adapters/http/metrics.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import type { PortSet } from '../ports.js';
import { TOKENS } from '../tokens.js';

const counted = (x: unknown): x is CountedCache => typeof x === 'object' && x !== null && 'counts' in x;

/**
 * Prometheus metrics on a listener of their own (`METRICS_PORT`, on `METRICS_HOST`: loopback by
 * default), never on the public port: requests by route and status with latency, refused
 * credentials by reason, rate-limit refusals, ledger writes, and the hits of the key, token and
 * tenant caches. (No pool gauges: Knex's pool is reachable only through its private client API.)
 */
export const metricsModule = (config: Config, settings: { readonly port: number; readonly host: string }): ContainerModule =>
  new ContainerModule(({ bind, onActivation }) => {
    const metrics = createMetrics([BOOKING_BASE_PATH, config.walletBasePath]);
    bind(TOKENS.Metrics).toConstantValue(metrics);
    bind(TOKENS.BeforeMiddleware).toConstantValue(metrics.requests);
    // Ledger writes are counted on the one ledger of the port set.
    onActivation(TOKENS.Ports, (_ctx, ports: PortSet): PortSet => {
      const ledger = ports.ledger;
      const count =
        <A extends unknown[], R>(kind: string, fn: (...args: A) => Promise<R>) =>
        async (...args: A): Promise<R> => {
          const out = await fn.apply(ledger, args);
          metrics.ledgerWrite(kind);
          return out;
        };
      const countedLedger: Ledger = Object.assign(Object.create(ledger) as Ledger, {
        topUp: count('top-up', ledger.topUp),
        pay: count('payment', ledger.pay),
        transfer: count('transfer', ledger.transfer),
        refund: count('refund', ledger.refund),
      });
      return { ...ports, ledger: countedLedger };
    });
    bind(TOKENS.MetricsServer).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger, ports: PortSet) => {
        // The caches that count their hits (the PostgreSQL set's; nothing is cached in memory).
        const { agentResolver: resolver, tenants, tokenVerifier: verifier } = ports;
        if (counted(resolver)) metrics.watchCache('api-keys', resolver);
        if (counted(tenants)) metrics.watchCache('tenants', tenants);
        if (counted(verifier)) metrics.watchCache('tokens', verifier);
        let server: Awaited<ReturnType<typeof serveMetrics>> | null = null;
        lifecycle.onStart(async () => {
          server = await serveMetrics(metrics.registry, settings.port, settings.host);
          log.info({ metrics: server.url }, 'metrics listening');
        });
        lifecycle.onStop(async () => {
          await server?.close();
        });
        return {
          get url() {
            return server?.url ?? null;
          },
        };
      },
      [TOKENS.Lifecycle, TOKENS.Logger, TOKENS.Ports],
    );
  });
