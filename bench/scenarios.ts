import type autocannon from 'autocannon';
import pino from 'pino';
import { loadConfig } from '../src/bootstrap/config.js';
import { openService } from '../src/bootstrap/service.js';
import { TOKENS } from '../src/bootstrap/tokens.js';

/** What a scenario gets: the running service's base URL and its database. */
export interface BenchContext {
  readonly base: string;
  readonly databaseUrl: string;
}

/** One hot path to load: `prepare` seeds what it needs and returns autocannon options. */
export interface Scenario {
  readonly name: string;
  prepare(ctx: BenchContext): Promise<autocannon.Options>;
}

/** Seeds through the use cases on the same database (a separate pool from the server's). */
async function withService<T>(ctx: BenchContext, fn: (s: Awaited<ReturnType<typeof openService>>) => Promise<T>): Promise<T> {
  const service = await openService(loadConfig({ DATABASE_URL: ctx.databaseUrl, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

const demoKey = (ctx: BenchContext): Promise<string> =>
  withService(ctx, async (s) => (await s.container.get(TOKENS.SeedDemo).execute()).apiKey);

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'GET /api/v1/agent/account',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/agent/account`, headers: { 'x-api-key': await demoKey(ctx) } }),
  },
  {
    name: 'GET /api/v1/express-bus/cities (public)',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/express-bus/cities?q=ba` }),
  },
];
