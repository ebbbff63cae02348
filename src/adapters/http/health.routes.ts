import { Router } from 'express';
import { sendProblem } from './problem.js';

/** What readiness depends on. */
export interface Readiness {
  /** True while the service is taking traffic (false once shutdown has begun). */
  accepting(): boolean;
  /** Resolves when the database answers a trivial query. */
  pingDatabase(): Promise<void>;
}

/** `/healthz`: the process is up. `/readyz`: the database answers and we are not shutting down. */
export function healthRoutes(readiness: Readiness): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (!readiness.accepting()) {
      sendProblem(res, 503, 'shutting-down', 'The service is shutting down.');
      return;
    }
    try {
      await readiness.pingDatabase();
      res.json({ status: 'ready' });
    } catch {
      sendProblem(res, 503, 'service-unavailable', 'The database is not reachable.');
    }
  });
  return router;
}
