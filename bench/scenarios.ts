import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type autocannon from 'autocannon';
import pg from 'pg';
import pino from 'pino';
import { quoteToRow } from '../src/adapters/knex/booking-rows.js';
import { TimeSortableIds } from '../src/adapters/crypto/node-crypto.js';
import { loadConfig } from '../src/bootstrap/config.js';
import { openService, type Service } from '../src/bootstrap/service.js';
import type { Quote } from '../src/domain/booking/quote.js';
import { MAX_FLEET_VEHICLES } from '../src/domain/catalogue/operator.js';
import { OIDC_CLIENT } from './oidc-server.js';

/** What a scenario gets: the running service, its database and the comparison servers. */
export interface BenchContext {
  readonly base: string;
  readonly databaseUrl: string;
  /** node-oidc-provider's base URL, when BENCH_OIDC is not off. */
  readonly oidcBase: string | null;
  readonly seconds: number;
  /** Data made once and shared by scenarios (keys, tenants, tokens). */
  readonly memo: Map<string, Promise<unknown>>;
}

/** One hot path to load: `prepare` seeds what it needs and returns autocannon options. */
export interface Scenario {
  readonly name: string;
  /** Concurrent connections (default BENCH_CONNECTIONS). */
  readonly connections?: number;
  /** Null when the scenario cannot run in this configuration (it is then left out). */
  prepare(ctx: BenchContext): Promise<autocannon.Options | null>;
}

const memo = <T>(ctx: BenchContext, key: string, make: () => Promise<T>): Promise<T> => {
  let hit = ctx.memo.get(key) as Promise<T> | undefined;
  if (hit === undefined) {
    hit = make();
    ctx.memo.set(key, hit);
  }
  return hit;
};

