import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { errorHandler, notFoundHandler, type ErrorTranslator } from './errors.js';
import type { ResponseObserver } from './metrics.js';
import { requestContext } from './request-context.js';

/** Where the booking API is mounted; its operations' published paths start with it. */
export const BOOKING_BASE_PATH = '/api/v1';

/** Where the operators' API is mounted; its operations' published paths start with it. */
export const OPERATOR_BASE_PATH = '/operator/v1';

/** The routers of each surface, as the composition root assembled them. */
export interface HttpSurfaces {
  /** Routes outside any surface: health, JWKS, OpenAPI files, docs. */
  readonly root: readonly Router[];
  /** Booking routes that need no key (the two autocomplete routes, and the per-IP limiter on them). */
  readonly bookingPublic: readonly Router[];
  /** Authenticates every other booking request before routing. */
  readonly bookingAuth: RequestHandler;
  /** Booking routes behind the key. */
  readonly booking: readonly Router[];
  /** Wallet routes, each with its own token rule, mounted at `walletBasePath`. */
  readonly wallet: readonly Router[];
  readonly walletBasePath: string;
  /** Middleware that runs before everything else (security headers, rate limits). */
  readonly before?: readonly RequestHandler[];
  /** Booking middleware that runs after the key check, before the routers (per-key rate limit). */
  readonly bookingAuthenticated?: readonly RequestHandler[];
  /** Authenticates every operator request (an operator key) before routing. */
  readonly operatorAuth?: RequestHandler;
  /** Operator routes behind the operator key. */
  readonly operator?: readonly Router[];
  /** The persistence adapter's own failures as the domain's errors (the database unreachable, a write it refused). */
  readonly translateError?: ErrorTranslator;
}

/**
 * Builds the Express application from the surfaces. Every request goes through Express's own
 * routers (so its `express.router.request` tracing channel and instrumentation that reads
 * `req.route` see all of them). The surfaces are mounted most frequent first: the booking API
 * (a prefix that other paths skip at one test), then the wallet, then the routes outside any
 * surface (health, JWKS, OpenAPI files, docs); no two of them answer the same path, so the order
 * changes no answer, only how many layers a request passes on its way.
 */
export function createApp(surfaces: HttpSurfaces, log: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // A middleware that only observes finished responses (the request metrics) is told by the
  // access log's listener instead of being mounted.
  const before = surfaces.before ?? [];
  const observers = before.filter(isObserver).map((o) => o.observeResponse);
  app.use(requestContext(log, observers));
  for (const mw of before) if (!isObserver(mw)) app.use(mw);

  // Booking: the public routes first, then the key check for everything else under /api/v1,
  // so an unknown path without a key is 401, not 404.
  const booking = express.Router();
  for (const router of surfaces.bookingPublic) booking.use(router);
  booking.use(surfaces.bookingAuth);
  for (const mw of surfaces.bookingAuthenticated ?? []) booking.use(mw);
  for (const router of surfaces.booking) booking.use(router);
  booking.use(notFoundHandler);
  app.use(BOOKING_BASE_PATH, booking);

  // Operators: their own keys, checked before routing like the booking surface's.
  if (surfaces.operatorAuth !== undefined) {
    const operator = express.Router();
    operator.use(surfaces.operatorAuth);
    for (const mw of surfaces.bookingAuthenticated ?? []) operator.use(mw);
    for (const router of surfaces.operator ?? []) operator.use(router);
    operator.use(notFoundHandler);
    app.use(OPERATOR_BASE_PATH, operator);
  }

  // At the root (the default) the wallet routers are mounted on the application; under a prefix
  // they share a router of their own, which other paths skip at one test.
  if (surfaces.walletBasePath === '') for (const router of surfaces.wallet) app.use(router);
  else if (surfaces.wallet.length > 0) {
    const wallet = express.Router();
    for (const router of surfaces.wallet) wallet.use(router);
    app.use(surfaces.walletBasePath, wallet);
  }
  for (const router of surfaces.root) app.use(router);

  app.use(notFoundHandler);
  app.use(errorHandler(log, surfaces.translateError));
  return app;
}

const isObserver = (mw: RequestHandler): mw is RequestHandler & ResponseObserver =>
  typeof (mw as Partial<ResponseObserver>).observeResponse === 'function';
