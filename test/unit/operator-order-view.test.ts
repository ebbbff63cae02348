import { expect } from 'chai';
import type { Order } from '../../src/domain/booking/order.js';
import { operatorOrderView } from '../../src/adapters/http/operator/operator.views.js';

describe('the operator view of an order', () => {
  const order = {
    id: 'ord_1',
    agentId: 'agt_1',
    channelCode: 'B2B-THB',
    keyId: 'key_1',
    quoteId: 'qte_1',
    product: 'TRANSFER',
    status: 'PENDING',
    price: { amount: 1500, currency: 'THB' },
    contact: { name: 'Malee Srisuk', email: 'malee@example.com', phone: null },
    passengers: [{ name: 'Malee Srisuk' }],
    agentReference: 'DTA-1',
    idempotencyKey: 'idem-1',
    details: { from: 'HKT' },
    createdAt: new Date('2026-12-01T03:00:00.000Z'),
    confirmationDeadline: new Date('2026-12-01T05:00:00.000Z'),
    operatorReference: null,
    refund: { amount: 1500, currency: 'THB' },
    fee: { amount: 0, currency: 'THB' },
  } as unknown as Order;

  it('holds exactly what the operator needs, no commercial field', () => {
    const view = operatorOrderView(order, 'Demo Travel Agency');
    expect(Object.keys(view).sort()).to.deep.equal(
      [
        'agentName',
        'confirmationDeadline',
        'contact',
        'createdAt',
        'details',
        'id',
        'livemode',
        'operatorReference',
        'passengers',
        'product',
        'status',
      ].sort(),
    );
    expect(view.agentName).to.equal('Demo Travel Agency');
    expect(view.confirmationDeadline).to.equal('2026-12-01T05:00:00.000Z');
    expect(JSON.stringify(view)).not.to.match(/price|channel|keyId|agentReference|refund|fee|B2B-THB|DTA-1|1500/);
  });
});
