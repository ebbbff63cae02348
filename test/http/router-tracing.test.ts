import { expect } from 'chai';
import dc from 'node:diagnostics_channel';
import type { Request } from 'express';
import { openService, listen, type RunningServer } from '../../src/bootstrap/service.js';
import { silentLog, testConfig } from '../support/app.js';
import { buildAgent, unique, type TestAgent } from '../support/builders.js';
import { testDatabase } from '../support/database.js';
import { basicAuth, bearer, buildTenant, formPost } from '../support/wallet-builders.js';

/** What the router publishes on `express.router.request` for each handler it calls. */
interface RouterTrace {
  readonly req: Request;
  /** The path the handler was registered with: a route's template, or a middleware's mount path. */
  readonly route?: unknown;
}

/**
 * Express's router publishes every middleware and route handler it calls on the tracing channel
 * `express.router.request` (router ≥ 2.3), which APM and OpenTelemetry instrumentations subscribe
 * to. Every request, for a literal path or one with parameters, must reach its route handlers
 * through the router, so that a subscriber sees its route template.
 */
describe('requests as Express tracing sees them (express.router.request)', () => {
  const channel = dc.tracingChannel('express.router.request');
  /** Request id → the templates (mount path + route path) the router called handlers of. */
  const seen = new Map<string, Set<string>>();
  const subscriber = {
    start(message: unknown): void {
      const { req, route } = message as RouterTrace;
      const id = req.headers['x-request-id'];
      if (typeof id !== 'string' || typeof route !== 'string') return;
      const templates = seen.get(id) ?? new Set<string>();
      templates.add(`${req.baseUrl}${route}`);
      seen.set(id, templates);
    },
    end: (): void => undefined,
    asyncStart: (): void => undefined,
    asyncEnd: (): void => undefined,
    error: (): void => undefined,
  };
  let running: RunningServer;
  let agent: TestAgent;
  before(async () => {
    // The production server (Express's request and response classes) and limits, as npm start runs them.
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'on' });
    const service = await openService(config, silentLog, { db: await testDatabase() });
    running = await listen(service, config, silentLog);
    agent = await buildAgent(service);
    channel.subscribe(subscriber);
  });
  after(async () => {
    channel.unsubscribe(subscriber);
    running.server.closeAllConnections();
    await new Promise<void>((r) => running.server.close(() => r()));
    await running.service.close();
  });

  /** Sends the request with a fresh request id; returns its status and the templates the router traced for it. */
  const traced = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: string; templates: string[] }> => {
    const id = `trace-${unique()}`;
    const res = await fetch(`${running.url}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-request-id': id },
    });
    const body = await res.text();
    return { status: res.status, body, templates: [...(seen.get(id) ?? [])] };
  };

  it('when literal and parameterised paths of each surface are requested, then a subscriber sees each reach its route template', async () => {
    const tenant = await buildTenant(running.service);
    const token = await traced(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
    );
    expect(token.status).to.equal(200);
    expect(token.templates).to.include('/oauth/token');
    const machine = (JSON.parse(token.body) as { access_token: string }).access_token;
    const key = { 'x-api-key': agent.apiKey };
    const cases: Array<[string, RequestInit, number, string]> = [
      ['/healthz', {}, 200, '/healthz'],
      ['/.well-known/jwks.json', {}, 200, '/.well-known/jwks.json'],
      ['/api/v1/agent/account', { headers: key }, 200, '/api/v1/agent/account'],
      ['/api/v1/express-bus/cities?q=bang', {}, 200, '/api/v1/express-bus/cities'],
      ['/api/v1/orders/ord_nonexistent', { headers: key }, 404, '/api/v1/orders/:orderId'],
      ['/transactions', { headers: bearer(machine) }, 200, '/transactions'],
      ['/me/balance', {}, 401, '/me/balance'],
      ['/openapi/booking-api.yaml', {}, 200, '/openapi/:file'],
    ];
    for (const [path, init, status, template] of cases) {
      const got = await traced(path, init);
      expect(got.status, path).to.equal(status);
      expect(got.templates, `${path}: the handlers the router was seen calling`).to.include(template);
    }
  });
});
