import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { GetAgentAccount } from '../../src/application/booking/get-agent-account.js';
import { accountOperations } from '../../src/adapters/http/booking/account.operations.js';
import { operationRouter, type OperationDeps } from '../../src/adapters/http/operation-router.js';
import type { AgentPrincipal } from '../../src/domain/identity/principal.js';

describe('the account answer', () => {
  let server: http.Server;
  let url: string;
  let principal: AgentPrincipal;
  const channel = { code: 'B2B', name: 'B2B channel', currency: 'THB', markupBps: 1000 } as unknown as AgentPrincipal['channel'];
  const createdAt = new Date('2026-01-02T03:04:05.000Z');
  const base: AgentPrincipal = {
    kind: 'agent',
    agentId: 'agt_1',
    agentName: 'Agency',
    keyId: 'key_1',
    key: { id: 'key_1', prefix: 'pbk_abcd', createdAt, expiresAt: null, scopes: ['*'], allowedIps: [] },
    channel,
    entitlements: ['airport-transfer'],
    discountBps: 500,
    livemode: true,
  } as AgentPrincipal;

  before(async () => {
    const app = express();
    app.use((_req, res, next) => {
      // What the key check leaves: a new principal object on every request, as principalFromKey makes.
      res.locals.agent = { ...principal, key: { ...principal.key } };
      next();
    });
    const deps = { core: { booking: { getAgentAccount: new GetAgentAccount() } }, limits: {} } as unknown as OperationDeps;
    app.use(operationRouter(accountOperations, deps, { behindKey: true }));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent/account`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const read = async (): Promise<{ body: Record<string, unknown>; type: string | null }> => {
    const res = await fetch(url);
    return { body: (await res.json()) as Record<string, unknown>, type: res.headers.get('content-type') };
  };

  it('when the account is read again, then the same JSON; when the agent, channel or key changes, then the answer shows it', async () => {
    principal = base;
    const first = await read();
    expect(first.type).to.equal('application/json; charset=utf-8');
    expect(first.body).to.deep.equal(JSON.parse(JSON.stringify(new GetAgentAccount().execute(base))));
    expect((await read()).body).to.deep.equal(first.body);

    principal = { ...base, discountBps: 700 };
    expect((await read()).body.pricing).to.include({ agentDiscountBps: 700 });
    principal = { ...base, channel: { ...channel, name: 'Renamed' } };
    expect((await read()).body.channel).to.include({ name: 'Renamed' });
    principal = { ...base, entitlements: ['airport-transfer', 'express-bus'] };
    expect((await read()).body.entitlements).to.deep.equal(['airport-transfer', 'express-bus']);
    const expiresAt = new Date('2027-01-01T00:00:00.000Z');
    principal = { ...base, key: { ...base.key, expiresAt } };
    expect((await read()).body.apiKey).to.include({ expiresAt: expiresAt.toISOString() });
    principal = { ...base, agentName: 'Agency Two' };
    expect((await read()).body.name).to.equal('Agency Two');
  });
});
