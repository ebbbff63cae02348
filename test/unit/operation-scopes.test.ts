import { expect } from 'chai';
import { SCOPES, type Scope } from '../../src/domain/identity/key-policy.js';
import { BOOKING_OPERATIONS, BOOKING_PUBLIC_OPERATIONS, OPERATIONS } from '../../src/adapters/http/operations.js';
import { buildOpenApiDocument } from '../../src/adapters/http/openapi/documents.js';

/** The scope table of the contract (§5.1), row by row. */
const TABLE: ReadonlyArray<readonly [Scope, ReadonlyArray<readonly [string, string]>]> = [
  ['account:read', [['GET', '/api/v1/agent/account']]],
  ['trips:read', [['GET', '/api/v1/express-bus/trips']]],
  [
    'quotes:write',
    [
      ['POST', '/api/v1/airport-transfer/quotes'],
      ['POST', '/api/v1/express-bus/quotes'],
      ['GET', '/api/v1/quotes/{quoteId}'],
    ],
  ],
  [
    'orders:read',
    [
      ['GET', '/api/v1/orders'],
      ['GET', '/api/v1/orders/{orderId}'],
      ['GET', '/api/v1/orders/{orderId}/cancellation'],
    ],
  ],
  ['orders:write', [['POST', '/api/v1/orders']]],
  ['orders:cancel', [['POST', '/api/v1/orders/{orderId}/cancel']]],
  [
    'webhooks:manage',
    [
      ['GET', '/api/v1/webhook-endpoints'],
      ['POST', '/api/v1/webhook-endpoints'],
      ['GET', '/api/v1/webhook-endpoints/{endpointId}'],
      ['DELETE', '/api/v1/webhook-endpoints/{endpointId}'],
      ['GET', '/api/v1/webhook-endpoints/{endpointId}/deliveries'],
      ['POST', '/api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry'],
      ['POST', '/api/v1/webhook-endpoints/{endpointId}/test'],
    ],
  ],
  [
    'keys:manage',
    [
      ['GET', '/api/v1/keys'],
      ['POST', '/api/v1/keys'],
      ['DELETE', '/api/v1/keys/{keyId}'],
    ],
  ],
  [
    'events:read',
    [
      ['GET', '/api/v1/security-events'],
      ['GET', '/api/v1/events'],
    ],
  ],
  ['billing:read', [['GET', '/api/v1/agent/statement']]],
];

const declared = new Map(BOOKING_OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]));

describe('the scope each booking operation declares', () => {
  it('when the contract table is read, then it names every scope of the catalogue once', () => {
    expect(TABLE.map(([s]) => s)).to.deep.equal([...SCOPES]);
  });

  for (const [scope, operations] of TABLE) {
    for (const [method, path] of operations) {
      it(`when ${method} ${path} is declared, then it needs ${scope}`, () => {
        expect(declared.get(`${method} ${path}`)?.scope, `${method} ${path} is declared with its scope`).to.equal(scope);
      });
    }
  }

  it('when an api-key operation is declared, then it states its scope (null only for a key rolling or reporting itself, and the test helpers)', () => {
    for (const op of BOOKING_OPERATIONS) {
      expect(op.token, op.operationId).to.equal('api-key');
      expect(op.scope, `${op.operationId} states its scope`).not.to.equal(undefined);
    }
    const unscoped = BOOKING_OPERATIONS.filter((op) => op.scope === null).map((op) => op.operationId);
    // Test helpers accept any key of a test agent (CONTRACT 6.2), and only such keys.
    const helpers = BOOKING_OPERATIONS.filter((op) => op.sandboxOnly === true).map((op) => op.operationId);
    expect(helpers.sort()).to.deep.equal([
      'testExpireOrder',
      'testFundAccount',
      'testOperatorCancel',
      'testOperatorConfirm',
      'testOperatorReject',
    ]);
    expect(unscoped.sort()).to.deep.equal(['reportCurrentKeyLeaked', 'rollCurrentKey', ...helpers].sort());
    for (const op of BOOKING_PUBLIC_OPERATIONS) expect(op.scope, op.operationId).to.equal(undefined);
  });

  it('when the booking file is generated, then each keyed operation publishes its declared scope as x-required-scope and its 403 reasons', () => {
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
      const scope = declared.get(`${method.toUpperCase()} ${path}`)!.scope;
      expect(op['x-required-scope'], op.operationId).to.equal(scope);
      const forbidden = JSON.stringify(op.responses['403']);
      expect(forbidden, op.operationId).to.include('ip-not-allowed');
      if (scope) expect(forbidden, op.operationId).to.include('insufficient-scope').and.include(scope);
      else expect(forbidden, op.operationId).not.to.include('insufficient-scope');
    }
  });
});