/** Seeds through the use cases on the same database (a separate pool from the server's). */
async function withService<T>(ctx: BenchContext, fn: (s: Service) => Promise<T>): Promise<T> {
  const service = await openService(loadConfig({ DATABASE_URL: ctx.databaseUrl, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/**
 * The demo catalogue, channel and agent, with a fresh key. The demo agent is prepaid; the
 * scenarios that measure a booking as before (unpaid) bill it by invoice again.
 */
const agentKey = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'agentKey', () =>
    withService(ctx, async (s) => {
      const demo = await s.core.admin.seedDemo.execute();
      await s.core.admin.setAgentBilling.execute({ agentId: demo.agentId, mode: 'invoice' });
      return (await s.core.admin.issueApiKey.execute({ agentId: demo.agentId })).apiKey;
    }),
  );

/** An agent of the demo channel that pays for its bookings from a prepaid account funded for the whole run. */
const prepaidAgentKey = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'prepaidAgentKey', () =>
    withService(ctx, async (s) => {
      await s.core.admin.seedDemo.execute();
      const agent = await s.core.admin.createAgent.execute({ name: `Bench prepaid ${Date.now()}`, channelCode: 'DEMO-B2B' });
      await s.core.admin.setAgentBilling.execute({ agentId: agent.id, mode: 'prepaid' });
      await s.core.admin.fundAgent.execute({ agentId: agent.id, amount: 100_000_000_000, reference: 'bench' });
      return (await s.core.admin.issueApiKey.execute({ agentId: agent.id })).apiKey;
    }),
  );

/** A wallet tenant with its client credentials. */
const tenant = (ctx: BenchContext): Promise<{ tenantId: string; clientId: string; clientSecret: string }> =>
  memo(ctx, 'tenant', () => withService(ctx, (s) => s.core.admin.createTenant.execute({ name: `bench-${Date.now()}` })));

async function post(url: string, headers: Record<string, string>, body: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const out = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** A machine token, obtained over HTTP like a tenant backend would. */
const machineToken = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'machineToken', async () => {
    const t = await tenant(ctx);
    const out = await post(
      `${ctx.base}/oauth/token`,
      { ...form, authorization: basic(t.clientId, t.clientSecret) },
      'grant_type=client_credentials',
    );
    return out.access_token as string;
  });

/** A user token for one wallet user of the tenant (delegated), and the user's id. */
const userToken = (ctx: BenchContext, ref = 'bench-user'): Promise<string> =>
  memo(ctx, `userToken:${ref}`, async () => {
    const out = await post(
      `${ctx.base}/auth/delegated-token`,
      { ...json, authorization: `Bearer ${await machineToken(ctx)}` },
      JSON.stringify({ externalUserRef: ref }),
    );
    return out.access_token as string;
  });

/**
 * DPoP proofs (RFC 9449) made as a client makes them, one per request, signed synchronously
 * (ES256) in autocannon's request setup so each carries a fresh `jti` and `iat`. `htu` is the
 * public URL: the issuer the metadata names, joined with the path.
 */
const dpopKey = (() => {
  let made: { privateKey: ReturnType<typeof generateKeyPairSync>['privateKey']; header: string } | null = null;
  return () => {
    if (made === null) {
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const { kty, crv, x, y } = pair.publicKey.export({ format: 'jwk' });
      const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })).toString('base64url');
      made = { privateKey: pair.privateKey, header };
    }
    return made;
  };
})();
const dpopProof = (method: string, url: string, token?: string): string => {
  const { privateKey, header } = dpopKey();
  const claims: Record<string, unknown> = { htm: method, htu: url, iat: Math.floor(Date.now() / 1000), jti: randomUUID() };
  if (token !== undefined) claims.ath = createHash('sha256').update(token).digest('base64url');
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
};
/** The issuer the service publishes: the origin of every DPoP proof's `htu`. */
const issuerOf = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'issuer', async () => {
    const meta = (await (await fetch(`${ctx.base}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    return meta.issuer.replace(/\/+$/, '');
  });
/** A DPoP-bound user token (delegated, with a proof), for the bench user. */
const boundUserToken = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'boundUserToken', async () => {
    const issuer = await issuerOf(ctx);
    const out = await post(
      `${ctx.base}/auth/delegated-token`,
      { ...json, authorization: `Bearer ${await machineToken(ctx)}`, dpop: dpopProof('POST', `${issuer}/auth/delegated-token`) },
      JSON.stringify({ externalUserRef: 'bench-dpop-user' }),
    );
    if (out.token_type !== 'DPoP') throw new Error(`delegated-token did not bind the token: ${JSON.stringify(out)}`);
    return out.access_token as string;
  });

/**
 * BENCH_WEBHOOKS=on: the bench agent and tenant each register an endpoint for all their events,
 * answered by a receiver in this process, so the write scenarios also record and deliver events
 * (run the service with WEBHOOK_ALLOW_INSECURE=on WEBHOOK_ALLOW_PRIVATE=on).
 */
let receiverUrl: Promise<string> | null = null;
export const webhookDeliveries = { received: 0 };
function webhookReceiver(): Promise<string> {
  receiverUrl ??= new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        webhookDeliveries.received += 1;
        res.end();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    });
  });
  return receiverUrl;
}
async function subscribe(ctx: BenchContext, path: string, headers: Record<string, string>, events: string[]): Promise<void> {
  if (process.env.BENCH_WEBHOOKS !== 'on') return;
  await memo(ctx, `webhook:${path}:${JSON.stringify(headers)}`, async () =>
    post(`${ctx.base}${path}`, { ...json, ...headers }, JSON.stringify({ url: await webhookReceiver(), events })),
  );
}

const pickupAt = (): string => new Date(Date.now() + 7 * 86_400_000).toISOString();
const transferBody = (): string =>
  JSON.stringify({ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: pickupAt(), passengers: 2 });

/**
 * Quotes to book, one per order: one quote is priced through the use case, then copied under
 * new ids straight into the table (pricing each over HTTP would take as long as the run).
 */
async function quotePool(ctx: BenchContext, size: number, keyOf: (ctx: BenchContext) => Promise<string> = agentKey): Promise<string[]> {
  const apiKey = await keyOf(ctx);
  return withService(ctx, async (s) => {
    const principal = await s.core.identity.authenticateAgent.execute(apiKey);
    const template: Quote = await s.core.booking.quoteTransfer.execute(principal, {
      fromLocationId: 'loc_bkk',
      toLocationId: 'loc_bkk_silom',
      pickupAt: new Date(pickupAt()),
      passengers: 2,
    });
    const ids = new TimeSortableIds();
    const pool: string[] = [];
    const knex = s.db!.knex;
    // Transfers have stock: the operator gets the largest fleet, and the copies are spread over
    // as many pickup hours, so that the run measures booking, not a sold-out hour.
    const vehicle = template.vehicle!;
    await s.core.admin.setOperatorFleet.execute({
      operatorCode: vehicle.operatorCode,
      vehicleClass: vehicle.vehicleClass,
      vehicles: MAX_FLEET_VEHICLES,
    });
    const hours = Math.ceil((2 * size) / MAX_FLEET_VEHICLES) + 500;
    for (let done = 0; done < size; done += 1000) {
      const rows = [];
      for (let i = done; i < Math.min(size, done + 1000); i += 1) {
        const id = ids.next('qte');
        pool.push(id);
        const shift = (i % hours) * 3_600_000;
        const pickupAt = new Date(template.startsAt.getTime() + shift);
        rows.push(
          quoteToRow({
            ...template,
            id,
            startsAt: pickupAt,
            details: { ...template.details, pickupAt: pickupAt.toISOString() } as Quote['details'],
            vehicle: { ...vehicle, pickupHour: new Date(vehicle.pickupHour.getTime() + shift) },
          }),
        );
      }
      await knex('quotes').insert(rows);
    }
    return pool;
  });
}

/** Writes and token issuance run with fewer connections: enough to saturate, as a partner fleet would. */
const WRITE_CONNECTIONS = Number(process.env.BENCH_WRITE_CONNECTIONS ?? 20);

/**
 * A wallet tenant with `users` funded wallet users, made over HTTP like a tenant backend would:
 * its machine token and one delegated user token per user. Made once per run.
 */
const walletTenant = (ctx: BenchContext, users = 200): Promise<{ machine: string; userTokens: string[] }> =>
  memo(ctx, `walletTenant:${users}`, async () => {
    const t = await withService(ctx, (s) => s.core.admin.createTenant.execute({ name: `bench wallet ${Date.now()}` }));
    const machine = (
      await post(`${ctx.base}/oauth/token`, { ...form, authorization: basic(t.clientId, t.clientSecret) }, 'grant_type=client_credentials')
    ).access_token as string;
    const userTokens: string[] = [];
    for (let i = 0; i < users; i++) {
      const token = (
        await post(
          `${ctx.base}/auth/delegated-token`,
          { ...json, authorization: `Bearer ${machine}` },
          JSON.stringify({ externalUserRef: `bench-${i}` }),
        )
      ).access_token as string;
      const me = (await (await fetch(`${ctx.base}/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: string };
      await post(
        `${ctx.base}/users/${me.id}/top-ups`,
        { ...json, authorization: `Bearer ${machine}` },
        JSON.stringify({ amount: 1_000_000_000, reference: 'bench' }),
      );
      userTokens.push(token);
    }
    return { machine, userTokens };
  });

