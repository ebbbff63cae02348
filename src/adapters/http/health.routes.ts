import { Router } from 'express';
import { sendProblem } from './problem.js';

/** What readiness depends on. */
export interface Readiness {
  /** True while the service is taking traffic (false once shutdown has begun). */
  accepting(): boolean;
  /** Resolves when the database answers a trivial query. */
  pingDatabase(): Promise<void>;
}

/** Where the process answers that it is up. */
export const HEALTH_PATH = '/healthz';
/** Where it answers that the database answers and it is not shutting down. */
export const READINESS_PATH = '/readyz';

/** `HEALTH_PATH`: the process is up. `READINESS_PATH`: the database answers and we are not shutting down. */
export function healthRoutes(readiness: Readiness): Router {
  const router = Router();
  router.get(HEALTH_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  router.get(READINESS_PATH, async (_req, res) => {
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
