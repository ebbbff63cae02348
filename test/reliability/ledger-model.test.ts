import { expect } from 'chai';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { databaseKind } from '../support/database.js';
import { assertLedgerBalanced } from '../support/ledger-balance.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';

/**
 * A model-based test of the wallet's ledger over HTTP. fast-check generates sequences of top-ups,
 * payments, transfers, refunds (whole and partial) and replays of earlier requests with their
 * Idempotency-Key; each runs against the real app on the test database and against a plain
 * in-memory model, which says what every request must answer. After every run the balances read
 * over HTTP and stored in the database equal the model's, and the ledger's invariants hold.
 * The concurrent variant sends batches at once and checks what must hold whatever the
 * interleaving. LEDGER_MODEL_RUNS sets the number of runs of each (default 12).
 */
const RUNS = Number(process.env.LEDGER_MODEL_RUNS ?? 12);
const USERS = 3;

/** A request as sent: enough to send it again, byte for byte, and to predict its answer. */
interface Sent {
  readonly kind: 'top-up' | 'payment' | 'transfer' | 'refund';
  readonly key: string;
  readonly path: string;
  readonly token: string;
  readonly body: Record<string, unknown>;
  readonly user: number;
  readonly to: number | null;
  readonly amount: number | null;
  /** For a refund: the index of the refunded payment in the model. */
  readonly payment: number | null;
}

interface Payment {
  readonly id: string;
  readonly user: number;
  readonly amount: number;
  refunded: number;
}

/** The plain model: each user's balance, the payments, every request sent and the keys that applied. */
interface Model {
  balances: number[];
  payments: Payment[];
  sent: Sent[];
  /** Idempotency key → id of the transaction it recorded. */
  applied: Map<string, string>;
}

interface Real {
  app: TestApp;
  tenantId: string;
  machine: string;
  users: Array<{ token: string; userId: string }>;
}

interface Answer {
  readonly status: number;
  readonly reason?: string;
  /** How much the transaction moves (a whole refund moves what remained). */
  readonly amount?: number;
}

interface TxnBody {
  id: string;
  type: string;
  amount: { amount: number };
  userId: string;
  counterpartyUserId: string | null;
  refundOf: string | null;
}

/** What the service must answer to `s` in the state `m`, as a fresh (not replayed) request. */
function predict(m: Model, s: Sent): Answer {
  switch (s.kind) {
    case 'top-up':
      return { status: 201, amount: s.amount! };
    case 'payment':
    case 'transfer':
      return m.balances[s.user]! >= s.amount! ? { status: 201, amount: s.amount! } : { status: 422, reason: 'insufficient-funds' };
    case 'refund': {
      const p = m.payments[s.payment!]!;
      const remaining = p.amount - p.refunded;
      const wanted = s.amount ?? remaining;
      return wanted > 0 && wanted <= remaining ? { status: 201, amount: wanted } : { status: 422, reason: 'refund-exceeds-payment' };
    }
  }
}

/** Moves the model's money as an applied `s` of `amount` does. */
function apply(m: Model, s: Sent, amount: number, txnId: string): void {
  switch (s.kind) {
    case 'top-up':
      m.balances[s.user]! += amount;
      break;
    case 'payment':
      m.balances[s.user]! -= amount;
      m.payments.push({ id: txnId, user: s.user, amount, refunded: 0 });
      break;
    case 'transfer':
      m.balances[s.user]! -= amount;
      m.balances[s.to!]! += amount;
      break;
    case 'refund': {
      const p = m.payments[s.payment!]!;
      p.refunded += amount;
      m.balances[p.user]! += amount;
      break;
    }
  }
  m.applied.set(s.key, txnId);
}

const send = (real: Real, s: Sent): Promise<Response> =>
  real.app.request(s.path, json('POST', s.body, { ...bearer(s.token), 'idempotency-key': s.key }));

const TYPE_OF = { 'top-up': 'TOP_UP', payment: 'PAYMENT', transfer: 'TRANSFER', refund: 'REFUND' } as const;