/**
 * Orders of transfer quotes, one quote each; with `withKey` every order carries an
 * `Idempotency-Key` of its own, as a client that retries safely sends it.
 */
const ordersScenario = (name: string, withKey: boolean): Scenario => ({
  name,
  connections: WRITE_CONNECTIONS,
  prepare: async (ctx) => {
    // More quotes than the run can book (warm-up included), so no order meets a booked quote.
    const pool = await quotePool(ctx, Math.max(20_000, (ctx.seconds + 2) * 3_000));
    await subscribe(ctx, '/api/v1/webhook-endpoints', { 'x-api-key': await agentKey(ctx) }, [
      'order.confirmed',
      'order.cancelled',
      'api_key.revoked',
    ]);
    const apiKey = await agentKey(ctx);
    let next = 0;
    return {
      url: `${ctx.base}/api/v1/orders`,
      method: 'POST',
      headers: { ...json, 'x-api-key': apiKey },
      requests: [
        {
          setupRequest: (req) => {
            const n = next++;
            return {
              ...req,
              ...(withKey ? { headers: { ...json, 'x-api-key': apiKey, 'idempotency-key': `bench-order-${process.pid}-${n}` } } : {}),
              body: JSON.stringify({ quoteId: pool[n % pool.length], contact: { name: 'Bench', email: 'bench@example.com' } }),
            };
          },
        },
      ],
    };
  },
});

