import { EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';

/**
 * The wallet examples tell one story on the demo tenant: its backend tops the demo user up with
 * 500 THB, the user pays 125 THB, gets 25 THB of it refunded and sends 50 THB to a second user.
 */
export const WALLET_AMOUNTS = { topUp: 50_000, payment: 12_500, refund: 2_500, transfer: 5_000 } as const;

export const thb = (amount: number) => ({ amount, currency: 'THB' });

const machine = { kind: 'machine', tenantId: EXAMPLE_IDS.tenant, clientId: EXAMPLE_IDS.client, userId: null, amr: null, act: null };
const user = {
  kind: 'user',
  tenantId: EXAMPLE_IDS.tenant,
  clientId: EXAMPLE_IDS.client,
  userId: EXAMPLE_IDS.demoUser,
  amr: ['pwd'],
  act: null,
};

/** The demo user's payment. */
export const paymentExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.payment,
  type: 'PAYMENT',
  amount: thb(WALLET_AMOUNTS.payment),
  userId: EXAMPLE_IDS.demoUser,
  counterpartyUserId: null,
  reference: 'ORDER-10042',
  description: 'Airport transfer, Suvarnabhumi to Sukhumvit',
  refundOf: null,
  refunded: thb(0),
  createdAt: demo.createdAt.replace('T03:00', 'T03:10'),
  initiatedBy: user,
});

/** The backend's top-up of the demo user. */
export const topUpExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.topUp,
  type: 'TOP_UP',
  amount: thb(WALLET_AMOUNTS.topUp),
  userId: EXAMPLE_IDS.demoUser,
  counterpartyUserId: null,
  reference: 'topup-2026-0001',
  description: null,
  refundOf: null,
  refunded: null,
  createdAt: demo.createdAt,
  initiatedBy: machine,
});

export const refundExample = (demo: DemoExamples) => ({
  ...topUpExample(demo),
  id: 'txn_01M7W0A37RX2D9V6K4TQ8HBNWE',
  type: 'REFUND',
  amount: thb(WALLET_AMOUNTS.refund),
  reference: null,
  refundOf: EXAMPLE_IDS.payment,
  createdAt: demo.createdAt.replace('T03:00', 'T03:20'),
});

export const transferExample = (demo: DemoExamples) => ({
  ...paymentExample(demo),
  id: 'txn_01M7W0A37RJ5M0S8Y3WC7AHZQD',
  type: 'TRANSFER',
  amount: thb(WALLET_AMOUNTS.transfer),
  counterpartyUserId: EXAMPLE_IDS.otherUser,
  reference: null,
  description: 'Dinner in Silom',
  refunded: null,
  createdAt: demo.createdAt.replace('T03:00', 'T03:30'),
});
