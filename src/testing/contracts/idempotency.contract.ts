import { expect } from 'chai';
import { reasonOf } from '../fixtures.js';
import { IdempotentWrites, type IdempotentOutcome } from '../../application/idempotent-writes.js';
import type { OneStatementWrites } from '../../application/one-statement-writes.port.js';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';
import type { DomainError } from '../../domain/shared/errors.js';
import type { IdempotencyRequest, IdempotencyStore, StoredResponse } from '../../domain/shared/idempotency.port.js';
import { unique } from '../fixtures.js';

/** What the contract runs on: a store, the units of work it claims in, and a write that takes part in them. */
export interface IdempotencyParts {
  readonly store: IdempotencyStore;
  readonly unitOfWork: UnitOfWork;
  /** A write made in the running unit of work (a ledger entry), and how many such writes are kept. */
  readonly effect: { write(): Promise<void>; count(): Promise<number> };
  /**
   * Where given, every write runs as one ledger write (`oneLedgerWrite`), sent with its key's
   * answer in one statement; `effect.write` is then one ledger write of that ledger.
   */
  readonly oneStatement?: OneStatementWrites;
}

/** Keyed writes as the contract runs them: through the parts' one-statement writes where they have them. */
interface KeyedWrites {
  execute(request: IdempotencyRequest, work: () => Promise<StoredResponse>): Promise<IdempotentOutcome>;
}

const keyedWrites = (parts: IdempotencyParts, clock: { now(): Date }): KeyedWrites => {
  const writes = new IdempotentWrites(parts.unitOfWork, parts.store, clock, parts.oneStatement ?? null);
  const oneLedgerWrite = parts.oneStatement !== undefined;
  return { execute: (request, work) => writes.execute(request, work, { oneLedgerWrite }) };
};

