import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { errorHandler, notFoundHandler } from './errors.js';
import { appRouter, inlineRoutes, installRouteShortcuts } from './express-internals.js';
import type { ResponseObserver } from './metrics.js';
import { requestContext } from './request-context.js';

/** The routers of each surface, as the composition root assembled them. */
export interface HttpSurfaces {
  /** Routes outside any surface: health, JWKS, OpenAPI files, docs. */
  readonly root: readonly Router[];
  /** Booking routes that need no key (the two autocomplete routes). */
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
}

/** Builds the Express application from the surfaces. */
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
  // A router of routes only (the public limiter's) joins the application's own list, see `mount`.
  for (const mw of before) if (!isObserver(mw)) mount(appRouter(app), mw as Router);
  for (const router of surfaces.root) mount(appRouter(app), router);

  // Booking: the public routes first, then the key check for everything else under /api/v1,
  // so an unknown path without a key is 401, not 404.
  const booking = express.Router();
  for (const router of surfaces.bookingPublic) mount(booking, router);
  booking.use(surfaces.bookingAuth);
  for (const mw of surfaces.bookingAuthenticated ?? []) booking.use(mw);
  for (const router of surfaces.booking) mount(booking, router);
  booking.use(notFoundHandler);
  app.use('/api/v1', booking);

  // At the root (the default) the wallet routes join the application's own list; under a
  // prefix they get a router of their own.
  const wallet = surfaces.walletBasePath === '' ? appRouter(app) : express.Router();
  for (const router of surfaces.wallet) mount(wallet, router);
  if (surfaces.walletBasePath !== '' && surfaces.wallet.length > 0) app.use(surfaces.walletBasePath, wallet);

  app.use(notFoundHandler);
  app.use(errorHandler(log));
  installRouteShortcuts(app);
  return app;
}

const isObserver = (mw: RequestHandler): mw is RequestHandler & ResponseObserver =>
  typeof (mw as Partial<ResponseObserver>).observeResponse === 'function';

/**
 * Mounts `router` at the root of `parent`. A router that holds only routes is merged into
 * `parent`: a request then walks one list of routes instead of entering and leaving a router for
 * each group, which was a measurable share of every request's cost. Any other router is mounted
 * as it is.
 */
function mount(parent: Router, router: Router): void {
  if (!inlineRoutes(parent, router)) parent.use(router);
}
