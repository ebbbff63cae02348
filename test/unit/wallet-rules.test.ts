import { expect } from 'chai';
import type { MachinePrincipal, WalletUserPrincipal } from '../../src/domain/identity/principal.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import {
  MAX_TRANSACTION_AMOUNT,
  accountId,
  amountIn,
  idempotencyScopeOf,
  inLockOrder,
  initiatorOf,
  postingsOf,
  refundableAmount,
  shardOf,
  TENANT_ACCOUNT_SHARDS,
} from '../../src/domain/wallet/ledger.js';
import { inScope, transactionScope } from '../../src/domain/wallet/scope.js';
import type { Transaction } from '../../src/domain/wallet/transaction.js';

const machine: MachinePrincipal = { kind: 'machine', tenantId: 'tnt_A', clientId: 'cli_A' };
const alice: WalletUserPrincipal = { kind: 'user', tenantId: 'tnt_A', userId: 'usr_alice', amr: ['pwd'], act: null, clientId: 'cli_A' };
const delegated: WalletUserPrincipal = { ...alice, amr: ['tenant_delegated'], act: { sub: 'cli_A' } };

const reason = (f: () => unknown): string => {
  try {
    f();
    return 'returned';
  } catch (err) {
    return err instanceof DomainError ? err.reason : String(err);
  }
};

describe('wallet transaction scope', () => {
  it('when a machine token reads, then the scope is its whole tenant, narrowed only by the user it asks for', () => {
    expect(transactionScope(machine)).to.deep.equal({ kind: 'tenant', tenantId: 'tnt_A', userId: null });
    expect(transactionScope(machine, 'usr_bob')).to.deep.equal({ kind: 'tenant', tenantId: 'tnt_A', userId: 'usr_bob' });
  });

  it('when a user token asks for another user, then the scope is still exactly the person', () => {
    expect(transactionScope(alice, 'usr_bob')).to.deep.equal({ kind: 'person', tenantId: 'tnt_A', userId: 'usr_alice' });
    expect(transactionScope(delegated, null)).to.deep.equal({ kind: 'person', tenantId: 'tnt_A', userId: 'usr_alice' });
  });

  it('when a transaction is checked against a scope, then tenant and party both have to match', () => {
    const person = transactionScope(alice);
    expect(inScope(person, { tenantId: 'tnt_A', userId: 'usr_alice', counterpartyUserId: null })).to.equal(true);
    expect(inScope(person, { tenantId: 'tnt_A', userId: 'usr_bob', counterpartyUserId: 'usr_alice' })).to.equal(true);
    expect(inScope(person, { tenantId: 'tnt_A', userId: 'usr_bob', counterpartyUserId: 'usr_carol' })).to.equal(false);
    expect(inScope(person, { tenantId: 'tnt_B', userId: 'usr_alice', counterpartyUserId: null })).to.equal(false);
    expect(inScope(transactionScope(machine), { tenantId: 'tnt_B', userId: 'usr_x', counterpartyUserId: null })).to.equal(false);
  });
});

