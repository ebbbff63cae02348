import { AGENT_SECURITY_EVENT_TYPES, TENANT_SECURITY_EVENT_TYPES } from '../../src/domain/webhooks/events.js';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../../src/adapters/http/openapi/documents.js';
import { OPERATIONS } from '../../src/adapters/http/operations.js';

describe('webhooks in the OpenAPI files', () => {
  it('when the files are built, then each publishes its surface’s events as OpenAPI 3.1 webhooks with the signature headers', () => {
    const names = (file: Parameters<typeof buildOpenApiDocument>[0]) =>
      Object.keys((buildOpenApiDocument(file, OPERATIONS).webhooks ?? {}) as object).sort();
    expect(names('booking-api.yaml')).to.deep.equal(
      [
        'api_key.revoked',
        'order.held',
        'order.pending',
        'order.confirmed',
        'order.rejected',
        'order.expired',
        'order.released',
        'order.cancelled',
        'order.voucher_redeemed',
        ...AGENT_SECURITY_EVENT_TYPES,
      ].sort(),
    );
    expect(names('wallet-backend-api.yaml')).to.deep.equal(
      [
        'transaction.created',
        'wallet_user.created',
        'authorization.created',
        'authorization.captured',
        'authorization.voided',
        'authorization.expired',
        ...TENANT_SECURITY_EVENT_TYPES,
      ].sort(),
    );
    expect(names('wallet-app-api.yaml')).to.deep.equal([]);
    expect(names('operator-api.yaml')).to.deep.equal([]);
    const hook = (buildOpenApiDocument('booking-api.yaml', OPERATIONS).webhooks as Record<string, any>)['order.confirmed'].post;
    expect(hook.parameters.map((p: { name: string }) => p.name)).to.include.members([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
  });

  it('when the files are built, then the endpoint routes are in the booking and tenant backend files, not the app file', () => {
    const paths = (file: Parameters<typeof buildOpenApiDocument>[0]) => Object.keys(buildOpenApiDocument(file, OPERATIONS).paths as object);
    expect(paths('booking-api.yaml')).to.include('/api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry');
    expect(paths('wallet-backend-api.yaml')).to.include('/webhook-endpoints');
    expect(paths('wallet-app-api.yaml').some((p) => p.includes('webhook'))).to.equal(false);
  });
});
