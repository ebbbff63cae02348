import { Router, type RequestHandler } from 'express';
import type { CancelOrder } from '../../../application/booking/cancel-order.js';
import type { GetOrder } from '../../../application/booking/get-order.js';
import type { ListOrders } from '../../../application/booking/list-orders.js';
import type { PlaceOrder } from '../../../application/booking/place-order.js';
import type { PreviewCancellation } from '../../../application/booking/preview-cancellation.js';
import { jsonBody } from '../body.js';
import { agentOf } from '../request-context.js';
import { parseBody, parseParams, parseQuery } from '../validate.js';
import { orderBody, orderParams, ordersQuery } from './booking.schemas.js';
import { cancellationView, orderView } from './booking.views.js';

/** Orders: place (with Idempotency-Key), list, read, preview a cancel and cancel, always the caller's own. */
export function orderRoutes(deps: {
  placeOrder: PlaceOrder;
  getOrder: GetOrder;
  listOrders: ListOrders;
  cancelOrder: CancelOrder;
  previewCancellation: PreviewCancellation;
  /** The Idempotency-Key middleware, scoped to the calling agent. */
  idempotent: RequestHandler;
}): Router {
  const router = Router();
  router.post('/orders', jsonBody, deps.idempotent, async (req, res) => {
    const body = parseBody(orderBody, req);
    const key = req.headers['idempotency-key'];
    const order = await deps.placeOrder.execute(agentOf(res.locals), {
      ...body,
      ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
      // The order commits with the key's stored response, in one commit.
    });
    res.status(201).setHeader('Cache-Control', 'no-store').location(`/api/v1/orders/${order.id}`).json(orderView(order));
  });
  router.get('/orders', async (req, res) => {
    const page = await deps.listOrders.execute(agentOf(res.locals), parseQuery(ordersQuery, req));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: page.data.map(orderView), nextCursor: page.nextCursor });
  });
  router.get('/orders/:orderId', async (req, res) => {
    const { orderId } = parseParams(orderParams, req);
    const order = await deps.getOrder.execute(agentOf(res.locals), orderId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(orderView(order));
  });
  router.get('/orders/:orderId/cancellation', async (req, res) => {
    const { orderId } = parseParams(orderParams, req);
    const decision = await deps.previewCancellation.execute(agentOf(res.locals), orderId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(cancellationView(decision));
  });
  router.post('/orders/:orderId/cancel', jsonBody, deps.idempotent, async (req, res) => {
    const { orderId } = parseParams(orderParams, req);
    const order = await deps.cancelOrder.execute(agentOf(res.locals), orderId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(orderView(order));
  });
  return router;
}
