import { Router, type RequestHandler, type Response } from 'express';
import type { DeleteWebhookEndpoint } from '../../../application/webhooks/delete-webhook-endpoint.js';
import type { GetWebhookEndpoint } from '../../../application/webhooks/get-webhook-endpoint.js';
import type { ListWebhookDeliveries } from '../../../application/webhooks/list-webhook-deliveries.js';
import type { ListWebhookEndpoints } from '../../../application/webhooks/list-webhook-endpoints.js';
import type { RegisterWebhookEndpoint } from '../../../application/webhooks/register-webhook-endpoint.js';
import type { RetryWebhookDelivery } from '../../../application/webhooks/retry-webhook-delivery.js';
import type { WebhookCaller } from '../../../domain/webhooks/owner.js';
import { machineOf } from '../bearer.middleware.js';
import { jsonBody } from '../body.js';
import { agentOf } from '../request-context.js';
import { parseBody, parseParams, parseQuery } from '../validate.js';
import {
  agentEndpointBody,
  deliveryJson,
  deliveryParams,
  endpointJson,
  endpointParams,
  pageQuery,
  tenantEndpointBody,
} from './webhooks.schemas.js';

/** The webhook use cases, shared by both surfaces. */
export interface WebhookUseCases {
  readonly register: RegisterWebhookEndpoint;
  readonly list: ListWebhookEndpoints;
  readonly get: GetWebhookEndpoint;
  readonly remove: DeleteWebhookEndpoint;
  readonly deliveries: ListWebhookDeliveries;
  readonly retry: RetryWebhookDelivery;
}

/**
 * `/webhook-endpoints…` for one surface: agents (mounted under `/api/v1`, behind the key check)
 * or tenants (at the wallet root, behind `auth`, the machine-token check). The routes hand the
 * use cases the authenticated caller; the core makes the owner of it.
 */
export function webhookRoutes(deps: {
  surface: 'agent' | 'tenant';
  /** Runs before each route (the tenant's machine-token check); none for agents. */
  auth?: RequestHandler;
  useCases: WebhookUseCases;
}): Router {
  const router = Router();
  const auth: RequestHandler[] = deps.auth === undefined ? [] : [deps.auth];
  const body = deps.surface === 'agent' ? agentEndpointBody : tenantEndpointBody;
  const callerOf = (res: Response): WebhookCaller => (deps.surface === 'agent' ? agentOf(res.locals) : machineOf(res.locals));
  const uc = deps.useCases;
  router.post('/webhook-endpoints', ...auth, jsonBody, async (req, res) => {
    const input = parseBody(body, req);
    const created = await uc.register.execute(callerOf(res), input);
    res.status(201).setHeader('Cache-Control', 'no-store').location(`${req.baseUrl}/webhook-endpoints/${created.id}`);
    res.json({ ...endpointJson(created), secret: created.secret });
  });
  router.get('/webhook-endpoints', ...auth, async (req, res) => {
    const page = await uc.list.execute(callerOf(res), parseQuery(pageQuery, req));
    res.setHeader('Cache-Control', 'no-store').json({ data: page.data.map(endpointJson), nextCursor: page.nextCursor });
  });
  router.get('/webhook-endpoints/:endpointId', ...auth, async (req, res) => {
    const { endpointId } = parseParams(endpointParams, req);
    res.setHeader('Cache-Control', 'no-store').json(endpointJson(await uc.get.execute(callerOf(res), endpointId)));
  });
  router.delete('/webhook-endpoints/:endpointId', ...auth, async (req, res) => {
    const { endpointId } = parseParams(endpointParams, req);
    await uc.remove.execute(callerOf(res), endpointId);
    res.status(204).end();
  });
  router.get('/webhook-endpoints/:endpointId/deliveries', ...auth, async (req, res) => {
    const { endpointId } = parseParams(endpointParams, req);
    const page = await uc.deliveries.execute(callerOf(res), endpointId, parseQuery(pageQuery, req));
    res.setHeader('Cache-Control', 'no-store').json({ data: page.data.map(deliveryJson), nextCursor: page.nextCursor });
  });
  router.post('/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry', ...auth, async (req, res) => {
    const { endpointId, deliveryId } = parseParams(deliveryParams, req);
    const delivery = await uc.retry.execute(callerOf(res), endpointId, deliveryId);
    res.status(202).setHeader('Cache-Control', 'no-store').json(deliveryJson(delivery));
  });
  return router;
}
