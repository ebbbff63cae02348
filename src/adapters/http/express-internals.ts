import type { Express, Router } from 'express';
import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * The one place that reads Express 5 internals (not public API): the application's own router
 * behind `app.router`, a router's `stack` of layers and `params` handlers, a layer's `match`,
 * `route` and `handle`, a route's `stack` and `_handlesMethod`, and the application's `handle`
 * with the prototypes it gives requests and responses (the route shortcuts). Everything else
 * goes through these functions, and `test/unit/framework-internals.test.ts` fails when an Express
 * upgrade changes what they rely on.
 */

/** What `inlineRoutes` reads of a router. */
interface RouterInternals {
  stack: Array<{ route?: unknown }>;
  params: Record<string, unknown>;
}

const internalsOf = (router: Router): RouterInternals | null => {
  const r = router as unknown as Partial<RouterInternals>;
  return Array.isArray(r.stack) && typeof r.params === 'object' && r.params !== null ? (r as RouterInternals) : null;
};

/** The application's own router, which Express 5 creates on first use behind `app.router`. */
export const appRouter = (app: Express): Router => {
  const router = (app as unknown as { router?: unknown }).router;
  if (typeof router !== 'function') throw new Error('Express no longer exposes app.router (see src/adapters/http/express-internals.ts)');
  return router as Router;
};

/**
 * Moves the routes of `router` into `parent` when `router` holds only routes (no middleware, no
 * error handler, no `router.param`): it then behaves exactly as its routes written in `parent`.
 * Returns false, and moves nothing, for any other router, or when the layers are not shaped as
 * expected; the caller then mounts it as it is.
 */
export const inlineRoutes = (parent: Router, router: Router): boolean => {
  const inner = internalsOf(router);
  const target = internalsOf(parent);
  if (inner === null || target === null) return false;
  if (Object.keys(inner.params).length > 0 || !inner.stack.every((layer) => layer.route !== undefined)) return false;
  target.stack.push(...inner.stack);
  return true;
};

/** What the shortcuts read of a layer of a router or a route. */
interface LayerInternals {
  handle: (...args: unknown[]) => unknown;
  route?: RouteInternals;
  method?: string;
  match(path: string): false | { params: Record<string, unknown>; path: string };
}

interface RouteInternals {
  path: unknown;
  stack: LayerInternals[];
  _handlesMethod(method: string): boolean;
}

interface RouterLike {
  stack: LayerInternals[];
}

interface AppInternals {
  handle: (req: Record<string, unknown>, res: Record<string, unknown>, callback?: unknown) => void;
  request: object;
  response: object;
}

/** One handler of a compiled chain, with the request's URL as its router sees it. */
interface Step {
  readonly fn: (...args: unknown[]) => unknown;
  /** How many characters of the path its routers' mount points took off (req.url starts after them). */
  readonly trim: number;
  readonly baseUrl: string;
  /** The route the handler belongs to; null for middleware. */
  readonly route: RouteInternals | null;
  /** The routers it sits in, outermost first (for `next('router')`). */
  readonly routers: readonly RouterLike[];
}

const SHORTCUT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const isRouter = (fn: unknown): fn is RouterLike & ((...args: unknown[]) => unknown) =>
  typeof fn === 'function' && Array.isArray((fn as Partial<RouterLike>).stack) && typeof (fn as { handle?: unknown }).handle === 'function';

const layersOk = (stack: unknown): stack is LayerInternals[] =>
  Array.isArray(stack) && stack.every((l: Partial<LayerInternals>) => typeof l.handle === 'function' && typeof l.match === 'function');

/**
 * The handlers Express would run, in order, for `method` on the literal `path`: every matching
 * middleware and every matching route's handlers for the method, through mounted routers. Null
 * when the path cannot be compiled (a matching layer takes parameters, a layer is not shaped as
 * expected) or no route answers the method there.
 */
function compileChain(router: RouterLike, path: string, method: string, trim = 0, baseUrl = '', routers: RouterLike[] = []): Step[] | null {
  if (!layersOk(router.stack)) return null;
  const inside = [...routers, router];
  const steps: Step[] = [];
  const relative = path.slice(trim) || '/';
  for (const layer of router.stack) {
    const match = layer.match(relative);
    if (match === false) continue;
    if (Object.keys(match.params).length > 0) return null;
    const route = layer.route;
    if (route !== undefined) {
      if (!layersOk(route.stack) || typeof route._handlesMethod !== 'function') return null;
      if (!route._handlesMethod(method)) continue;
      const lower = method.toLowerCase();
      for (const inner of route.stack) {
        if (inner.method === undefined || inner.method === lower) steps.push({ fn: inner.handle, trim, baseUrl, route, routers: inside });
      }
    } else if (isRouter(layer.handle) && match.path.length > 0) {
      const nested = compileChain(layer.handle, path, method, trim + match.path.length, baseUrl + match.path, inside);
      if (nested === null) return null;
      steps.push(...nested);
    } else if (isRouter(layer.handle)) {
      const nested = compileChain(layer.handle, path, method, trim, baseUrl, inside);
      if (nested === null) return null;
      steps.push(...nested);
    } else {
      // Middleware mounted on a path sees the rest of the URL, as in a router.
      steps.push({ fn: layer.handle, trim: trim + match.path.length, baseUrl: baseUrl + match.path, route: null, routers: inside });
    }
  }
  return steps;
}

