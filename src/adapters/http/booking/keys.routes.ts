import { Router, type RequestHandler } from 'express';
import type { ListOwnKeys } from '../../../application/identity/list-own-keys.js';
import type { ReportOwnKeyLeaked } from '../../../application/identity/report-own-key-leaked.js';
import type { RollOwnKey } from '../../../application/identity/roll-own-key.js';
import { jsonBody } from '../body.js';
import { agentOf } from '../request-context.js';
import { parseBody } from '../validate.js';
import { rollKeyBody } from './booking.schemas.js';
import { keyView } from './booking.views.js';

/**
 * The calling agent's keys: list them, roll the calling key, report the calling key leaked. Each
 * write acts on the key that authenticated the request and nothing else: no route names a key.
 */
export function keyRoutes(deps: {
  listOwnKeys: ListOwnKeys;
  rollOwnKey: RollOwnKey;
  reportOwnKeyLeaked: ReportOwnKeyLeaked;
  /**
   * The Idempotency-Key middleware of key-minting writes: scoped to the calling key, storing the
   * answer without `apiKey` (a replay answers the new key's metadata only).
   */
  idempotent: RequestHandler;
}): Router {
  const router = Router();
  router.get('/keys', async (_req, res) => {
    const keys = await deps.listOwnKeys.execute(agentOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: keys.map(keyView) });
  });
  router.post('/keys/current/roll', jsonBody, deps.idempotent, async (req, res) => {
    const body = parseBody(rollKeyBody, req);
    const rolled = await deps.rollOwnKey.execute(agentOf(res.locals), body);
    res.status(201).setHeader('Cache-Control', 'no-store');
    res.json({ apiKey: rolled.apiKey, key: keyView(rolled.key), previousKeyValidUntil: rolled.previousKeyValidUntil.toISOString() });
  });
  router.post('/keys/current/report-leak', jsonBody, async (_req, res) => {
    const leak = await deps.reportOwnKeyLeaked.execute(agentOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ key: keyView(leak.key), rolledKeys: leak.rolledKeys.map(keyView) });
  });
  return router;
}