/**
 * An instant order of a prepaid agent, paid from its account in the order's transaction: its
 * price checked against balance + credit limit − held under the account's lock, the sale
 * recorded in the ledger (agent debited, operator payable and revenue credited). Compared with
 * pgbench's TPC-B-like transaction at the same connections.
 */
const paidOrderScenario: Scenario = {
  name: 'POST /api/v1/orders (paid instant order, prepaid agent)',
  connections: WRITE_CONNECTIONS,
  prepare: async (ctx) => {
    const pool = await quotePool(ctx, Math.max(20_000, (ctx.seconds + 2) * 3_000), prepaidAgentKey);
    const apiKey = await prepaidAgentKey(ctx);
    let next = 0;
    return {
      url: `${ctx.base}/api/v1/orders`,
      method: 'POST',
      headers: { ...json, 'x-api-key': apiKey },
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ quoteId: pool[next++ % pool.length], contact: { name: 'Bench', email: 'bench@example.com' } }),
          }),
        },
      ],
    };
  },
};

/**
 * A hold, then its confirm, on an instant operator: each connection holds a quote of its own
 * (`POST /api/v1/orders` with `hold`) and confirms it with the traveller's contact at once; two
 * requests per booking, so bookings a second are half the requests a second.
 */
const holdThenConfirmScenario: Scenario = {
  name: 'POST /api/v1/orders {hold} + /confirm (two requests a booking)',
  connections: WRITE_CONNECTIONS,
  prepare: async (ctx) => {
    const pool = await quotePool(ctx, Math.max(20_000, (ctx.seconds + 2) * 2_000));
    const apiKey = await agentKey(ctx);
    let next = 0;
    const headers = { ...json, 'x-api-key': apiKey };
    return {
      url: `${ctx.base}/api/v1/orders`,
      method: 'POST',
      headers,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/orders',
          setupRequest: (req) => ({
            ...req,
            headers,
            body: JSON.stringify({ quoteId: pool[next++ % pool.length], hold: { seconds: 600 } }),
          }),
          onResponse: (_status, body, context: object) => {
            (context as { orderId?: string }).orderId = (JSON.parse(body) as { id?: string }).id ?? 'ord_none';
          },
        },
        {
          method: 'POST',
          setupRequest: (req, context: object) => ({
            ...req,
            path: `/api/v1/orders/${(context as { orderId?: string }).orderId ?? 'ord_none'}/confirm`,
            headers,
            body: JSON.stringify({ contact: { name: 'Bench', email: 'bench@example.com' } }),
          }),
        },
      ],
    };
  },
};

/** Connections fetching voucher pages at once (BENCH_VOUCHER_CONNECTIONS, default 4). */
const VOUCHER_CONNECTIONS = Number(process.env.BENCH_VOUCHER_CONNECTIONS ?? 4);

/** One CONFIRMED order of the demo agent (an instant operator), booked over HTTP once per run. */
const confirmedOrder = (ctx: BenchContext): Promise<{ apiKey: string; orderId: string }> =>
  memo(ctx, 'confirmedOrder', async () => {
    const apiKey = await agentKey(ctx);
    const [quoteId] = await quotePool(ctx, 1);
    const order = await post(
      `${ctx.base}/api/v1/orders`,
      { ...json, 'x-api-key': apiKey },
      JSON.stringify({
        quoteId,
        contact: { name: 'Malee Srisuk', email: 'bench@example.com' },
        passengers: [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }],
      }),
    );
    if (order.status !== 'CONFIRMED') throw new Error(`the voucher scenarios need a confirmed order: ${JSON.stringify(order)}`);
    return { apiKey, orderId: order.id as string };
  });

/**
 * The voucher's cost beside the read of its order: the same order, the same key, read as JSON
 * and fetched as its PDF page (signed anew and rendered on the worker pool each time). Both
 * names hold `voucher`, so `BENCH_ONLY=voucher` runs the pair.
 */
