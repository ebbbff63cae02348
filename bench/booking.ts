/**
 * Booking throughput on PostgreSQL: quote creation and order placement per second, with p99.
 * Runs the real service in a child process (RATE_LIMITS=off) and drives it with autocannon.
 *
 *   DATABASE_URL=postgres://… npm run bench:booking      # BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 20)
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import autocannon from 'autocannon';
import pino from 'pino';
import { loadConfig } from '../src/bootstrap/config.js';
import { openService } from '../src/bootstrap/service.js';
import { TOKENS } from '../src/bootstrap/tokens.js';

const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('bench/booking.ts needs DATABASE_URL (a PostgreSQL the benchmark may write to)\n');
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

// Data: the catalogue, an agent with a key, and one transfer quote per order to place.
const setup = await openService(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
const c = setup.container;
await c.get(TOKENS.SeedCatalogue).execute();
const code = `BENCH-${Date.now().toString(36).toUpperCase()}`;
await c.get(TOKENS.CreateChannel).execute({ code, name: 'Bench', currency: 'THB', markupBps: 1_000 });
const agent = await c.get(TOKENS.CreateAgent).execute({ name: 'Bench agent', channelCode: code, discountBps: 500 });
const { apiKey } = await c.get(TOKENS.IssueApiKey).execute({ agentId: agent.id });
await setup.close();

const port = await freePort();
const server = spawn(process.execPath, ['--import', 'tsx', 'src/bootstrap/main.ts'], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMITS: 'off', LOG_LEVEL: 'warn', SEED_DEMO: 'off', DB_POOL_MAX: '20' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('Listening on')) resolve();
  });
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const base = `http://127.0.0.1:${port}`;
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const pickupAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
const transfer = JSON.stringify({ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt, passengers: 2 });

type Result = autocannon.Result;
const run = (opts: autocannon.Options): Promise<Result> =>
  autocannon({ connections, ...(opts.amount === undefined ? { duration: seconds } : {}), ...opts });
const line = (name: string, r: Result): string =>
  `${name.padEnd(8)} ${Math.round(r.requests.average).toString().padStart(6)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   2xx ${r['2xx']}   non-2xx ${r.non2xx}   errors ${r.errors}`;

try {
  // Warm-up, then quotes.
  await run({ url: `${base}/api/v1/airport-transfer/quotes`, method: 'POST', headers, body: transfer, duration: 2 });
  const quotes = await run({ url: `${base}/api/v1/airport-transfer/quotes`, method: 'POST', headers, body: transfer });

  // Orders: each booking needs its own quote, made beforehand over HTTP.
  const need = Math.ceil(quotes.requests.average * 0.6 * seconds) + 2_000;
  const quoteIds: string[] = [];
  await run({
    url: `${base}/api/v1/airport-transfer/quotes`,
    method: 'POST',
    headers,
    body: transfer,
    amount: need,
    setupClient: (client) => {
      client.on('body', (body: Buffer) => {
        const id = (JSON.parse(body.toString()) as { id?: string }).id;
        if (id) quoteIds.push(id);
      });
    },
  });
  let next = 0;
  const orders = await run({
    url: `${base}/api/v1/orders`,
    method: 'POST',
    headers,
    requests: [
      {
        setupRequest: (req) => {
          const quoteId = quoteIds[next++ % quoteIds.length];
          return { ...req, body: JSON.stringify({ quoteId, contact: { name: 'Bench', email: 'bench@example.com' } }) };
        },
      },
    ],
  });
  process.stdout.write(`booking benchmark: ${connections} connections, ${seconds} s each, PostgreSQL, RATE_LIMITS=off\n`);
  process.stdout.write(`${line('quotes', quotes)}\n${line('orders', orders)}\n`);
  if (next > quoteIds.length) process.stdout.write(`note: ran out of quotes (${quoteIds.length}); later orders were 409 quote-already-booked\n`);
} finally {
  server.kill('SIGTERM');
}