/** The literal paths of the routes in `router` and the routers mounted in it. */
function literalPaths(router: RouterLike, prefix: string, out: Set<string>): void {
  if (!layersOk(router.stack)) return;
  for (const layer of router.stack) {
    if (layer.route !== undefined) {
      const p = layer.route.path;
      if (typeof p === 'string' && /^\/[A-Za-z0-9._~/-]*$/.test(p) && !p.includes('//'))
        out.add(prefix + (p === '/' && prefix !== '' ? '' : p));
    } else if (isRouter(layer.handle)) {
      const mount = (layer as { rawPath?: unknown }).rawPath;
      if (mount === undefined || mount === '/') literalPaths(layer.handle, prefix, out);
      else if (typeof mount === 'string' && /^\/[A-Za-z0-9._~/-]*$/.test(mount)) literalPaths(layer.handle, prefix + mount, out);
    }
  }
}

/** Runs `steps` as Express's routers would: `next(err)` goes on to error handlers, a route with a pending error is skipped. */
function runChain(
  steps: readonly Step[],
  req: Record<string, unknown>,
  res: { headersSent: boolean; statusCode: number; end(): void },
): void {
  const url = req.url as string;
  let idx = 0;
  let current: Step | null = null;
  const next = (err?: unknown): void => {
    const error = err === 'route' || err === 'router' ? undefined : err;
    if (err === 'route' && current !== null && current.route !== null) {
      const route = current.route;
      while (idx < steps.length && steps[idx]!.route === route) idx += 1;
    } else if (err === 'router' && current !== null) {
      const router = current.routers[current.routers.length - 1]!;
      while (idx < steps.length && steps[idx]!.routers.includes(router)) idx += 1;
    }
    while (idx < steps.length) {
      const step = steps[idx++]!;
      const fn = step.fn;
      if (error !== undefined && error !== null) {
        // Routes do not start with a pending error; inside the route that failed, its error handlers run.
        if (step.route !== null && (current === null || step.route !== current.route)) continue;
        if (fn.length !== 4) continue;
      } else if (fn.length > 3) {
        continue;
      }
      current = step;
      if (step.trim === 0) req.url = url;
      else {
        // As a router does: the rest of the URL after the mount point, always with a leading slash.
        const rest = url.slice(step.trim);
        req.url = rest.startsWith('/') ? rest : `/${rest}`;
      }
      req.baseUrl = step.baseUrl;
      if (step.route !== null) req.route = step.route;
      try {
        const ret = error !== undefined && error !== null ? fn(error, req, res, next) : fn(req, res, next);
        if (ret instanceof Promise) ret.then(undefined, (e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
      return;
    }
    // Past the last handler: what Express's final handler does.
    req.url = url;
    req.baseUrl = '';
    if (res.headersSent) {
      (req.socket as { destroy(): void } | undefined)?.destroy();
      return;
    }
    res.statusCode = error !== undefined && error !== null ? 500 : 404;
    res.end();
  };
  req.next = next;
  next();
}

/**
 * Requests for a literal path (`GET /api/v1/agent/account`, `POST /oauth/token`, …) skip the
 * walk of the application's router: the handlers Express would run for each such method and
 * path are worked out once, on the first request, and then called in turn, with the URL, base
 * URL and route each would see. Walking the routers (a regular-expression match for every
 * layer passed on the way, mounted routers entered and left) was the largest single cost of a
 * request that hits the cache. Anything else (parameters in the path, another spelling of the
 * path, HEAD, OPTIONS, the app mounted inside another) goes through Express as before, and so
 * does every request when the routers are not shaped as expected.
 */
export const installRouteShortcuts = (app: Express): void => {
  const internals = app as unknown as AppInternals;
  const original = internals.handle;
  if (typeof original !== 'function') return;
  let table: Map<string, readonly Step[]> | null = null;
  const build = (): Map<string, readonly Step[]> => {
    const map = new Map<string, readonly Step[]>();
    const router = appRouter(app) as unknown as RouterLike;
    const paths = new Set<string>();
    literalPaths(router, '', paths);
    for (const path of paths) {
      for (const method of SHORTCUT_METHODS) {
        const steps = compileChain(router, path, method);
        if (steps !== null && steps.some((s) => s.route !== null)) map.set(`${method} ${path}`, steps);
      }
    }
    return map;
  };
  internals.handle = function handle(this: unknown, req: Record<string, unknown>, res: Record<string, unknown>, callback?: unknown): void {
    if (callback === undefined) {
      table ??= build();
      const url = req.url as string;
      const q = url.indexOf('?');
      const steps = table.get(`${req.method as string} ${q < 0 ? url : url.slice(0, q)}`);
      if (steps !== undefined) {
        req.res = res;
        res.req = req;
        Object.setPrototypeOf(req, internals.request);
        Object.setPrototypeOf(res, internals.response);
        if (res.locals === undefined) res.locals = Object.create(null);
        req.originalUrl ??= url;
        req.baseUrl = '';
        req.params = {};
        runChain(steps, req, res as unknown as Parameters<typeof runChain>[2]);
        return;
      }
    }
    original.call(this, req, res, callback);
  };
};

/**
 * Request and response classes for `http.createServer` whose instances are born with the
 * prototypes Express gives them (`app.request`, `app.response`), so that Express's switch of
 * prototype on every request finds them already in place and does nothing: changing an
 * object's prototype is one of the costlier things a request did.
 */
export const expressServerClasses = (
  app: Express,
): { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse } => {
  const { request, response } = app as unknown as AppInternals;
  function Request(this: http.IncomingMessage, socket: Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  Request.prototype = request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void).call(this, req, options);
  }
  Response.prototype = response;
  return {
    IncomingMessage: Request as unknown as typeof http.IncomingMessage,
    ServerResponse: Response as unknown as typeof http.ServerResponse,
  };
};