/** Sends `s`, checks the answer against the model (a replay when its key already applied) and updates the model. */
async function runAgainstModel(m: Model, real: Real, s: Sent, replay: boolean): Promise<void> {
  const res = await send(real, s);
  const text = await res.text();
  const where = `${s.kind} ${JSON.stringify(s.body)} key ${s.key}${replay ? ' (replay)' : ''} -> ${res.status} ${text.slice(0, 200)}`;
  const earlier = m.applied.get(s.key);
  if (earlier !== undefined) {
    expect(res.status, where).to.equal(201);
    expect(res.headers.get('idempotent-replayed'), where).to.equal('true');
    expect((JSON.parse(text) as TxnBody).id, where).to.equal(earlier);
    return;
  }
  const expected = predict(m, s);
  expect(res.status, where).to.equal(expected.status);
  expect(res.headers.get('idempotent-replayed'), where).to.equal(null);
  if (expected.status !== 201) {
    expect((JSON.parse(text) as { reason: string }).reason, where).to.equal(expected.reason);
    return;
  }
  const txn = JSON.parse(text) as TxnBody;
  expect(txn.type, where).to.equal(TYPE_OF[s.kind]);
  expect(txn.amount.amount, where).to.equal(expected.amount);
  const payer = s.kind === 'refund' ? m.payments[s.payment!]!.user : s.user;
  expect(txn.userId, where).to.equal(real.users[payer]!.userId);
  if (s.kind === 'refund') expect(txn.refundOf, where).to.equal(m.payments[s.payment!]!.id);
  apply(m, s, expected.amount!, txn.id);
}

/** The generated part of each kind of request; indexes into the model's lists are taken modulo their length. */
type Op =
  | { readonly kind: 'top-up' | 'payment'; readonly user: number; readonly amount: number }
  | { readonly kind: 'transfer'; readonly user: number; readonly to: number; readonly amount: number }
  | { readonly kind: 'refund'; readonly payment: number; readonly amount: number | null }
  | { readonly kind: 'replay'; readonly pick: number };

const user = fc.nat({ max: USERS - 1 });
// Round amounts often, so balances and what remains of payments hit exactly zero (the boundaries).
const amount = fc.oneof(fc.constantFrom(100, 200, 500, 1_000), fc.integer({ min: 1, max: 3_000 }));
const opArbs = {
  topUp: fc.record({ kind: fc.constant('top-up' as const), user, amount }),
  payment: fc.record({ kind: fc.constant('payment' as const), user, amount }),
  // `to` is an offset from the sender, so a transfer never goes to oneself.
  transfer: fc.record({ kind: fc.constant('transfer' as const), user, to: fc.integer({ min: 1, max: USERS - 1 }), amount }),
  refund: fc.record({ kind: fc.constant('refund' as const), payment: fc.nat(), amount: fc.option(amount, { nil: null }) }),
  replay: fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }),
};

/** Turns a generated operation into a request, given what exists so far; null when it needs what is not there yet. */
function resolve(op: Op, real: Real, payments: readonly { id: string }[], sent: readonly Sent[]): Sent | null {
  const key = `model-${unique()}-${unique()}`;
  switch (op.kind) {
    case 'top-up': {
      const u = real.users[op.user]!;
      return {
        kind: op.kind,
        key,
        path: `/users/${u.userId}/top-ups`,
        token: real.machine,
        body: { amount: op.amount, reference: `top-${key}` },
        user: op.user,
        to: null,
        amount: op.amount,
        payment: null,
      };
    }
    case 'payment':
      return {
        kind: op.kind,
        key,
        path: '/me/payments',
        token: real.users[op.user]!.token,
        body: { amount: op.amount, reference: `order-${key}` },
        user: op.user,
        to: null,
        amount: op.amount,
        payment: null,
      };
    case 'transfer': {
      const to = (op.user + op.to) % USERS;
      return {
        kind: op.kind,
        key,
        path: '/me/transfers',
        token: real.users[op.user]!.token,
        body: { toUserId: real.users[to]!.userId, amount: op.amount },
        user: op.user,
        to,
        amount: op.amount,
        payment: null,
      };
    }
    case 'refund': {
      if (payments.length === 0) return null;
      const payment = op.payment % payments.length;
      return {
        kind: op.kind,
        key,
        path: `/transactions/${payments[payment]!.id}/refunds`,
        token: real.machine,
        body: op.amount === null ? {} : { amount: op.amount },
        user: -1,
        to: null,
        amount: op.amount,
        payment,
      };
    }
    case 'replay':
      return sent.length === 0 ? null : sent[op.pick % sent.length]!;
  }
}

class LedgerCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly op: Op) {}
  check(m: Readonly<Model>): boolean {
    if (this.op.kind === 'refund') return m.payments.length > 0;
    if (this.op.kind === 'replay') return m.sent.length > 0;
    return true;
  }
  async run(m: Model, real: Real): Promise<void> {
    const s = resolve(this.op, real, m.payments, m.sent)!;
    await runAgainstModel(m, real, s, this.op.kind === 'replay');
    if (this.op.kind !== 'replay') m.sent.push(s);
  }
  toString(): string {
    return JSON.stringify(this.op);
  }
}

const commandArbs = Object.values(opArbs).map((arb) => (arb as fc.Arbitrary<Op>).map((op) => new LedgerCommand(op)));

/** A fresh tenant with USERS wallet users, so each run starts from zero balances. */
async function freshReal(app: TestApp): Promise<Real> {
  const tenant = await buildTenant(app.service);
  const machine = await machineToken(app, tenant);
  const users = [];
  for (let i = 0; i < USERS; i++) users.push(await delegatedToken(app, machine));
  return { app, tenantId: tenant.tenantId, machine, users };
}

const httpBalance = async (real: Real, i: number): Promise<number> => {
  const res = await real.app.request('/me/balance', { headers: bearer(real.users[i]!.token) });
  expect(res.status).to.equal(200);
  return ((await res.json()) as { available: { amount: number } }).available.amount;
};

const storedBalances = async (knex: Knex, real: Real): Promise<number[]> => {
  const rows = (await knex('ledger_accounts').where({ tenant_id: real.tenantId, kind: 'USER' }).select('user_id', 'balance')) as Array<{
    user_id: string;
    balance: string | number;
  }>;
  const byUser = new Map(rows.map((r) => [r.user_id, Number(r.balance)]));
  return real.users.map((u) => byUser.get(u.userId) ?? 0);
};

/** The tenant's stored transactions, each with the Idempotency-Key whose stored answer names it (its Location). */
const storedTransactions = async (knex: Knex, real: Real) =>
  (
    await knex.raw(
      `SELECT t.id, t.type, t.amount, k.key AS idempotency_key FROM ledger_transactions t
       LEFT JOIN idempotency_keys k ON k.state = 'DONE' AND k.headers->>'location' LIKE '%/transactions/' || t.id
       WHERE t.tenant_id = ?`,
      [real.tenantId],
    )
  ).rows as Array<{
    id: string;
    type: string;
    amount: string | number;
    idempotency_key: string | null;
  }>;

