import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../../src/domain/shared/errors.js';
import { encodeCursor, pageOf, pageRequest, PAGE_LIMITS, type Cursor } from '../../src/domain/shared/page.js';

interface Row extends Cursor {
  readonly n: number;
}

/** A listing newest first, as the stores give it: up to `limit` rows strictly after the cursor. */
const listing = (rows: readonly Row[]) => (after: Cursor | null, limit: number) =>
  rows
    .filter((r) => after === null || r.createdAt < after.createdAt || (+r.createdAt === +after.createdAt && r.id < after.id))
    .slice(0, limit);

const refusal = (f: () => unknown): { reason: string; message: string; details: unknown } => {
  try {
    f();
  } catch (err) {
    if (err instanceof DomainError) return { reason: err.reason, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('not refused');
};

describe('keyset pages: one cursor and limit rule', () => {
  it('when a listing is walked page by page with the cursors it hands out, then every row comes once, in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: PAGE_LIMITS.min, max: 7 }), (count, size) => {
        const rows: Row[] = Array.from({ length: count }, (_, n) => ({
          n,
          createdAt: new Date(Date.UTC(2026, 0, 1) - Math.floor(n / 3) * 1000),
          id: `ord_${String(99 - (n % 3))}`,
        }));
        const list = listing(rows);
        const seen: number[] = [];
        let cursor: string | null = null;
        for (let guard = 0; guard <= count + 1; guard++) {
          const { after, limit } = pageRequest({ cursor, limit: size });
          const page = pageOf(list(after, limit + 1), limit);
          expect(page.data.length).to.be.at.most(size);
          seen.push(...page.data.map((r) => r.n));
          cursor = page.nextCursor;
          if (cursor === null) break;
        }
        expect(seen).to.deep.equal(rows.map((r) => r.n));
      }),
    );
  });

  it('when no limit is given, then the default; when it is outside 1..100 or not whole, then invalid-request on limit', () => {
    expect(pageRequest({})).to.deep.equal({ after: null, limit: PAGE_LIMITS.default });
    for (const limit of [0, 101, 2.5, Number.NaN]) {
      const r = refusal(() => pageRequest({ limit }));
      expect(r.reason).to.equal('invalid-request');
      expect(r.details).to.deep.equal({ errors: [{ path: 'limit', message: 'must be an integer from 1 to 100' }] });
    }
  });

  it('when a cursor is of any kind of id the service issues, then it reads back as the position it names', () => {
    const at = new Date(Date.UTC(2026, 11, 4, 19, 16, 51, 615));
    for (const id of ['ord_01M917SS4ZQ', 'txn_01M917SS4ZQ', 'usr_01M917SS4ZQ', 'auth_01M917SS4ZQ']) {
      expect(pageRequest({ cursor: encodeCursor({ createdAt: at, id }) }).after).to.deep.equal({ createdAt: at, id });
    }
  });

  it('when a cursor was not issued by the service, then the one invalid-request answer on cursor', () => {
    const forged = ['', '!!', 'bm9wZQ', 'x'.repeat(300), encodeCursor({ createdAt: new Date(0), id: 'ord_1' }).slice(0, -2) + '%%'];
    for (const cursor of forged) {
      expect(refusal(() => pageRequest({ cursor }))).to.deep.equal({
        reason: 'invalid-request',
        message: 'The cursor is not valid.',
        details: { errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }] },
      });
    }
  });
});