export interface IdempotencyContractOptions {
  /** Whether two units of work can run at once (PGlite has one connection: they take turns). */
  readonly concurrent: () => Promise<boolean>;
  /** Whether a unit of work that fails undoes its writes (a database does; process memory does not). */
  readonly rollsBack: boolean;
  /**
   * What kills the database connection of the running unit of work, as a crash of the instance or
   * a lost network would; null where there is none to kill.
   */
  readonly connectionKiller?: () => Promise<(() => Promise<void>) | null>;
  /**
   * Whether the key is decided when the write is sent rather than when the claim is made (a write
   * of one statement, `oneStatement`): `work` may then run, without effect, for a key already
   * taken, and of two requests with one key the one sent first wins. One effect per key and one
   * answer for all still hold.
   */
  readonly decidesAtEnd?: boolean;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Decisions every IdempotencyStore makes alike, and `IdempotentWrites` on it: one effect per key,
 * the claim, the write and the stored answer committed together. `make` builds the parts with
 * claims that wait at most `waitMs` for another live claim.
 */
export function idempotencyContract(
  name: string,
  make: (options: { waitMs: number }) => Promise<IdempotencyParts>,
  options: IdempotencyContractOptions,
): void {
  describe(`idempotency store contract: ${name}`, () => {
    let parts: IdempotencyParts;
    let store: IdempotencyStore;
    let writes: KeyedWrites;
    const now = new Date('2026-11-01T00:00:00.000Z');
    const clock = { now: () => now };
    const req = (over: Partial<IdempotencyRequest> = {}): IdempotencyRequest => ({
      scope: `agent:${unique()}`,
      key: `k-${unique()}`,
      fingerprint: 'f1',
      ...over,
    });
    const response: StoredResponse = {
      status: 201,
      contentType: 'application/json; charset=utf-8',
      body: '{"id":"ord_1"}',
      headers: { location: '/api/v1/orders/ord_1', 'cache-control': 'no-store' },
    };
    /** Claims and completes `r` in a unit of work of its own. */
    const completed = async (r: IdempotencyRequest, at = now) =>
      parts.unitOfWork.run(async () => {
        const claim = await store.claim(r, at);
        expect(claim.state).to.equal('claimed');
        await store.complete(r, response, at);
        if (claim.state === 'claimed') claim.end();
      });
    /** Claims `r` in a unit of work of its own, returns what the claim said and ends the unit (without completing). */
    const claimOnly = async (r: IdempotencyRequest, at = now) =>
      parts.unitOfWork.run(async () => {
        const claim = await store.claim(r, at);
        if (claim.state === 'claimed') claim.end();
        return claim.state === 'claimed' ? { state: 'claimed' as const } : claim;
      });
    /** A write that answers `status` and makes one effect. */
    const effectAnswering = (status: number) => async (): Promise<StoredResponse> => {
      await parts.effect.write();
      return { ...response, status };
    };

    beforeEach(async () => {
      parts = await make({ waitMs: 300 });
      store = parts.store;
      writes = keyedWrites(parts, clock);
    });

    it('when a key is new, then it is claimed; completed, then replayed with the stored response and headers', async () => {
      const r = req();
      await completed(r);
      expect(await claimOnly(r)).to.deep.equal({ state: 'replay', response });
    });

    it('when the same key comes with another request after completion, then idempotency-key-reused', async () => {
      const r = req();
      await completed(r);
      expect(await reasonOf(claimOnly({ ...r, fingerprint: 'f2' }))).to.equal('idempotency-key-reused');
    });

    it('when two callers use the same key, then each has its own', async () => {
      const key = `k-${unique()}`;
      await completed(req({ key, fingerprint: 'fa' }));
      await completed(req({ key, fingerprint: 'fb' }));
    });

    it('when a write runs under a new key, then it runs once, its answer is stored, and a retry replays it without running', async () => {
      const r = req();
      const before = await parts.effect.count();
      expect(await writes.execute(r, effectAnswering(201))).to.deep.equal({ replayed: false, response });
      let ranAgain = false;
      const again = await writes.execute(r, async () => {
        ranAgain = true;
        return response;
      });
      expect(again).to.deep.equal({ replayed: true, response });
      if (options.decidesAtEnd !== true) expect(ranAgain).to.equal(false);
      expect(await parts.effect.count()).to.equal(before + 1);
    });

    it('when a write answers with a failure, then nothing is stored and a retry runs again (its writes undone where storage rolls back)', async () => {
      const r = req();
      const before = await parts.effect.count();
      const failed = await writes.execute(r, effectAnswering(409));
      expect(failed).to.deep.equal({ replayed: false, response: { ...response, status: 409 } });
      expect(await parts.effect.count()).to.equal(options.rollsBack ? before : before + 1);
      expect(await writes.execute(r, effectAnswering(201))).to.deep.equal({ replayed: false, response });
    });

    it('when a write throws, then the error comes back, the claim is gone and a retry runs again', async () => {
      const r = req();
      const before = await parts.effect.count();
      const boom = writes.execute(r, async () => {
        await parts.effect.write();
        throw new Error('boom');
      });
      let thrown: unknown;
      await boom.catch((err: unknown) => (thrown = err));
      expect((thrown as Error).message).to.equal('boom');
      if (options.rollsBack) expect(await parts.effect.count()).to.equal(before);
      expect(await claimOnly(r)).to.deep.equal({ state: 'claimed' });
      expect(await writes.execute(r, effectAnswering(201))).to.deep.equal({ replayed: false, response });
    });

    it('when another request comes under a used key, then idempotency-key-reused and it does not run', async () => {
      const r = req();
      await writes.execute(r, effectAnswering(201));
      let ran = false;
      const other = writes.execute({ ...r, fingerprint: 'f2' }, async () => {
        ran = true;
        return response;
      });
      expect(await reasonOf(other)).to.equal('idempotency-key-reused');
      if (options.decidesAtEnd !== true) expect(ran).to.equal(false);
    });

    it('when the connection of a running write dies, then the write fails, the claim is released and a retry runs once', async function () {
      const kill = (await options.connectionKiller?.()) ?? null;
      if (kill === null) this.skip();
      const r = req();
      const before = await parts.effect.count();
      const crashed = writes.execute(r, async () => {
        await parts.effect.write();
        await kill!();
        await parts.effect.write();
        return response;
      });
      let failed = false;
      await crashed.catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await parts.effect.count()).to.equal(before);
      expect(await writes.execute(r, effectAnswering(201))).to.deep.equal({ replayed: false, response });
      expect(await parts.effect.count()).to.equal(before + 1);
    });

    it('when a nested unit of work runs inside the write, then it joins it: its writes are undone with the failed answer', async function () {
      if (!options.rollsBack) this.skip();
      if (parts.oneStatement !== undefined) this.skip(); // a write of one statement has no unit for another to join
      const r = req();
      const before = await parts.effect.count();
      await writes.execute(r, async () => {
        await parts.unitOfWork.run(() => parts.effect.write());
        return { ...response, status: 500 };
      });
      expect(await parts.effect.count()).to.equal(before);
    });

    it('when keys are purged, then those created before the cut are gone, a batch at a time, and counted before', async () => {
      const then = new Date('2000-01-01T00:00:00.000Z');
      const cut = new Date('2000-01-02T00:00:00.000Z');
      const old = [req(), req(), req()];
      for (const r of old) await completed(r, then);
      const recent = req();
      await completed(recent);
      // A shared database may hold other old keys: count and purge at least these three.
      expect(await store.countBefore(cut)).to.be.at.least(3);
      expect(await store.purge(cut, 2)).to.equal(2);
      while ((await store.purge(cut, 2)) > 0);
      expect(await store.countBefore(cut)).to.equal(0);
      for (const r of old) expect(await claimOnly(r)).to.deep.equal({ state: 'claimed' });
      expect((await claimOnly(recent)).state, 'a key after the cut is kept').to.equal('replay');
    });

    it('when the first request is still running past the wait, then idempotency-key-in-use (same or other request)', async function () {
      if (!(await options.concurrent())) this.skip(); // one connection: the second unit of work waits its turn instead
      if (options.decidesAtEnd === true) this.skip(); // nothing holds the key until the first unit ends
      const r = req();
      let finish!: () => void;
      const running = writes.execute(r, async () => {
        await new Promise<void>((resolve) => (finish = resolve));
        return response;
      });
      await wait(50);
      expect(await reasonOf(writes.execute(r, effectAnswering(201)))).to.equal('idempotency-key-in-use');
      expect(await reasonOf(writes.execute({ ...r, fingerprint: 'f2' }, effectAnswering(201)))).to.equal('idempotency-key-in-use');
      finish();
      expect((await running).replayed).to.equal(false);
    });

    it('when a duplicate arrives while the first runs, then it waits and replays the first answer once it commits', async function () {
      if (!(await options.concurrent())) this.skip();
      if (options.decidesAtEnd === true) this.skip(); // the duplicate, ending first, wins; the first replays it
      const r = req();
      const first = writes.execute(r, async () => {
        await wait(100);
        return effectAnswering(201)();
      });
      await wait(30);
      const duplicate = await writes.execute(r, effectAnswering(201));
      expect(duplicate).to.deep.equal({ replayed: true, response });
      expect((await first).replayed).to.equal(false);
    });

    it('when 20 requests run one key at once, then one effect is made and the others replay its answer', async () => {
      const r = req();
      const slow = await make({ waitMs: 5_000 });
      const slowWrites = keyedWrites(slow, clock);
      const before = await slow.effect.count();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () =>
          slowWrites
            .execute(r, async () => {
              await slow.effect.write();
              await wait(50);
              return response;
            })
            .then(
              (o) => (o.replayed ? 'replayed' : 'ran'),
              (e: DomainError) => e.reason,
            ),
        ),
      );
      expect(outcomes.filter((o) => o === 'ran')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'replayed')).to.have.length(19);
      expect(await slow.effect.count()).to.equal(before + 1);
    });
  });
}
