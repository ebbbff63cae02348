import { expect } from 'chai';
import type { Ledger } from '../../src/domain/wallet/ledger.port.js';
import type { PendingTransfers } from '../../src/domain/wallet/pending-transfers.port.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { ledgerTenant, machineInitiator, testId, topUpOf, type LedgerTenant } from './ledger-builders.js';

const reasonOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err.reason;
    throw err;
  }
  throw new Error('expected a refusal');
};

/** The pending-transfer rules every adapter keeps, with the races that must never overspend. */
export function pendingTransfersContract(name: string, make: () => Promise<{ ledger: Ledger; transfers: PendingTransfers }>): void {
  describe(`PendingTransfers contract (${name})`, () => {
    let ledger: Ledger;
    let transfers: PendingTransfers;
    let t: LedgerTenant;
    beforeEach(async () => {
      ({ ledger, transfers } = await make());
      t = ledgerTenant();
    });

    const holdOf = (u: string, amount: number, expiresInMs = 60_000) =>
      transfers.hold({
        id: testId('txn').replace('txn_', 'auth_'),
        tenantId: t.tenantId,
        account: { kind: 'USER', userId: u },
        owner: { kind: 'wallet-authorization', id: u },
        reference: 'ride-1',
        amount: { amount, currency: 'THB' },
        expiresAt: new Date(Date.now() + expiresInMs),
        createdAt: new Date(),
      });
    const captureOf = (id: string, amount: number | null, final = false) =>
      transfers.capture({
        tenantId: t.tenantId,
        pendingTransferId: id,
        transactionId: testId('txn'),
        amount,
        final,
        initiatedBy: machineInitiator(t),
        at: new Date(),
      });

    it('a hold counts against the available balance at once, and a capture pays from it', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 3_000);
      expect(h.status).to.equal('PENDING');
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(3_000);
      expect(await reasonOf(holdOf(u, 2_001))).to.equal('insufficient-funds');
      const { transfer, transaction } = await captureOf(h.id, 1_000);
      expect(transaction.type).to.equal('PAYMENT');
      expect(transaction.amount.amount).to.equal(1_000);
      expect(transfer).to.include({ status: 'PENDING', captured: 1_000 });
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(4_000);
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(2_000);
      const last = await captureOf(h.id, 500, true);
      expect(last.transfer).to.include({ status: 'CAPTURED', captured: 1_500 });
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(0);
      expect(await reasonOf(captureOf(h.id, 1))).to.equal('authorization-not-pending');
    });

    it('a capture above what remains is refused with exceeds-authorization', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 1_000);
      await captureOf(h.id, 600);
      expect(await reasonOf(captureOf(h.id, 401))).to.equal('exceeds-authorization');
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(4_400);
    });

    it('6 concurrent holds of 1,000 on a 5,000 balance: exactly 5 held', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => holdOf(u, 1_000)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(5);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused.map((o) => (o.reason as DomainError).reason)).to.deep.equal(['insufficient-funds']);
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(5_000);
    });

    it('10 concurrent full captures of one hold: exactly one', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 2_000);
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => captureOf(h.id, 2_000)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(3_000);
    });

    it('10 concurrent partial captures that together exceed the hold: only those that fit', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 2_500);
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => captureOf(h.id, 1_000)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(2);
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(3_000);
      expect((await transfers.find(t.tenantId, h.id))?.captured).to.equal(2_000);
    });

    it('void twice answers the same voided transfer with no second effect; a capture after it is refused', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 2_000);
      const first = await transfers.void(t.tenantId, h.id, new Date());
      const second = await transfers.void(t.tenantId, h.id, new Date());
      expect(first.changed).to.equal(true);
      expect(second.changed).to.equal(false);
      expect(second.transfer.status).to.equal('VOIDED');
      expect(second.transfer.resolvedAt?.getTime()).to.equal(first.transfer.resolvedAt?.getTime());
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(0);
      expect(await reasonOf(captureOf(h.id, null))).to.equal('authorization-not-pending');
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(5_000);
    });

    it('a lapsed hold stops counting at its deadline before any job records it, and is then expired once', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 5_000, 50);
      await new Promise((r) => setTimeout(r, 80));
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(0);
      expect(await reasonOf(captureOf(h.id, null))).to.equal('authorization-not-pending');
      await holdOf(u, 5_000);
      const [a, b] = await Promise.all([transfers.expireDue(new Date(), 100), transfers.expireDue(new Date(), 100)]);
      expect([...a!, ...b!].filter((x) => x.id === h.id)).to.have.length(1);
      expect((await transfers.find(t.tenantId, h.id))?.status).to.equal('EXPIRED');
    });

    it('expireNow brings an authorization to its deadline at once: EXPIRED, nothing held, recorded once; then nothing else resolves it', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 3_000);
      await new Promise((r) => setTimeout(r, 5));
      const at = new Date();
      const expired = await transfers.expireNow(t.tenantId, h.id, at);
      expect(expired).to.include({ id: h.id, status: 'EXPIRED', captured: 0 });
      expect(expired.expiresAt.getTime()).to.equal(at.getTime());
      expect(expired.resolvedAt?.getTime()).to.equal(at.getTime());
      expect((await transfers.find(t.tenantId, h.id))?.status).to.equal('EXPIRED');
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(0);
      expect(await transfers.heldThen(t.tenantId, { kind: 'USER', userId: u }, new Date(at.getTime() - 1))).to.equal(3_000);
      expect(await reasonOf(transfers.expireNow(t.tenantId, h.id, new Date()))).to.equal('authorization-not-pending');
      expect(await reasonOf(captureOf(h.id, null))).to.equal('authorization-not-pending');
      expect(await reasonOf(transfers.void(t.tenantId, h.id, new Date()))).to.equal('authorization-not-pending');
      expect((await transfers.expireDue(new Date(), 100)).map((x) => x.id)).not.to.include(h.id);
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(5_000);
    });

    it('expireNow: of concurrent calls exactly one expires; another tenant’s, an unknown or an order’s transfer is not found', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 1_000);
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => transfers.expireNow(t.tenantId, h.id, new Date())));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(new Set(refused.map((o) => (o.reason as DomainError).reason))).to.deep.equal(new Set(['authorization-not-pending']));
      const captured = await holdOf(u, 1_000);
      await captureOf(captured.id, null, true);
      expect(await reasonOf(transfers.expireNow(t.tenantId, captured.id, new Date()))).to.equal('authorization-not-pending');
      const other = ledgerTenant();
      const pending = await holdOf(u, 1_000);
      expect(await reasonOf(transfers.expireNow(other.tenantId, pending.id, new Date()))).to.equal('authorization-not-found');
      expect(await reasonOf(transfers.expireNow(t.tenantId, 'auth_unknown', new Date()))).to.equal('authorization-not-found');
      const order = await transfers.hold({
        id: testId('txn').replace('txn_', 'auth_'),
        tenantId: t.tenantId,
        account: { kind: 'USER', userId: u },
        owner: { kind: 'order', id: testId('txn').replace('txn_', 'ord_') },
        reference: 'order',
        amount: { amount: 1_000, currency: 'THB' },
        expiresAt: new Date(Date.now() + 60_000),
        createdAt: new Date(),
      });
      expect(await reasonOf(transfers.expireNow(t.tenantId, order.id, new Date()))).to.equal('authorization-not-found');
      expect((await transfers.find(t.tenantId, pending.id))?.status).to.equal('PENDING');
      expect((await transfers.find(t.tenantId, order.id))?.status).to.equal('PENDING');
    });

    it('the authorizations’ lapse records only authorizations: an order’s lapsed hold is left to its order', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const order = await transfers.hold({
        id: testId('txn').replace('txn_', 'auth_'),
        tenantId: t.tenantId,
        account: { kind: 'USER', userId: u },
        owner: { kind: 'order', id: testId('txn').replace('txn_', 'ord_') },
        reference: 'order',
        amount: { amount: 1_000, currency: 'THB' },
        expiresAt: new Date(Date.now() + 50),
        createdAt: new Date(),
      });
      const auth = await holdOf(u, 1_000, 50);
      await new Promise((r) => setTimeout(r, 80));
      const recorded = await transfers.expireDue(new Date(), 100);
      expect(recorded.map((x) => x.id))
        .to.include(auth.id)
        .and.not.include(order.id);
      expect((await transfers.find(t.tenantId, order.id))?.status).to.equal('PENDING');
      expect(await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date())).to.equal(0);
    });

    it('a payment or transfer cannot spend held money; after the void it can', async () => {
      const u = t.newUser();
      const v = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const h = await holdOf(u, 4_000);
      const payment = () =>
        ledger.pay({
          id: testId('txn'),
          tenantId: t.tenantId,
          userId: u,
          amount: { amount: 2_000, currency: 'THB' },
          reference: 'shop-1',
          description: null,
          initiatedBy: machineInitiator(t),
          createdAt: new Date(),
        });
      const transfer = () =>
        ledger.transfer({
          id: testId('txn'),
          tenantId: t.tenantId,
          userId: u,
          toUserId: v,
          amount: { amount: 2_000, currency: 'THB' },
          note: null,
          initiatedBy: machineInitiator(t),
          createdAt: new Date(),
        });
      expect(await reasonOf(payment())).to.equal('insufficient-funds');
      expect(await reasonOf(transfer())).to.equal('insufficient-funds');
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(5_000);
      await transfers.void(t.tenantId, h.id, new Date());
      expect((await payment()).type).to.equal('PAYMENT');
      expect((await transfer()).type).to.equal('TRANSFER');
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(1_000);
    });

    it('concurrent payments and holds on one account never spend held money', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const pay = () =>
        ledger.pay({
          id: testId('txn'),
          tenantId: t.tenantId,
          userId: u,
          amount: { amount: 1_000, currency: 'THB' },
          reference: 'shop-1',
          description: null,
          initiatedBy: machineInitiator(t),
          createdAt: new Date(),
        });
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? holdOf(u, 1_000) : pay())));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(5);
      const balance = await ledger.balanceOf(t.tenantId, u);
      const held = await transfers.heldOn(t.tenantId, { kind: 'USER', userId: u }, new Date());
      expect(balance - held).to.equal(0);
    });

    it('an unknown or another tenant’s transfer is not found', async () => {
      expect(await reasonOf(transfers.void(t.tenantId, 'auth_NOPE', new Date()))).to.equal('authorization-not-found');
      const u = t.newUser();
      await topUpOf(ledger, t, u, 1_000);
      const h = await holdOf(u, 100);
      expect(await transfers.find(ledgerTenant().tenantId, h.id)).to.equal(null);
    });

    it('authorizations list newest first within the scope: the tenant’s, or one person’s only, with the status as true now', async () => {
      const a = t.newUser();
      const b = t.newUser();
      await topUpOf(ledger, t, a, 5_000);
      await topUpOf(ledger, t, b, 5_000);
      const first = await holdOf(a, 100);
      await new Promise((r) => setTimeout(r, 3));
      const second = await holdOf(b, 200);
      await new Promise((r) => setTimeout(r, 3));
      const lapsing = await holdOf(a, 300, 1);
      await new Promise((r) => setTimeout(r, 5));
      const now = new Date();
      const tenant = { kind: 'tenant', tenantId: t.tenantId, userId: null } as const;
      const ids = async (scope: Parameters<PendingTransfers['listAuthorizations']>[0]['scope'], status?: 'PENDING' | 'EXPIRED') =>
        (await transfers.listAuthorizations({ scope, status, after: null, limit: 10, now })).map((x) => x.id);
      expect(await ids(tenant)).to.deep.equal([lapsing.id, second.id, first.id]);
      expect(await ids({ kind: 'person', tenantId: t.tenantId, userId: a })).to.deep.equal([lapsing.id, first.id]);
      expect(await ids(tenant, 'EXPIRED')).to.deep.equal([lapsing.id]);
      expect(await ids(tenant, 'PENDING')).to.deep.equal([second.id, first.id]);
      expect(await ids({ kind: 'tenant', tenantId: ledgerTenant().tenantId, userId: null })).to.deep.equal([]);
      const page = await transfers.listAuthorizations({
        scope: tenant,
        after: { createdAt: second.createdAt, id: second.id },
        limit: 10,
        now,
      });
      expect(page.map((x) => x.id)).to.deep.equal([first.id]);
    });

    it('what was held at a past instant counts the transfers made by then, less what was captured by then, until resolved', async () => {
      const u = t.newUser();
      await topUpOf(ledger, t, u, 5_000);
      const account = { kind: 'USER', userId: u } as const;
      const before = new Date(Date.now() - 1);
      const h = await holdOf(u, 2_000);
      const afterHold = new Date();
      await new Promise((r) => setTimeout(r, 3));
      await captureOf(h.id, 500);
      const afterCapture = new Date();
      await new Promise((r) => setTimeout(r, 3));
      await transfers.void(t.tenantId, h.id, new Date());
      const afterVoid = new Date(Date.now() + 1);
      expect(await transfers.heldThen(t.tenantId, account, before)).to.equal(0);
      expect(await transfers.heldThen(t.tenantId, account, afterHold)).to.equal(2_000);
      expect(await transfers.heldThen(t.tenantId, account, afterCapture)).to.equal(1_500);
      expect(await transfers.heldThen(t.tenantId, account, afterVoid)).to.equal(0);
    });

    it('every entry keeps the balance it left: the balance before an instant, and statement lines in the order applied', async () => {
      const u = t.newUser();
      const start = new Date(Date.now() - 1);
      await topUpOf(ledger, t, u, 5_000);
      await new Promise((r) => setTimeout(r, 3));
      const middle = new Date();
      await new Promise((r) => setTimeout(r, 3));
      const h = await holdOf(u, 1_000);
      const { transaction } = await captureOf(h.id, 1_000);
      const end = new Date(Date.now() + 1);
      expect(await ledger.balanceBefore(t.tenantId, u, start)).to.equal(0);
      expect(await ledger.balanceBefore(t.tenantId, u, middle)).to.equal(5_000);
      expect(await ledger.balanceBefore(t.tenantId, u, end)).to.equal(4_000);
      const lines = await ledger.statementLines(t.tenantId, u, { from: start, to: end }, null, 10);
      expect(lines.map((l) => [l.type, l.amount, l.balance])).to.deep.equal([
        ['TOP_UP', 5_000, 5_000],
        ['PAYMENT', -1_000, 4_000],
      ]);
      expect(lines[1]!.transactionId).to.equal(transaction.id);
      expect(transaction.authorizationId).to.equal(h.id);
      const rest = await ledger.statementLines(t.tenantId, u, { from: start, to: end }, lines[0]!, 10);
      expect(rest.map((l) => l.transactionId)).to.deep.equal([transaction.id]);
      expect(await ledger.statementLines(t.tenantId, u, { from: middle, to: end }, null, 1)).to.have.length(1);
    });
  });
}
