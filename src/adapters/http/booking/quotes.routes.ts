import { Router } from 'express';
import type { GetQuote } from '../../../application/booking/get-quote.js';
import type { QuoteBusTrip } from '../../../application/booking/quote-bus-trip.js';
import type { QuoteTransfer } from '../../../application/booking/quote-transfer.js';
import { jsonBody } from '../body.js';
import { agentOf } from '../request-context.js';
import { parseBody, parseParams } from '../validate.js';
import { busQuoteBody, quoteParams, transferQuoteBody } from './booking.schemas.js';
import { quoteView } from './booking.views.js';

/** Quotes for both products, and reading one back. */
export function quoteRoutes(deps: { quoteTransfer: QuoteTransfer; quoteBusTrip: QuoteBusTrip; getQuote: GetQuote }): Router {
  const router = Router();
  router.post('/airport-transfer/quotes', jsonBody, async (req, res) => {
    const body = parseBody(transferQuoteBody, req);
    const quote = await deps.quoteTransfer.execute(agentOf(res.locals), { ...body, pickupAt: new Date(body.pickupAt) });
    res.status(201).setHeader('Cache-Control', 'no-store').location(`/api/v1/quotes/${quote.id}`).json(quoteView(quote));
  });
  router.post('/express-bus/quotes', jsonBody, async (req, res) => {
    const quote = await deps.quoteBusTrip.execute(agentOf(res.locals), parseBody(busQuoteBody, req));
    res.status(201).setHeader('Cache-Control', 'no-store').location(`/api/v1/quotes/${quote.id}`).json(quoteView(quote));
  });
  router.get('/quotes/:quoteId', async (req, res) => {
    const { quoteId } = parseParams(quoteParams, req);
    const quote = await deps.getQuote.execute(agentOf(res.locals), quoteId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(quoteView(quote));
  });
  return router;
}