const voucherScenarios: readonly Scenario[] = [
  {
    name: 'GET /api/v1/orders/{id} (the order read, beside its voucher)',
    prepare: async (ctx) => {
      const { apiKey, orderId } = await confirmedOrder(ctx);
      return { url: `${ctx.base}/api/v1/orders/${orderId}`, headers: { 'x-api-key': apiKey } };
    },
  },
  {
    name: 'GET /api/v1/orders/{id}/voucher (PDF)',
    // Pages render on a pool of one or two worker threads; more connections only queue there (and
    // the warm-up's abandoned requests are still rendered when the measured run starts).
    connections: VOUCHER_CONNECTIONS,
    prepare: async (ctx) => {
      const { apiKey, orderId } = await confirmedOrder(ctx);
      return { url: `${ctx.base}/api/v1/orders/${orderId}/voucher`, headers: { 'x-api-key': apiKey, accept: 'application/pdf' } };
    },
  },
];
/**
 * An authorization, then its capture: each connection's user authorizes 100 (user token), and
 * the tenant's backend captures it in full at once (machine token), each with an
 * `Idempotency-Key`; two requests per authorization.
 */
const authorizeThenCaptureScenario: Scenario = {
  name: 'POST /me/authorizations + /capture (two requests an authorization)',
  connections: WRITE_CONNECTIONS,
  prepare: async (ctx) => {
    const { userTokens, machine } = await walletTenant(ctx);
    let n = 0;
    return {
      url: `${ctx.base}/me/authorizations`,
      method: 'POST',
      requests: [
        {
          method: 'POST',
          path: '/me/authorizations',
          setupRequest: (req, context: object) => {
            n += 1;
            (context as { n?: number }).n = n;
            return {
              ...req,
              headers: {
                authorization: `Bearer ${userTokens[n % userTokens.length]}`,
                'content-type': 'application/json',
                'idempotency-key': `bench-auth-${process.pid}-${n}`,
              },
              body: JSON.stringify({ amount: 100, reference: `ride-${n}` }),
            };
          },
          onResponse: (_status, body, context: object) => {
            (context as { authorizationId?: string }).authorizationId = (JSON.parse(body) as { id?: string }).id ?? 'auth_none';
          },
        },
        {
          method: 'POST',
          setupRequest: (req, context: object) => ({
            ...req,
            path: `/authorizations/${(context as { authorizationId?: string }).authorizationId ?? 'auth_none'}/capture`,
            headers: {
              authorization: `Bearer ${machine}`,
              'content-type': 'application/json',
              'idempotency-key': `bench-capture-${process.pid}-${(context as { n?: number }).n ?? 0}`,
            },
            body: '{}',
          }),
        },
      ],
    };
  },
};

/**
 * A wallet user with 100,000 transactions (top-ups written straight into the ledger's tables,
 * each entry with the balance it left, as the write path records them), for the balance reads.
 */
