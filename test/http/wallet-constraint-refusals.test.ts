import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { ambient, KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { openService, type Service } from '../../src/bootstrap/service.js';
import { accountId } from '../../src/domain/wallet/ledger.js';
import type { NewPayment, NewRefund, NewTopUp, NewTransfer } from '../../src/domain/wallet/ledger.port.js';
import type { Transaction } from '../../src/domain/wallet/transaction.js';
import { json, silentLog, testConfig } from '../support/app.js';
import { unique } from '../support/builders.js';
import { testDatabase } from '../support/database.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';

/**
 * A ledger that writes past the domain's checks, straight into the tables, so that the
 * database's constraints are what refuses: each write breaks one kind of constraint. Each write
 * is still one transaction, as the ledger port promises: a unit of work of its own.
 */
class LedgerPastTheRules extends KnexLedger {
  private readonly units: KnexUnitOfWork;

  constructor(private readonly base: Knex) {
    super(base);
    this.units = new KnexUnitOfWork(base);
  }

  /** Writes in the running unit of work, as every store does. */
  private get db(): Knex {
    return ambient(this.base);
  }

  /** A top-up referenced `duplicate-…` whose transaction id is already taken: the primary key refuses it (23505). */
  override topUp(e: NewTopUp): Promise<Transaction> {
    return this.units.run(async () => {
      const first = await super.topUp(e);
      if (e.reference.startsWith('duplicate-')) await this.insertTransaction(e.id, e.tenantId, e.userId, e.amount.amount);
      return first;
    });
  }

  /** A payment that skips the checked debit: the CHECK on the balance refuses it (23514). */
  override pay(e: NewPayment): Promise<Transaction> {
    return this.units.run(async () => {
      await this.db('ledger_accounts')
        .where({ id: accountId(e.tenantId, { kind: 'USER', userId: e.userId }) })
        .update({ balance: this.db.raw('balance - ?', [e.amount.amount]) });
      throw new Error('the balance CHECK let an overdraft through');
    });
  }

  /** A transfer of nothing: the transaction's CHECK refuses it (23514). */
  override transfer(e: NewTransfer): Promise<Transaction> {
    return this.units.run(async () => {
      await this.insertTransaction(e.id, e.tenantId, e.userId, 0);
      throw new Error('the transaction CHECK let an amount of 0 through');
    });
  }

  /** A refund entry on an account that does not exist: the foreign key refuses it (23503). */
  override async refund(e: NewRefund): Promise<Transaction> {
    await this.db.transaction(async (trx) => {
      await trx('ledger_entries').insert({
        transaction_id: e.paymentId,
        account_id: `${e.tenantId}:nowhere`,
        amount: 1,
        created_at: new Date(),
      });
    });
    throw new Error('the foreign key let an entry on a missing account through');
  }

  private async insertTransaction(id: string, tenantId: string, userId: string, amount: number): Promise<void> {
    await this.db('ledger_transactions').insert({
      id,
      tenant_id: tenantId,
      type: 'TOP_UP',
      amount,
      currency: 'THB',
      user_id: userId,
      initiator_kind: 'machine',
      initiator_client_id: 'cli_test',
      created_at: new Date(),
    });
  }
}

describe('wallet writes a database constraint refuses', () => {
  let service: Service;
  let server: http.Server;
  let base: string;
  before(async () => {
    const db = await testDatabase();
    const past = new LedgerPastTheRules(db.knex);
    service = await openService(testConfig(), silentLog, { db, ports: { ledger: past, transactions: past } });
    server = http.createServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.close();
  });

  const problem = async (res: Response): Promise<{ status: number; reason: string; body: string }> => {
    const body = await res.text();
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    return { status: res.status, reason: (JSON.parse(body) as { reason: string }).reason, body };
  };

  it('when a CHECK, unique key or foreign key refuses a write, then 4xx with a reason, never 500, and no SQL in the answer', async () => {
    const app = { url: base, service, request: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init), stop: async () => {} };
    const machine = await machineToken(app, await buildTenant(service));
    const user = await delegatedToken(app, machine);
    const request = (path: string, body: unknown, token: string) => fetch(`${base}${path}`, json('POST', body, bearer(token)));

    expect((await request(`/users/${user.userId}/top-ups`, { amount: 100, reference: `top-${unique()}` }, machine)).status).to.equal(201);
    const duplicate = await problem(
      await request(`/users/${user.userId}/top-ups`, { amount: 100, reference: `duplicate-${unique()}` }, machine),
    );
    expect([duplicate.status, duplicate.reason]).to.deep.equal([409, 'conflict']);

    const overdraft = await problem(await request('/me/payments', { amount: 500, reference: `order-${unique()}` }, user.token));
    expect([overdraft.status, overdraft.reason]).to.deep.equal([422, 'insufficient-funds']);
    const balance = (await (await fetch(`${base}/me/balance`, { headers: bearer(user.token) })).json()) as {
      available: { amount: number };
    };
    // Neither refused write left anything: the duplicate top-up's first insert went with it.
    expect(balance.available.amount).to.equal(100);

    const other = await delegatedToken(app, machine);
    const nothing = await problem(await request('/me/transfers', { toUserId: other.userId, amount: 10 }, user.token));
    // A CHECK other than the balance's: invalid-request, which answers 400 wherever it is given.
    expect([nothing.status, nothing.reason]).to.deep.equal([400, 'invalid-request']);

    const missing = await problem(await request(`/transactions/txn_${unique()}/refunds`, {}, machine));
    expect([missing.status, missing.reason]).to.deep.equal([409, 'conflict']);

    for (const answer of [duplicate, overdraft, nothing, missing]) {
      expect(answer.body).to.not.match(/ledger_|constraint|violat|INSERT|UPDATE/i);
    }
  });
});
