/**
 * OpenTelemetry traces, configured by the standard `OTEL_*` variables and off unless an OTLP
 * endpoint is set. Started by the entry point before the rest of the service is loaded: the
 * instrumentations patch express, pg, ioredis, pino and node:http as they are first imported.
 * With tracing off nothing of the SDK is loaded.
 */

import { looksLikeSecret, REDACTED, redactSecrets } from '../domain/shared/redaction.js';

/** The `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one. */
export const DEFAULT_SERVICE_NAME = 'partner-booking-wallet';

/** The request id's span attribute; the value is the `X-Request-Id` the service answered. */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

/**
 * The attributes a request's server span takes in place of the instrumentation's own: no query
 * string, and the path and `User-Agent` with any secret in them redacted.
 */
export const incomingSpanAttributes = (request: {
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}): Record<string, string | undefined> => {
  const attributes: Record<string, string | undefined> = { 'url.query': undefined };
  const url = request.url ?? '/';
  if (looksLikeSecret(url)) attributes['url.path'] = redactedPath(url);
  const agent = request.headers['user-agent'];
  if (typeof agent === 'string' && looksLikeSecret(agent)) attributes['user_agent.original'] = redactSecrets(agent);
  return attributes;
};

const redactedPath = (url: string): string => {
  try {
    return redactSecrets(new URL(url, 'http://localhost').pathname);
  } catch {
    return REDACTED;
  }
};

/** What `startTracing` started: flush and stop it before the process exits. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** How long an exit waits for the last spans to reach the collector. */
const FLUSH_ON_EXIT_MS = 2000;

type Env = Readonly<Record<string, string | undefined>>;

/** On when an OTLP traces endpoint is set (and the SDK is not disabled by `OTEL_SDK_DISABLED`). */
export function tracingEnabled(env: Env = process.env): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() || (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  return endpoint !== '' && (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() !== 'true';
}

// The modules the ESM loader hook wraps so the instrumentations can patch them when imported
// from ESM; everything else is loaded untouched. CommonJS requires (pg from knex, router from
// express) are patched by the require hook.
const HOOKED_MODULES = ['express', 'pg', 'ioredis', 'pino', 'http', 'node:http'];

/**
 * Starts tracing when `tracingEnabled()`, else returns null having loaded nothing. Must run
 * before the service's modules are imported.
 */
export async function startTracing(env: Env = process.env): Promise<Tracing | null> {
  if (!tracingEnabled(env)) return null;
  const { register } = await import('node:module');
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: HOOKED_MODULES } });

  const [
    { NodeSDK },
    { HttpInstrumentation },
    { ExpressInstrumentation, ExpressLayerType },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { PinoInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-pino'),
  ]);

  const namesService = (env.OTEL_SERVICE_NAME ?? '').trim() !== '' || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(namesService ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    // Traces only: the service's metrics are served at /metrics and its logs go to stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // One server span per request. The only outgoing HTTP is a webhook attempt, which has
        // its own span; a client span would record the receiver's URL, which may hold a secret.
        disableOutgoingRequestInstrumentation: true,
        // No query string on the span, as in the access log: a caller may put a key in one.
        // A key or token in the path or the User-Agent is redacted as in the logs.
        startIncomingSpanHook: incomingSpanAttributes,
        applyCustomAttributesOnSpan: (span, _request, response) => {
          const id = 'getHeader' in response ? response.getHeader('x-request-id') : undefined;
          if (typeof id === 'string') span.setAttribute(REQUEST_ID_ATTRIBUTE, id);
        },
      }),
      // The route template for the server span, and no span of its own: one per route handler
      // would repeat the server span and double the spans a request exports.
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER],
      }),
      // The statement's text has $n placeholders; its values are never recorded.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // The command's name only: its arguments hold rate-limit keys and counters.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      // trace_id and span_id on every log line written inside a span; no log is exported.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  return {
    // The last spans are sent, but a collector that does not answer cannot hold the exit up.
    shutdown: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FLUSH_ON_EXIT_MS);
        timer.unref();
        sdk.shutdown().then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          () => {
            clearTimeout(timer);
            resolve();
          },
        );
      }),
  };
}