describe('wallet ledger rules', () => {
  it('when any transaction is posted, then its two postings sum to zero and only the funding account goes negative', () => {
    for (const type of ['TOP_UP', 'PAYMENT', 'TRANSFER', 'REFUND'] as const) {
      const postings = postingsOf({
        id: 'txn_1',
        type,
        amount: { amount: 70 },
        userId: 'usr_a',
        counterpartyUserId: type === 'TRANSFER' ? 'usr_b' : null,
        refundOf: type === 'REFUND' ? 'txn_0' : null,
      });
      expect(postings).to.have.length(2);
      expect(postings.reduce((s, p) => s + p.amount, 0)).to.equal(0);
    }
    const [funding] = postingsOf({
      id: 'txn_1',
      type: 'TOP_UP',
      amount: { amount: 5 },
      userId: 'usr_a',
      counterpartyUserId: null,
      refundOf: null,
    });
    expect(funding).to.deep.equal({ account: { kind: 'FUNDING', shard: shardOf('txn_1') }, amount: -5 });
  });

  it('when a payment is refunded, then the refund debits the settlement shard the payment credited', () => {
    for (const paymentId of ['txn_A', 'txn_B', 'txn_C', 'txn_0123456789']) {
      const payment = postingsOf({
        id: paymentId,
        type: 'PAYMENT',
        amount: { amount: 9 },
        userId: 'usr_a',
        counterpartyUserId: null,
        refundOf: null,
      });
      const refund = postingsOf({
        id: `${paymentId}R`,
        type: 'REFUND',
        amount: { amount: 9 },
        userId: 'usr_a',
        counterpartyUserId: null,
        refundOf: paymentId,
      });
      expect(refund.find((p) => p.amount < 0)!.account).to.deep.equal(payment.find((p) => p.amount > 0)!.account);
    }
    const shards = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`txn_${i}`)));
    expect(shards.size).to.equal(TENANT_ACCOUNT_SHARDS);
  });

  it('when two transfers go opposite ways, then both lock the accounts in the same order', () => {
    const ab = inLockOrder(
      'tnt_A',
      postingsOf({ id: 'txn_1', type: 'TRANSFER', amount: { amount: 1 }, userId: 'usr_a', counterpartyUserId: 'usr_b', refundOf: null }),
    );
    const ba = inLockOrder(
      'tnt_A',
      postingsOf({ id: 'txn_2', type: 'TRANSFER', amount: { amount: 1 }, userId: 'usr_b', counterpartyUserId: 'usr_a', refundOf: null }),
    );
    expect(ab.map((p) => accountId('tnt_A', p.account))).to.deep.equal(ba.map((p) => accountId('tnt_A', p.account)));
  });

  it('when an amount is zero, negative, fractional, too large or not a number, then invalid-request', () => {
    for (const bad of [0, -1, 1.5, MAX_TRANSACTION_AMOUNT + 1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(
        reason(() => amountIn(bad, 'THB')),
        String(bad),
      ).to.equal('invalid-request');
    }
    expect(amountIn(MAX_TRANSACTION_AMOUNT, 'THB')).to.deep.equal({ amount: MAX_TRANSACTION_AMOUNT, currency: 'THB' });
  });

  it('when money comes in another currency than the tenant’s, then currency-mismatch; in its own, it is accepted', () => {
    expect(reason(() => amountIn({ amount: 100, currency: 'USD' }, 'THB'))).to.equal('currency-mismatch');
    expect(amountIn({ amount: 100, currency: 'THB' }, 'THB')).to.deep.equal({ amount: 100, currency: 'THB' });
    expect(amountIn(100, 'THB')).to.deep.equal({ amount: 100, currency: 'THB' });
  });

  it('when a refund is asked, then it is bounded by what remains of a payment', () => {
    const payment = { type: 'PAYMENT', amount: { amount: 500, currency: 'THB' }, refundedAmount: 200 } as Transaction;
    expect(refundableAmount(payment, null)).to.equal(300);
    expect(refundableAmount(payment, { amount: 300, currency: 'THB' })).to.equal(300);
    expect(reason(() => refundableAmount(payment, { amount: 301, currency: 'THB' }))).to.equal('refund-exceeds-payment');
    expect(reason(() => refundableAmount({ ...payment, refundedAmount: 500 }, null))).to.equal('refund-exceeds-payment');
    expect(reason(() => refundableAmount({ ...payment, type: 'TOP_UP' }, null))).to.equal('not-refundable');
  });

  it('when a principal initiates, then the record tells a password login from a tenant’s vouching', () => {
    expect(initiatorOf(alice)).to.deep.equal({
      kind: 'user',
      tenantId: 'tnt_A',
      clientId: 'cli_A',
      userId: 'usr_alice',
      amr: ['pwd'],
      act: null,
    });
    expect(initiatorOf(delegated)).to.include({ userId: 'usr_alice' });
    expect(initiatorOf(delegated).act).to.deep.equal({ sub: 'cli_A' });
    expect(initiatorOf(machine)).to.deep.equal({
      kind: 'machine',
      tenantId: 'tnt_A',
      clientId: 'cli_A',
      userId: null,
      amr: null,
      act: null,
    });
    expect(idempotencyScopeOf(initiatorOf(alice))).to.not.equal(idempotencyScopeOf(initiatorOf(machine)));
  });
});
