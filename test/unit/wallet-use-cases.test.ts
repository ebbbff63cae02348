import { expect } from 'chai';
import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { MemoryPendingTransfers } from '../../src/adapters/memory/pending-transfers.memory.js';
import { GetTransaction } from '../../src/application/wallet/get-transaction.js';
import { ListTransactions } from '../../src/application/wallet/list-transactions.js';
import { SummarizeTransactions } from '../../src/application/wallet/summarize-transactions.js';
import { GetMyBalance } from '../../src/application/wallet/get-my-balance.js';
import { GetUserBalances } from '../../src/application/wallet/get-user-balances.js';
import { MakePayment } from '../../src/application/wallet/make-payment.js';
import { MakeTransfer } from '../../src/application/wallet/make-transfer.js';
import { RefundPayment } from '../../src/application/wallet/refund-payment.js';
import { TopUp } from '../../src/application/wallet/top-up.js';
import type { MachinePrincipal, WalletUserPrincipal } from '../../src/domain/identity/principal.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import type { WalletHolders } from '../../src/domain/wallet/wallet-holders.port.js';
import { assertMemoryLedgerBalanced } from '../support/ledger-balance.js';

const reasonOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    return err instanceof DomainError ? err.reason : String(err);
  }
};

describe('wallet use cases (in memory)', () => {
  let ledger: MemoryLedger;
  let n = 0;
  const holders: WalletHolders = {
    currencyOf: async (tenantId) => ({ tnt_A: 'THB', tnt_B: 'JPY' })[tenantId] ?? null,
    isHolder: async (tenantId, userId) => (tenantId === 'tnt_A' ? ['usr_a', 'usr_b', 'usr_c'] : ['usr_x']).includes(userId),
  };
  const ids = { next: (p: string) => `${p}_${String(++n).padStart(8, '0')}` };
  let now = Date.parse('2026-05-01T00:00:00.000Z');
  const clock = { now: () => new Date((now += 1000)) };
  const machine: MachinePrincipal = { kind: 'machine', tenantId: 'tnt_A', clientId: 'cli_A' };
  const otherMachine: MachinePrincipal = { kind: 'machine', tenantId: 'tnt_B', clientId: 'cli_B' };
  const user = (userId: string): WalletUserPrincipal => ({
    kind: 'user',
    tenantId: 'tnt_A',
    userId,
    amr: ['pwd'],
    act: null,
    clientId: 'cli_A',
  });

  let topUp: TopUp;
  let pay: MakePayment;
  let transfer: MakeTransfer;
  let refund: RefundPayment;
  beforeEach(() => {
    ledger = new MemoryLedger();
    topUp = new TopUp(ledger, holders, ids, clock);
    pay = new MakePayment(ledger, holders, ids, clock);
    transfer = new MakeTransfer(ledger, holders, ids, clock);
    refund = new RefundPayment(ledger, holders, ids, clock);
  });
  afterEach(() => assertMemoryLedgerBalanced(ledger));

  it('when a tenant tops up a user of another tenant or an unknown one, then user-not-found and nothing moves', async () => {
    expect(await reasonOf(topUp.execute({ principal: machine, userId: 'usr_x', amount: 100, reference: 'r' }))).to.equal('user-not-found');
    expect(await reasonOf(topUp.execute({ principal: otherMachine, userId: 'usr_a', amount: 100, reference: 'r' }))).to.equal(
      'user-not-found',
    );
    expect(ledger.allTransactions()).to.have.length(0);
  });

  it('when an amount is in another currency, then currency-mismatch', async () => {
    expect(
      await reasonOf(
        topUp.execute({
          principal: machine,
          userId: 'usr_a',
          amount: { amount: 100, currency: 'JPY' },
          reference: 'r',
        }),
      ),
    ).to.equal('currency-mismatch');
  });

  it('when a user transfers to another tenant’s user or to themselves, then user-not-found or same-user-transfer', async () => {
    await topUp.execute({ principal: machine, userId: 'usr_a', amount: 100, reference: 'r' });
    expect(await reasonOf(transfer.execute({ principal: user('usr_a'), toUserId: 'usr_x', amount: 10, note: null }))).to.equal(
      'user-not-found',
    );
    expect(await reasonOf(transfer.execute({ principal: user('usr_a'), toUserId: 'usr_a', amount: 10, note: null }))).to.equal(
      'same-user-transfer',
    );
    await transfer.execute({ principal: user('usr_a'), toUserId: 'usr_b', amount: 10, note: 'hi' });
    const ten = { amount: 10, currency: 'THB' };
    expect(await new GetMyBalance(ledger, new MemoryPendingTransfers(ledger), holders, clock).execute(user('usr_b'))).to.deep.equal({
      available: ten,
      held: { amount: 0, currency: 'THB' },
      ledger: ten,
    });
    const balances = await new GetUserBalances(ledger, holders).execute(machine, ['usr_a', 'usr_c']);
    expect(Object.fromEntries(balances)).to.deep.equal({ usr_a: { amount: 90, currency: 'THB' }, usr_c: { amount: 0, currency: 'THB' } });
  });

  it('when a user lists with another user id, then they still get only their own, page after page', async () => {
    await topUp.execute({ principal: machine, userId: 'usr_a', amount: 1_000, reference: 'r' });
    await topUp.execute({ principal: machine, userId: 'usr_c', amount: 1_000, reference: 'r' });
    for (let i = 0; i < 3; i++) await pay.execute({ principal: user('usr_a'), amount: 10, reference: `p${i}`, description: null });
    await pay.execute({ principal: user('usr_c'), amount: 10, reference: 'c', description: null });
    const list = new ListTransactions(ledger);
    const p1 = await list.execute(user('usr_a'), { userId: 'usr_c', limit: 2 });
    expect(p1.data.map((t) => t.userId)).to.deep.equal(['usr_a', 'usr_a']);
    expect(p1.nextCursor).to.be.a('string');
    const p2 = await list.execute(user('usr_a'), { userId: 'usr_c', limit: 2, cursor: p1.nextCursor });
    expect(p2.data.map((t) => t.type)).to.deep.equal(['PAYMENT', 'TOP_UP']);
    expect(p2.nextCursor).to.equal(null);
    const summary = await new SummarizeTransactions(ledger).execute(user('usr_a'), { userId: 'usr_c' });
    expect(summary.byType.find((r) => r.type === 'PAYMENT')).to.deep.equal({ type: 'PAYMENT', count: 3, total: 30 });
    const cPayment = (await list.execute(machine, { userId: 'usr_c', types: ['PAYMENT'] })).data[0]!;
    expect(await reasonOf(new GetTransaction(ledger).execute(user('usr_a'), cPayment.id))).to.equal('transaction-not-found');
    expect(await reasonOf(new GetTransaction(ledger).execute(otherMachine, cPayment.id))).to.equal('transaction-not-found');
    expect(await reasonOf(list.execute(machine, { cursor: 'not-a-cursor' }))).to.equal('invalid-request');
    expect(await reasonOf(list.execute(machine, { from: new Date('2026-02-01'), to: new Date('2026-01-01') }))).to.equal('invalid-request');
  });

  it('when a tenant refunds a payment, then the refund is bounded and recorded with the machine as initiator', async () => {
    await topUp.execute({ principal: machine, userId: 'usr_a', amount: 500, reference: 'r' });
    const p = await pay.execute({ principal: user('usr_a'), amount: 300, reference: 'order-1', description: null });
    const r = await refund.execute({ principal: machine, transactionId: p.id, amount: 100 });
    expect(r.initiatedBy.kind).to.equal('machine');
    expect(await reasonOf(refund.execute({ principal: machine, transactionId: p.id, amount: 201 }))).to.equal('refund-exceeds-payment');
    expect(await reasonOf(refund.execute({ principal: otherMachine, transactionId: p.id, amount: null }))).to.equal(
      'transaction-not-found',
    );
  });
});
