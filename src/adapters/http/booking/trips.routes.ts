import { Router } from 'express';
import type { ListTrips } from '../../../application/booking/list-trips.js';
import { agentOf } from '../request-context.js';
import { parseQuery } from '../validate.js';
import { tripsQuery } from './booking.schemas.js';
import { tripView } from './booking.views.js';

/** `GET /express-bus/trips`: a day's trips between two cities, priced for the caller. */
export function tripRoutes(deps: { listTrips: ListTrips }): Router {
  const router = Router();
  router.get('/express-bus/trips', async (req, res) => {
    const trips = await deps.listTrips.execute(agentOf(res.locals), parseQuery(tripsQuery, req));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: trips.map(tripView) });
  });
  return router;
}
