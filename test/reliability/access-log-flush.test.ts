import { expect } from 'chai';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';

describe('the access log, written asynchronously in batches', () => {
  let server: ServerProcess | null = null;
  afterEach(() => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    server = null;
  });

  it('when the process is stopped with SIGTERM, then every request answered before has its line, and the last line is written', async function () {
    this.timeout(60_000);
    server = await spawnServer(
      'src/bootstrap/main.ts',
      { DATABASE_URL: undefined, PERSISTENCE: 'memory', LOG_LEVEL: 'info' },
      await freePort(),
    );
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const res = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': `flush-${i}` } });
      expect(res.status).to.equal(200);
      ids.push(String(res.headers.get('x-request-id')));
    }
    server.child.kill('SIGTERM');
    expect((await server.exited()).code).to.equal(0);
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const logged = lines.filter((l) => l.msg === 'request').map((l) => l.requestId);
    expect(logged).to.include.members(ids);
    expect(lines.at(-1)?.msg).to.equal('stopped');
  });
});