const longHistoryUser = (ctx: BenchContext): Promise<string> =>
  memo(ctx, 'longHistoryUser', async () => {
    const { machine } = await walletTenant(ctx);
    const token = (
      await post(
        `${ctx.base}/auth/delegated-token`,
        { ...json, authorization: `Bearer ${machine}` },
        JSON.stringify({ externalUserRef: 'bench-history' }),
      )
    ).access_token as string;
    const me = (await (await fetch(`${ctx.base}/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: string };
    await post(
      `${ctx.base}/users/${me.id}/top-ups`,
      { ...json, authorization: `Bearer ${machine}` },
      JSON.stringify({ amount: 1, reference: 'first' }),
    );
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    try {
      const account = (await client.query('SELECT id, tenant_id FROM ledger_accounts WHERE user_id = $1', [me.id])).rows[0] as {
        id: string;
        tenant_id: string;
      };
      const { id: accountId, tenant_id: tenantId } = account;
      const funding = (await client.query("SELECT id FROM ledger_accounts WHERE tenant_id = $1 AND kind = 'FUNDING' LIMIT 1", [tenantId]))
        .rows[0] as { id: string };
      const fundingId = funding.id;
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, reference, initiator_kind, initiator_client_id, created_at)
         SELECT 'txn_bench_' || g, $1, 'TOP_UP', 1, 'THB', $2, 'history', 'machine', 'bench', now() - interval '1 day' + g * interval '1 ms'
         FROM generate_series(1, 100000) g`,
        [tenantId, me.id],
      );
      await client.query(
        `INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
         SELECT t.id, a.account_id, a.amount, t.created_at FROM ledger_transactions t
         CROSS JOIN (VALUES ($1::text, 1), ($2::text, -1)) AS a(account_id, amount)
         WHERE t.id LIKE 'txn_bench_%' AND t.tenant_id = $3`,
        [accountId, fundingId, tenantId],
      );
      await client.query('UPDATE ledger_accounts SET balance = balance + 100000 WHERE id = $1', [accountId]);
      await client.query('UPDATE ledger_accounts SET balance = balance - 100000 WHERE id = $1', [fundingId]);
      await client.query(
        `UPDATE ledger_entries e SET balance_after = r.running FROM (
           SELECT transaction_id, account_id, SUM(amount) OVER (PARTITION BY account_id ORDER BY created_at, seq) AS running
           FROM ledger_entries WHERE account_id IN ($1, $2)) r
         WHERE e.transaction_id = r.transaction_id AND e.account_id = r.account_id`,
        [accountId, fundingId],
      );
      await client.query('COMMIT');
      await client.query('ANALYZE ledger_entries');
    } finally {
      await client.end();
    }
    return token;
  });

/** What the lapse scenario measured of its recorder: how many it recorded, in how long. */
export const lapseRecording = { recorded: 0, ms: 0 };

/**
 * The account read while 10,000 lapsed holds are recorded: the holds are copied straight into
 * the table from one real hold (already past their deadline), and a second instance records
 * them (batches of 500, as the service's job does) a second into the measurement, while the
 * service's own job may join in. Compared with the account read of the same run on an idle
 * service.
 */
const accountReadDuringLapses: Scenario = {
  name: 'GET /api/v1/agent/account (while 10,000 lapsed holds are recorded)',
  prepare: async (ctx) => {
    const apiKey = await agentKey(ctx);
    const pool = await quotePool(ctx, 10_001);
    const template = await post(
      `${ctx.base}/api/v1/orders`,
      { ...json, 'x-api-key': apiKey },
      JSON.stringify({ quoteId: pool[0], hold: { seconds: 600 } }),
    );
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO orders SELECT (jsonb_populate_record(o, jsonb_build_object(
             'id', 'ord_lapse_' || q.n, 'quote_id', q.id,
             'hold_expires_at', now() - interval '1 minute', 'created_at', now() - interval '20 minutes'))).*
         FROM orders o, unnest($2::text[]) WITH ORDINALITY AS q(id, n) WHERE o.id = $1`,
        [template.id as string, pool.slice(1)],
      );
    } finally {
      await client.end();
    }
    const timer = setTimeout(() => {
      const started = Date.now();
      void withService(ctx, (s) => s.core.booking.recordOrderLapses.execute(1_000)).then((n) => {
        lapseRecording.recorded = n;
        lapseRecording.ms = Date.now() - started;
      });
    }, 1_000);
    timer.unref();
    return { url: `${ctx.base}/api/v1/agent/account`, headers: { 'x-api-key': apiKey } };
  },
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'GET /api/v1/agent/account',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/agent/account`, headers: { 'x-api-key': await agentKey(ctx) } }),
  },
  {
    name: 'GET /me',
    prepare: async (ctx) => ({ url: `${ctx.base}/me`, headers: { authorization: `Bearer ${await userToken(ctx)}` } }),
  },
  {
    name: 'GET /me/balance',
    prepare: async (ctx) => ({
      url: `${ctx.base}/me/balance`,
      headers: { authorization: `Bearer ${(await walletTenant(ctx)).userTokens[0]}` },
    }),
  },
  {
    name: 'GET /me/balance (DPoP-bound token, a proof per request)',
    prepare: async (ctx) => {
      const token = await boundUserToken(ctx);
      const htu = `${await issuerOf(ctx)}/me/balance`;
      return {
        url: `${ctx.base}/me/balance`,
        requests: [
          {
            setupRequest: (req) => ({ ...req, headers: { authorization: `DPoP ${token}`, dpop: dpopProof('GET', htu, token) } }),
          },
        ],
      };
    },
  },
  {
    name: 'POST /api/v1/airport-transfer/quotes',
    connections: WRITE_CONNECTIONS,
    prepare: async (ctx) => ({
      url: `${ctx.base}/api/v1/airport-transfer/quotes`,
      method: 'POST',
      headers: { ...json, 'x-api-key': await agentKey(ctx) },
      body: transferBody(),
    }),
  },
  ordersScenario('POST /api/v1/orders', false),
  ordersScenario('POST /api/v1/orders (Idempotency-Key)', true),
  ...voucherScenarios,
  holdThenConfirmScenario,
  accountReadDuringLapses,
  authorizeThenCaptureScenario,
  {
    name: 'GET /me/balance (100,000 transactions)',
    prepare: async (ctx) => ({ url: `${ctx.base}/me/balance`, headers: { authorization: `Bearer ${await longHistoryUser(ctx)}` } }),
  },
  {
    name: 'GET /me/balance?at= (100,000 transactions, half a day back)',
    prepare: async (ctx) => {
      const at = new Date(Date.now() - 12 * 3_600_000).toISOString();
      return {
        url: `${ctx.base}/me/balance?at=${encodeURIComponent(at)}`,
        headers: { authorization: `Bearer ${await longHistoryUser(ctx)}` },
      };
    },
  },
  paidOrderScenario,
  {
    name: 'POST /oauth/token (ES256)',
    connections: WRITE_CONNECTIONS,
    prepare: async (ctx) => {
      const t = await tenant(ctx);
      return {
        url: `${ctx.base}/oauth/token`,
        method: 'POST',
        headers: { ...form, authorization: basic(t.clientId, t.clientSecret) },
        body: 'grant_type=client_credentials',
      };
    },
  },
  {
    name: 'POST /oauth/token (ES256, DPoP-bound)',
    connections: WRITE_CONNECTIONS,
    prepare: async (ctx) => {
      const t = await tenant(ctx);
      const htu = `${await issuerOf(ctx)}/oauth/token`;
      return {
        url: `${ctx.base}/oauth/token`,
        method: 'POST',
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              headers: { ...form, authorization: basic(t.clientId, t.clientSecret), dpop: dpopProof('POST', htu) },
              body: 'grant_type=client_credentials',
            }),
          },
        ],
      };
    },
  },
  {
    name: 'oidc-provider POST /token (ES256, comparison)',
    connections: WRITE_CONNECTIONS,
    prepare: async (ctx) => {
      if (ctx.oidcBase === null) return null;
      const headers = { ...form, authorization: basic(OIDC_CLIENT.id, OIDC_CLIENT.secret) };
      const sample = await post(`${ctx.oidcBase}/token`, headers, 'grant_type=client_credentials');
      const header = JSON.parse(Buffer.from(String(sample.access_token).split('.')[0]!, 'base64url').toString()) as { alg?: string };
      if (header.alg !== 'ES256') throw new Error(`oidc-provider did not issue an ES256 JWT: ${JSON.stringify(sample)}`);
      return { url: `${ctx.oidcBase}/token`, method: 'POST', headers, body: 'grant_type=client_credentials' };
    },
  },
  {
    name: 'POST /me/payments (200 funded users, Idempotency-Key)',
    connections: WRITE_CONNECTIONS,
    prepare: async (ctx) => {
      const { userTokens, machine } = await walletTenant(ctx);
      await subscribe(ctx, '/webhook-endpoints', { authorization: `Bearer ${machine}` }, ['transaction.created', 'wallet_user.created']);
      let n = 0;
      return {
        url: `${ctx.base}/me/payments`,
        method: 'POST',
        requests: [
          {
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
    name: 'GET /transactions (machine token, page of 20)',
    prepare: async (ctx) => {
      const { machine } = await walletTenant(ctx);
      // The table was filled seconds ago; autovacuum would analyze it within a minute. Without
      // statistics the planner sorts every row of the tenant instead of reading the listing index.
      await withService(ctx, (s) => s.db!.knex.raw('ANALYZE ledger_transactions'));
      return { url: `${ctx.base}/transactions?limit=20`, headers: { authorization: `Bearer ${machine}` } };
    },
  },
  {
    name: 'GET /api/v1/express-bus/cities (public)',
    prepare: async (ctx) => ({ url: `${ctx.base}/api/v1/express-bus/cities?q=ba` }),
  },
];
