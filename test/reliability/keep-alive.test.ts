import { expect } from 'chai';
import net from 'node:net';
import { loadConfig } from '../../src/bootstrap/config.js';
import { listen, listenUrl, openService, serverOptions, type RunningServer } from '../../src/bootstrap/service.js';
import { silentLog, testConfig } from '../support/app.js';

/** One raw connection: send a request, collect what comes back, know when the server closed it. */
function connection(port: number): { send(path: string): Promise<string>; closed: Promise<number> } {
  const socket = net.connect(port, '127.0.0.1');
  const opened = Date.now();
  let pending: ((response: string) => void) | null = null;
  let got = '';
  socket.on('data', (c: Buffer) => {
    got += c.toString();
    const [head, body = ''] = got.split('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(head ?? '');
    if (pending !== null && length && Buffer.byteLength(body) >= Number(length[1])) {
      const done = pending;
      pending = null;
      const response = got;
      got = '';
      done(response);
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  return {
    send: (path) =>
      new Promise((resolve) => {
        pending = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      }),
    closed,
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('keep-alive and listening address', function () {
  this.timeout(30_000);

  it('when nothing is configured, then idle connections outlive a load balancer’s 60 s idle timeout and the service listens on loopback', () => {
    const config = loadConfig({});
    expect(serverOptions(config).keepAliveTimeout).to.be.greaterThan(60_000);
    expect(config.host).to.equal('127.0.0.1');
  });

  describe('on a running server', () => {
    let running: RunningServer;
    let port: number;
    before(async () => {
      const config = testConfig({
        PERSISTENCE: 'memory',
        PORT: '0',
        HOST: '127.0.0.1',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '2500',
        HTTP_HEADERS_TIMEOUT_MS: '300',
        HTTP_REQUEST_TIMEOUT_MS: '800',
      });
      running = await listen(await openService(config, silentLog), config, silentLog);
      port = Number(new URL(running.url).port);
    });
    after(async () => {
      running.server.closeAllConnections();
      await new Promise<void>((r) => running.server.close(() => r()));
      await running.service.close();
    });

    it('when a keep-alive connection idles longer than the headers timeout, then its next request is still answered on it', async () => {
      const conn = connection(port);
      expect(await conn.send('/healthz')).to.match(/^HTTP\/1\.1 200/);
      // Past the 300 ms headers timeout and a pass of the once-a-second timeout check.
      await pause(1_600);
      expect(await conn.send('/healthz')).to.match(/^HTTP\/1\.1 200/);
      expect(await conn.closed).to.be.within(1_600 + 2_000, 1_600 + 5_000);
    });

    it('when the server listens, then the URL it reports is the address it listens on', async () => {
      expect(running.url).to.equal(`http://127.0.0.1:${port}`);
      expect(listenUrl({ address: '0.0.0.0', port: 3000 })).to.equal('http://0.0.0.0:3000');
      expect(listenUrl({ address: '::', port: 3000 })).to.equal('http://[::]:3000');
    });
  });
});
