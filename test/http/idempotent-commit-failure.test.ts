import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { GroupCommitLedger } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import type { OneStatementWrites } from '../../src/application/one-statement-writes.port.js';
import { openService, type Service } from '../../src/bootstrap/service.js';
import type { IdempotencyRequest, StoredResponse } from '../../src/domain/shared/idempotency.port.js';
import { json, silentLog, testConfig } from '../support/app.js';
import { unique } from '../support/builders.js';
import { testDatabase } from '../support/database.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';

/** The error a write meets when PostgreSQL goes away under it (as when it restarts under load). */
const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });

/**
 * The connection of a keyed write in a unit of work dies at its very end: after the ledger write
 * and the stored answer, before the commit. Nothing was written, so the caller must not be told it was.
 */
class StoreLosingTheCommit extends KnexIdempotencyStore {
  failing = new Set<string>();

  override async complete(r: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void> {
    await super.complete(r, response, now);
    if (this.failing.delete(r.key)) {
      throw connectionLost();
    }
  }
}

/**
 * One-statement writes whose statement fails for the keys in `failing`, as when the connection dies
 * while it commits: nothing of it is written.
 */
const losingTheStatement = (real: OneStatementWrites, failing: Set<string>): OneStatementWrites => ({
  prepare: async (work) => {
    const prepared = await real.prepare(work);
    const write = prepared.write;
    if (write === null) return prepared;
    return {
      value: prepared.value,
      write: {
        commitWith: async (request, response, times) => {
          if (failing.delete(request.key)) throw connectionLost();
          return write.commitWith(request, response, times);
        },
      },
    };
  },
});

describe('a keyed write whose commit fails', () => {
  let service: Service;
  let server: http.Server;
  let base: string;
  let store: StoreLosingTheCommit;
  const failingStatements = new Set<string>();
  before(async () => {
    const db = await testDatabase();
    store = new StoreLosingTheCommit(db.knex);
    const reader = new KnexLedger(db.knex);
    const ledger = new GroupCommitLedger(reader, db.knex);
    const oneStatementWrites = losingTheStatement(ledger.oneStatementWrites(), failingStatements);
    service = await openService(testConfig(), silentLog, {
      db,
      ports: { idempotency: store, ledger, transactions: reader, oneStatementWrites },
    });
    server = http.createServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.close();
  });

  const wallet = async () => {
    const app = { url: base, service, request: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init), stop: async () => {} };
    const machine = await machineToken(app, await buildTenant(service));
    const user = await delegatedToken(app, machine);
    const topUp = await app.request(
      `/users/${user.userId}/top-ups`,
      json('POST', { amount: 10_000, reference: `t-${unique()}` }, bearer(machine)),
    );
    expect(topUp.status).to.equal(201);
    const balance = async (): Promise<number> =>
      ((await (await app.request('/me/balance', { headers: bearer(user.token) })).json()) as { available: { amount: number } }).available
        .amount;
    return { app, machine, user, balance };
  };

  it('when the statement of a keyed payment fails, then 503 rather than 201, no money moved, and the retry pays once', async () => {
    const { app, user, balance } = await wallet();
    const before = await balance();
    const key = `pay-${unique()}`;
    const pay = () =>
      app.request('/me/payments', json('POST', { amount: 2_500, reference: 'ORDER-1' }, { ...bearer(user.token), 'idempotency-key': key }));
    failingStatements.add(key);
    const failed = await pay();
    expect(failed.status).to.equal(503);
    expect(failed.headers.get('location')).to.equal(null);
    expect(await balance()).to.equal(before);

    // Nothing was recorded under the key either: the retry runs, and a further one replays it.
    const retried = await pay();
    expect(retried.status).to.equal(201);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    const replayed = await pay();
    expect(replayed.status).to.equal(201);
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(((await replayed.json()) as { id: string }).id).to.equal(((await retried.json()) as { id: string }).id);
    expect(await balance()).to.equal(before - 2_500);
  });

  it('when the commit of a keyed refund fails, then 503 rather than 201, nothing refunded, and the retry refunds once', async () => {
    const { app, machine, user, balance } = await wallet();
    const paid = await app.request('/me/payments', json('POST', { amount: 2_500, reference: 'ORDER-2' }, bearer(user.token)));
    expect(paid.status).to.equal(201);
    const { id } = (await paid.json()) as { id: string };
    const before = await balance();
    const key = `refund-${unique()}`;
    const refund = () => app.request(`/transactions/${id}/refunds`, json('POST', {}, { ...bearer(machine), 'idempotency-key': key }));
    store.failing.add(key);
    const failed = await refund();
    expect(failed.status).to.equal(503);
    expect(failed.headers.get('location')).to.equal(null);
    expect(await balance()).to.equal(before);

    const retried = await refund();
    expect(retried.status).to.equal(201);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    const replayed = await refund();
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(await balance()).to.equal(before + 2_500);
  });
});
