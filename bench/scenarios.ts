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

/** A tenant with `users` funded wallet users: its machine token and one user token per user. */
async function walletTenant(ctx: BenchContext, users: number): Promise<{ machine: string; userTokens: string[] }> {
  const tenant = await withService(ctx, (s) => s.container.get(TOKENS.CreateTenant).execute({ name: `bench ${Date.now()}` }));
  const basic = Buffer.from(`${tenant.clientId}:${tenant.clientSecret}`).toString('base64');
  const tokenRes = await fetch(`${ctx.base}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const machine = ((await tokenRes.json()) as { access_token: string }).access_token;
  const userTokens: string[] = [];
  for (let i = 0; i < users; i++) {
    const res = await fetch(`${ctx.base}/auth/delegated-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${machine}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalUserRef: `bench-${i}` }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const me = (await (await fetch(`${ctx.base}/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: string };
    await fetch(`${ctx.base}/users/${me.id}/top-ups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${machine}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1_000_000_000, reference: 'bench' }),
    });
    userTokens.push(token);
  }
  return { machine, userTokens };
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'GET /api/v1/agent/account',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/agent/account`, headers: { 'x-api-key': await demoKey(ctx) } }),
  },
  {
    name: 'GET /api/v1/express-bus/cities (public)',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/express-bus/cities?q=ba` }),
  },
  {
    name: 'POST /me/payments (200 users with Idempotency-Key)',
    prepare: async (ctx) => {
      const { userTokens } = await walletTenant(ctx, 200);
      let n = 0;
      return {
        url: ctx.base,
        requests: [
          {
            method: 'POST',
            path: '/me/payments',
            setupRequest: (req) => {
              n += 1;
              return {
                ...req,
                headers: {
                  authorization: `Bearer ${userTokens[n % userTokens.length]}`,
                  'content-type': 'application/json',
                  'idempotency-key': `bench-${process.pid}-${n}`,
                },
                body: JSON.stringify({ amount: 100, reference: `order-${n}` }),
              };
            },
          },
        ],
      };
    },
  },
  {
    name: 'GET /transactions (machine token; page of 20)',
    prepare: async (ctx) => {
      const { machine } = await walletTenant(ctx, 20);
      return { url: `${ctx.base}/transactions?limit=20`, headers: { authorization: `Bearer ${machine}` } };
    },
  },
];
