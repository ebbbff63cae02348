import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { Express } from 'express';
import type { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import { loadConfig, type Config } from './config.js';
import { composeHttp } from './container.js';
import { openCore, type ComposedCore, type CompositionOptions } from './core-container.js';
import { InFlightResponses, OpenConnections } from './in-flight-responses.js';
import { writeClientError } from '../adapters/http/client-error.js';
import { expressServerClasses } from '../adapters/http/server-classes.js';
import { TOKENS } from './tokens.js';
import type { PortSet } from './ports.js';

/** A composed service: the core's composition with the HTTP app on top. */
export interface Service extends ComposedCore {
  readonly app: Express;
}

/**
 * Opens the database (unless one is given), applies pending migrations, composes the core and
 * the HTTP app on it, and starts its long-lived parts.
 */
export async function openService(
  config: Config,
  log: Logger,
  options: CompositionOptions & {
    /** Extra modules loaded after the service's own (test and chaos compositions only). */
    extraModules?: readonly ContainerModule[];
  } = {},
): Promise<Service> {
  const { extended: app, ...composed } = await openCore(config, log, options, (container) => composeHttp(container, options.extraModules));
  return { ...composed, app };
}

/**
 * Bounds on slow or idle clients: complete headers within `HTTP_HEADERS_TIMEOUT_MS` (slowloris),
 * the whole request within `HTTP_REQUEST_TIMEOUT_MS`, idle keep-alive connections closed after
 * `HTTP_KEEP_ALIVE_TIMEOUT_MS` (65 s: longer than a load balancer's usual 60 s idle timeout, so
 * the balancer closes first and never sends a request on a connection being closed here). Node
 * counts the headers timeout from a request's first byte, not across the idle time between
 * requests, so it stays short (test/reliability/keep-alive.test.ts). Node checks them every second.
 */
export const serverOptions = (config: Config): http.ServerOptions => ({
  headersTimeout: config.httpTimeouts.headersMs,
  requestTimeout: config.httpTimeouts.requestMs,
  keepAliveTimeout: config.httpTimeouts.keepAliveMs,
  connectionsCheckingInterval: 1_000,
});

/** The URL of the address a server really listens on (`http://0.0.0.0:3000`, `http://[::1]:3000`). */
export const listenUrl = (address: { readonly address: string; readonly port: number }): string =>
  `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;

/** A service listening on a port. */
export interface RunningServer {
  readonly service: Service;
  readonly server: http.Server;
  readonly url: string;
  /** Graceful stop: readiness fails, new connections are refused, in-flight requests finish. */
  stop(): Promise<void>;
}

/**
 * Once the stop begins in earnest: how long new requests are still answered (one read then may
 * have been sent before the signal), and how long a connection must have been quiet (no request
 * in progress, nothing received) before the stop closes it.
 */
const IDLE_GRACE_MS = 250;
/** How often the stop looks for quiet connections. */
const SWEEP_EVERY_MS = 50;
/** How long a connection the stop closed may take to close its side before it is cut. */
const CLOSE_LINGER_MS = 1_000;
/** At most this long (and a quarter of the shutdown budget) the stop keeps taking connections the kernel holds. */
const ACCEPT_DRAIN_MAX_MS = 1_000;

/** Resolves after the event loop has polled for I/O once more (accepted a connection, read sockets). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Listens with timeouts that bound slow or idle clients. `stop()` is the graceful shutdown:
 * readiness fails at once; during `shutdownDrainDelayMs` (default 0) connections are still
 * taken, each response closing its connection, so a load balancer can notice. Then the stop
 * begins in earnest, and every response closes its connection:
 * - The connections the kernel has already completed are taken before the listening socket
 *   closes (closing it resets them, and their requests are sent). Node takes one a turn of its
 *   event loop, and a busy process can have dozens waiting; so the stop takes them until a turn
 *   finds none, for at most `ACCEPT_DRAIN_MAX_MS`. Then new connections are refused.
 * - For `IDLE_GRACE_MS` new requests are answered; after that one arriving on a connection kept
 *   alive is refused 503 `shutting-down` with `Connection: close` and `Retry-After`.
 * - A connection closes once it has been quiet for `IDLE_GRACE_MS` (no request in progress,
 *   nothing received), so a request a client sent on an idle keep-alive connection is answered,
 *   never reset.
 * In-flight requests finish, and once every connection is closed the service closes (change
 * feeds, then the pool). Whatever is still open one second before `shutdownTimeoutSeconds` is
 * cut off so the process can exit in time.
 */
export async function listen(service: Service, config: Config, log: Logger): Promise<RunningServer> {
  const server = http.createServer({ ...serverOptions(config), ...expressServerClasses(service.app) }, service.app);
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => writeClientError(err, socket, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const lifecycle = service.container.get(TOKENS.Lifecycle);
  // Responses being written when the shutdown begins are told to close their connection too, so
  // no client sends another request on a connection that is about to close.
  const inFlight = new InFlightResponses();
  // The open connections, for the shutdown to find the quiet ones.
  const connections = new OpenConnections();
  let accepted = 0;
  // One shared listener, not a closure per request: this runs on every request.
  function forget(this: http.ServerResponse): void {
    inFlight.remove(this);
  }
  function disconnected(this: Socket): void {
    connections.remove(this);
  }
  server.on('connection', (socket: Socket) => {
    accepted += 1;
    connections.add(socket);
    socket.on('close', disconnected);
  });
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.on('close', forget);
  });
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const budgetMs = config.shutdownTimeoutSeconds * 1000;
      const drainBy = Date.now() + Math.max(500, budgetMs - 1000);
      lifecycle.beginShutdown();
      if (config.shutdownDrainDelayMs > 0) {
        // Keep answering (readiness 503) but close each connection after its response.
        const closeAfterResponse = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
          res.shouldKeepAlive = false;
        };
        server.prependListener('request', closeAfterResponse);
        await new Promise((resolve) => setTimeout(resolve, Math.min(config.shutdownDrainDelayMs, budgetMs / 2)));
      }
      // A keep-alive connection that finishes its last request is closed rather than kept.
      server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
        res.shouldKeepAlive = false;
      });
      inFlight.forEach((res) => {
        if (!res.headersSent) res.shouldKeepAlive = false;
      });
      const stopAt = Date.now();
      // Per connection: what it had received when last seen busy or receiving, and since when.
      // Node's own closeIdleConnections() (which http.Server's close() calls) would destroy an
      // idle connection at once, with a request the client already sent on it unread.
      const quiet = new Map<Socket, { bytes: number; since: number }>();
      const closing = new Set<Socket>();
      const sweep = (): void => {
        const now = Date.now();
        const busy = new Set<Socket>();
        inFlight.forEach((res) => {
          if (res.socket !== null) busy.add(res.socket as Socket);
        });
        connections.forEach((socket) => {
          if (closing.has(socket)) return;
          const bytes = socket.bytesRead;
          const seen = quiet.get(socket);
          if (busy.has(socket) || seen === undefined || seen.bytes !== bytes) {
            quiet.set(socket, { bytes, since: now });
          } else if (now - seen.since >= IDLE_GRACE_MS) {
            // Ended, not destroyed, so what was written still arrives; cut if the client never
            // closes its side.
            closing.add(socket);
            socket.end();
            setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
          }
        });
      };
      sweep();
      // Each sweep runs after a poll of the event loop (setImmediate from a timer): bytes that
      // arrived while the process was busy are read, and a request in them seen, before a
      // connection is judged quiet.
      const sweeper = setInterval(() => setImmediate(sweep), SWEEP_EVERY_MS);
      sweeper.unref();
      // Take the connections the kernel holds (one a turn), until a turn finds none.
      const acceptUntil = stopAt + Math.min(ACCEPT_DRAIN_MAX_MS, budgetMs / 4);
      await nextTurn();
      for (let before = -1; before !== accepted && Date.now() < acceptUntil;) {
        before = accepted;
        await nextTurn();
      }
      // The listening socket closes as net.Server closes it: http.Server's close() would also
      // destroy every idle connection at once (the sweep closes them when quiet).
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      // What was received by now is read within the grace and answered; after it, new requests are refused.
      setTimeout(() => lifecycle.refuseRequests(), IDLE_GRACE_MS).unref();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(
          () => {
            log.warn('shutdown timeout: closing remaining connections');
            server.closeAllConnections();
            resolve();
          },
          Math.max(0, drainBy - Date.now()),
        );
        timer.unref();
      });
      await Promise.race([closed, deadline]);
      clearTimeout(timer);
      clearInterval(sweeper);
      await service.close();
    })();
    return stopping;
  };
  return { service, server, url: listenUrl(address), stop };
}

/**
 * The HTTP service on a port set of the caller's (from `createMemoryPorts`, `createPostgresPorts`
 * or adapters of its own): the same routes, authentication, rate limits, idempotency and errors
 * as `npm start`, on a core built from that set. `env` is read like the process environment
 * (`RATE_LIMITS`, `TOKEN_ISSUER`, `WALLET_BASE_PATH`, …); persistence settings in it are ignored.
 * The service starts the set and stops it on `close()`; `app` is an Express application to mount or
 * to serve with `http.createServer(serverOptions, app)`: `serverOptions` builds requests and
 * responses with Express's prototypes already in place, as `npm start` does, which spares every
 * request Express's switch of prototype.
 */
export async function createHttpService(
  portSet: PortSet,
  options: { readonly env?: Readonly<Record<string, string | undefined>>; readonly log?: Logger } = {},
): Promise<Pick<Service, 'app' | 'core' | 'ports' | 'close'> & { readonly serverOptions: http.ServerOptions }> {
  const env: Record<string, string | undefined> = {
    ...options.env,
    PERSISTENCE: 'memory',
    DATABASE_URL: undefined,
    METRICS_PORT: undefined,
  };
  const config = loadConfig(env);
  const log = options.log ?? createLogger(config.logLevel);
  const { app, core, ports, close } = await openService(config, log, { portSet });
  return { app, core, ports, close, serverOptions: expressServerClasses(app) };
}
