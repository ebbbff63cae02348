import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/bootstrap/logger.js';
import { capturedLog, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';

describe('the plaintext key is kept nowhere', () => {
  let app: TestApp;
  let agent: TestAgent;
  let lines: string[] = [];

  before(async () => {
    const captured = capturedLog();
    lines = captured.lines;
    app = await startTestApp({ log: captured.log });
    agent = await buildAgent(app.service);
  });
  after(() => app.stop());

  it('when requests carry the key, then log lines have id, method, path, status and latency but never the key', async () => {
    await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey, 'X-Request-Id': 'trace-me-1' } });
    await app.request('/api/v1/nothing', { headers: { 'X-API-KEY': agent.apiKey } });
    await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': `${agent.apiKey}x` } });
    await new Promise((r) => setTimeout(r, 50));
    const logged = lines.join('');
    const entry = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'trace-me-1');
    expect(entry).to.include({ method: 'GET', path: '/api/v1/agent/account', status: 200, agentId: agent.agentId });
    expect(entry?.ms).to.be.a('number');
    expect(logged).not.to.include(agent.apiKey.slice(8));
  });

  it('when the logger is handed secrets by mistake, then they are redacted', async () => {
    const sink: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(c, _e, d) {
          sink.push(String(c));
          d();
        },
      }),
    );
    log.info({ req: { headers: { 'x-api-key': agent.apiKey, authorization: 'Bearer abc.def.ghi' } }, apiKey: agent.apiKey }, 'oops');
    log.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(sink.join('')).not.to.include(agent.apiKey);
    expect(sink.join('')).not.to.include('abc.def.ghi');
  });

  it('when the key tables are read, then no column holds the plaintext key', async () => {
    const knex = app.service.db!.knex;
    const rows = await knex('api_keys').where({ agent_id: agent.agentId });
    expect(rows).to.have.length(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.to.include(agent.apiKey);
    expect(stored).not.to.include(agent.apiKey.slice(8, 40));
    expect(rows[0].prefix).to.equal(agent.apiKey.slice(0, 8));
  });
});
