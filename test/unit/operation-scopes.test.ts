import { expect } from 'chai';
import { requiredScopeFor, SCOPE_OPERATIONS, SCOPES } from '../../src/domain/identity/key-policy.js';
import { BOOKING_OPERATIONS, BOOKING_PUBLIC_OPERATIONS, OPERATIONS } from '../../src/adapters/http/operations.js';
import { buildOpenApiDocument } from '../../src/adapters/http/openapi/documents.js';

describe('the scope each booking operation declares', () => {
  it('when an api-key operation is declared, then its scope is the one the scope table gives for its method and path', () => {
    for (const op of BOOKING_OPERATIONS) {
      expect(op.token, op.operationId).to.equal('api-key');
      expect(op.scope, `${op.operationId} states its scope`).not.to.equal(undefined);
      expect(op.scope, `${op.method.toUpperCase()} ${op.path}`).to.equal(requiredScopeFor(op.method, op.path));
    }
  });

  it('when the scope table names an operation, then it is declared with that scope (no row of the table is left unserved)', () => {
    const declared = new Set(BOOKING_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`));
    for (const scope of SCOPES) {
      for (const row of SCOPE_OPERATIONS[scope]) {
        if (row.startsWith('* ')) continue;
        expect(declared.has(row), `${row} (${scope}) is declared`).to.equal(true);
      }
    }
  });

  it('when a key may roll or report itself, or no key is needed, then the declaration needs no scope', () => {
    const byId = new Map(BOOKING_OPERATIONS.map((op) => [op.operationId, op]));
    expect(byId.get('rollCurrentKey')!.scope).to.equal(null);
    expect(byId.get('reportCurrentKeyLeaked')!.scope).to.equal(null);
    for (const op of BOOKING_PUBLIC_OPERATIONS) expect(op.scope, op.operationId).to.equal(undefined);
  });

  it('when the booking file is generated, then each keyed operation publishes x-required-scope and its 403 reasons', () => {
    const doc = buildOpenApiDocument('booking-api.yaml', OPERATIONS, { asOf: '2026-01-01' }) as {
      paths: Record<
        string,
        Record<string, { operationId: string; 'x-required-scope'?: unknown; responses: Record<string, { description: string }> }>
      >;
    };
    const published = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    for (const { path, method, op } of published) {
      if (path.endsWith('/locations') || path.endsWith('/cities')) {
        expect(op['x-required-scope'], op.operationId).to.equal(undefined);
        continue;
      }
      const scope = requiredScopeFor(method, path);
      expect(op['x-required-scope'], op.operationId).to.equal(scope);
      const forbidden = JSON.stringify(op.responses['403']);
      expect(forbidden, op.operationId).to.include('ip-not-allowed');
      if (scope !== null) expect(forbidden, op.operationId).to.include('insufficient-scope').and.include(scope);
      else expect(forbidden, op.operationId).not.to.include('insufficient-scope');
    }
  });
});
