import type { Express, Router } from 'express';

/**
 * The one place that reads Express 5 internals (not public API): the application's own router
 * behind `app.router`, and a router's `stack` of layers and `params` handlers. Everything else
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