describe('the ledger against a model (fast-check command sequences over HTTP)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let knex: Knex;
  before(async () => {
    app = await startTestApp();
    knex = app.service.db!.knex;
  });
  after(() => app.stop());

  it('when random top-ups, payments, transfers, refunds and replays run one after another, then every answer, balance and stored sum is the model’s', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 30 }), async (cmds) => {
        let real: Real | null = null;
        let model: Model | null = null;
        await fc.asyncModelRun(async () => {
          real = await freshReal(app);
          model = { balances: Array.from({ length: USERS }, () => 0), payments: [], sent: [], applied: new Map() };
          return { model, real };
        }, cmds);
        const r = real!;
        const m = model!;
        for (let i = 0; i < USERS; i++) expect(await httpBalance(r, i), `balance of user ${i} over HTTP`).to.equal(m.balances[i]);
        expect(await storedBalances(knex, r), 'stored balances').to.deep.equal(m.balances);
        // Exactly the transactions the model applied are stored, each key once.
        const stored = await storedTransactions(knex, r);
        expect(stored.map((t) => t.id).sort()).to.deep.equal([...m.applied.values()].sort());
        expect(new Map(stored.map((t) => [t.idempotency_key, t.id]))).to.deep.equal(m.applied);
        // Money is conserved: what users hold is what came in, less what was paid, plus refunds.
        const sum = (type: string) => stored.filter((t) => t.type === type).reduce((n, t) => n + Number(t.amount), 0);
        expect(m.balances.reduce((a, b) => a + b, 0)).to.equal(sum('TOP_UP') - sum('PAYMENT') + sum('REFUND'));
        await assertLedgerBalanced(knex);
      }),
      { numRuns: RUNS },
    );
  });

  it('when batches of the same requests run at once, then whatever the interleaving money is conserved, no balance is negative and each key applies at most once', async function () {
    if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite has one connection: requests cannot interleave in the database
    const anyOp = fc.oneof(
      opArbs.topUp,
      opArbs.payment,
      opArbs.payment,
      opArbs.transfer,
      opArbs.transfer,
      opArbs.refund,
      opArbs.replay,
    ) as fc.Arbitrary<Op>;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(anyOp, { minLength: 2, maxLength: 10 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const real = await freshReal(app);
        const sent: Sent[] = [];
        const payments: Array<{ id: string; amount: number }> = [];
        /** Every acknowledged transaction, by id; and the ids each key was answered with. */
        const acked = new Map<string, TxnBody>();
        const idsOfKey = new Map<string, Set<string>>();
        for (const batch of batches) {
          // Replays may pick a request of the same batch: the original and its retry then race.
          const requests: Sent[] = [];
          for (const op of batch) {
            const s = resolve(op, real, payments, [...sent, ...requests]);
            if (s !== null) requests.push(s);
          }
          for (const s of requests) if (!sent.includes(s)) sent.push(s);
          const answers = await Promise.all(requests.map(async (s) => ({ s, res: await send(real, s) })));
          for (const { s, res } of answers) {
            const text = await res.text();
            const where = `${s.kind} ${JSON.stringify(s.body)} key ${s.key} -> ${res.status} ${text.slice(0, 200)}`;
            if (res.status === 201) {
              const txn = JSON.parse(text) as TxnBody;
              acked.set(txn.id, txn);
              idsOfKey.set(s.key, (idsOfKey.get(s.key) ?? new Set()).add(txn.id));
              if (txn.type === 'PAYMENT' && !payments.some((p) => p.id === txn.id))
                payments.push({ id: txn.id, amount: txn.amount.amount });
            } else {
              const reason = (JSON.parse(text) as { reason: string }).reason;
              const allowed = [s.kind === 'refund' ? '422 refund-exceeds-payment' : '422 insufficient-funds'];
              // Only a key sent twice in one batch may find its first request still running.
              if (requests.filter((r) => r.key === s.key).length > 1) allowed.push('409 idempotency-key-in-use');
              expect(allowed, where).to.include(`${res.status} ${reason}`);
            }
          }
        }
        // Each key applied at most once: every 201 for a key names one transaction, stored once.
        for (const [key, ids] of idsOfKey) expect(ids.size, `transactions answered for key ${key}`).to.equal(1);
        const stored = await storedTransactions(knex, real);
        const keys = stored.map((t) => t.idempotency_key);
        expect(new Set(keys).size, 'stored keys').to.equal(keys.length);
        // A 2xx means committed, and nothing was committed that was not acknowledged.
        expect(stored.map((t) => t.id).sort()).to.deep.equal([...acked.keys()].sort());
        // Each user's balance is what the acknowledged transactions give, and never negative.
        const expected = new Map(real.users.map((u) => [u.userId, 0]));
        const move = (userId: string | null, by: number) => {
          if (userId !== null) expected.set(userId, expected.get(userId)! + by);
        };
        const refunded = new Map<string, number>();
        for (const t of acked.values()) {
          const n = t.amount.amount;
          if (t.type === 'TOP_UP' || t.type === 'REFUND') move(t.userId, n);
          if (t.type === 'PAYMENT') move(t.userId, -n);
          if (t.type === 'TRANSFER') {
            move(t.userId, -n);
            move(t.counterpartyUserId, n);
          }
          if (t.refundOf !== null) refunded.set(t.refundOf, (refunded.get(t.refundOf) ?? 0) + n);
        }
        const balances = [];
        for (let i = 0; i < USERS; i++) balances.push(await httpBalance(real, i));
        expect(balances).to.deep.equal(real.users.map((u) => expected.get(u.userId)));
        expect(await storedBalances(knex, real)).to.deep.equal(balances);
        for (const b of balances) expect(b).to.be.at.least(0);
        const total = (type: string) => [...acked.values()].filter((t) => t.type === type).reduce((n, t) => n + t.amount.amount, 0);
        expect(
          balances.reduce((a, b) => a + b, 0),
          'money conserved',
        ).to.equal(total('TOP_UP') - total('PAYMENT') + total('REFUND'));
        for (const p of payments) expect(refunded.get(p.id) ?? 0, `refunds of ${p.id}`).to.be.at.most(p.amount);
        await assertLedgerBalanced(knex);
      }),
      { numRuns: Math.max(1, Math.ceil(RUNS / 2)) },
    );
  });
});
