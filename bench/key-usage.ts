/**
 * `npx tsx bench/key-usage.ts`: what noting each key's last use costs the account read. Two
 * services of this code on one PostgreSQL database (DATABASE_URL, default a fresh `pbw_bench_keys`),
 * one as shipped and one whose key-use recorder does nothing, are loaded in turn with autocannon
 * (child processes are not needed: both sides share this process and its load equally), for
 * KEY_USAGE_ROUNDS alternating rounds of KEY_USAGE_SECONDS each. Prints req/s of each round and
 * the ratio of the medians.
 */
import autocannon from 'autocannon';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContainerModule } from 'inversify';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/bootstrap/config.js';
import { openService, type Service } from '../src/bootstrap/service.js';
import { TOKENS } from '../src/bootstrap/tokens.js';
import type { PortSet } from '../src/bootstrap/ports.js';

const rounds = Number(process.env.KEY_USAGE_ROUNDS ?? 4);
const seconds = Number(process.env.KEY_USAGE_SECONDS ?? 5);

async function database(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS pbw_bench_keys WITH (FORCE)');
  await admin.query('CREATE DATABASE pbw_bench_keys');
  await admin.end();
  return 'postgres://postgres@127.0.0.1:5432/pbw_bench_keys';
}

const noRecorder = new ContainerModule(({ onActivation }) => {
  const none = {
    noteUse: () => undefined,
    lastNoted: () => null,
    start: () => undefined,
    flush: async () => undefined,
    stop: async () => undefined,
  };
  onActivation(TOKENS.Ports, (_ctx, ports: PortSet): PortSet => ({ ...ports, keyUsage: none }));
});

async function serve(url: string, recording: boolean): Promise<{ service: Service; base: string; server: http.Server }> {
  const config = loadConfig({ DATABASE_URL: url, PERSISTENCE: 'postgres', RATE_LIMITS: 'off', LOG_LEVEL: 'silent' });
  const service = await openService(config, pino({ level: 'silent' }), recording ? {} : { extraModules: [noRecorder] });
  const server = http.createServer(service.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { service, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function main(): Promise<void> {
  const url = await database();
  const shipped = await serve(url, true);
  const bare = await serve(url, false);
  const { apiKey } = await shipped.service.core.admin.seedDemo.execute();
  const run = async (base: string): Promise<number> => {
    const result = await autocannon({
      url: `${base}/api/v1/agent/account`,
      headers: { 'x-api-key': apiKey },
      connections: 50,
      duration: seconds,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`failures: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result.requests.average;
  };
  await run(shipped.base); // warm-up of both
  await run(bare.base);
  const withUse: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < rounds; i++) {
    without.push(await run(bare.base));
    withUse.push(await run(shipped.base));
  }
  await shipped.service.ports.keyUsage.flush();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`account read req/s without recording: ${without.map(Math.round).join(', ')} (median ${Math.round(median(without))})`);
  console.log(`account read req/s with recording:    ${withUse.map(Math.round).join(', ')} (median ${Math.round(median(withUse))})`);
  console.log(`ratio with/without: ${(median(withUse) / median(without)).toFixed(3)}`);
  for (const s of [shipped, bare]) {
    s.server.closeAllConnections();
    await new Promise<void>((r) => s.server.close(() => r()));
    await s.service.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
