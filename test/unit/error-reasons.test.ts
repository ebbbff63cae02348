import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { statusOf } from '../../src/adapters/http/errors.js';
import { DomainError, REASONS, TRANSPORT_REASONS, type Reason } from '../../src/domain/shared/errors.js';

const isReason = (r: string): r is Reason => Object.hasOwn(REASONS, r);

/** Every (status, reason) pair the published OpenAPI documents promise in a problem response. */
function documentedPairs(): Array<{ file: string; status: number; reason: string }> {
  const out: Array<{ file: string; status: number; reason: string }> = [];
  const walk = (node: unknown, file: string, status: number | null): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, file, status);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const code = /^[1-5][0-9][0-9]$/.test(key) ? Number(key) : status;
      if (key === 'reason' && status !== null && status >= 400 && typeof value === 'object' && value !== null && 'enum' in value) {
        for (const reason of (value as { enum: string[] }).enum) out.push({ file, status, reason });
      }
      walk(value, file, code);
    }
  };
  for (const file of readdirSync('openapi').filter((f) => f.endsWith('.yaml')))
    walk(parse(readFileSync(`openapi/${file}`, 'utf8')), file, null);
  return out;
}

describe('error reasons: one table of kind and default message', () => {
  it('when a call site names only a reason, then the error takes the kind and the message of the table', () => {
    for (const reason of Object.keys(REASONS) as Reason[]) {
      const err = new DomainError(reason);
      expect([err.kind, err.message], reason).to.deep.equal([REASONS[reason].kind, REASONS[reason].message]);
      expect(err.message.length, reason).to.be.greaterThan(0);
    }
  });

  it('when a call site says more, then only the message and details change, never the kind', () => {
    const err = new DomainError('sold-out', { message: 'Only 2 seats are left.', details: { seatsLeft: 2 } });
    expect([err.reason, err.kind, err.message, err.details]).to.deep.equal([
      'sold-out',
      'conflict',
      'Only 2 seats are left.',
      { seatsLeft: 2 },
    ]);
    expect(new DomainError('sold-out').details).to.equal(undefined);
  });

  it('when the OpenAPI documents name a domain reason under a status, then the kind of that reason answers that status', () => {
    const pairs = documentedPairs().filter((p) => isReason(p.reason));
    expect(pairs.length).to.be.greaterThan(50);
    // One reason answers two statuses on purpose: RFC 9449 §5 has a DPoP proof refused at a token
    // request answer 400 (`invalid_dpop_proof`), and one refused on a resource request 401.
    const protocolStatus = (p: { reason: string; status: number }) => p.reason === 'invalid-dpop-proof' && p.status === 400;
    const wrong = pairs.filter((p) => statusOf(REASONS[p.reason as Reason].kind) !== p.status && !protocolStatus(p));
    expect(wrong).to.deep.equal([]);
  });

  it('when the OpenAPI documents name any reason, then it is in the one catalogue (the domain reasons and the transport reasons)', () => {
    const transport: readonly string[] = TRANSPORT_REASONS;
    const outside = documentedPairs().filter((p) => !isReason(p.reason) && !transport.includes(p.reason));
    expect(outside).to.deep.equal([]);
    expect(
      TRANSPORT_REASONS.filter((r) => isReason(r)),
      'a reason is in one list only',
    ).to.deep.equal([]);
  });
});
