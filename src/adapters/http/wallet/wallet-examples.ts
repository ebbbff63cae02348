import { EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';

/**
 * The wallet examples tell one story on the demo tenant: its backend tops the demo user up with
 * 500 THB, the user pays 125 THB, gets 25 THB of it refunded and sends 50 THB to a second user.
 */
export const WALLET_AMOUNTS = { topUp: 50_000, payment: 12_500, refund: 2_500, transfer: 5_000 } as const;

export const thb = (amount: number) => ({ amount, currency: 'THB' });

/** An example object as the tenant API answers it to the demo tenant, which is live (events' `data` carry no `livemode`). */
export const live = <T extends object>(example: T): T & { livemode: true } => ({ ...example, livemode: true });

/** The final capture's answer: the authorization and its PAYMENT, each as the tenant API shows them. */
export const captureAnswerExample = (demo: DemoExamples) => {
  const example = captureExample(demo);
  return live({ ...example, capture: live(example.capture) });
};

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
  authorizationId: null,
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
  authorizationId: null,
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

/** An authorization of the demo user: a ride of up to 300 THB held for a day. */
export const AUTHORIZATION_AMOUNTS = { held: 30_000, captured: 21_500 } as const;

export const authorizationExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.authorization,
  status: 'PENDING',
  userId: EXAMPLE_IDS.demoUser,
  amount: thb(AUTHORIZATION_AMOUNTS.held),
  captured: thb(0),
  remaining: thb(AUTHORIZATION_AMOUNTS.held),
  reference: 'RIDE-20417',
  expiresAt: new Date(Date.parse(demo.createdAt.replace('T03:00', 'T03:40')) + 86_400_000).toISOString().replace('.000Z', 'Z'),
  createdAt: demo.createdAt.replace('T03:00', 'T03:40'),
  resolvedAt: null,
});

/** The final capture of that authorization: 215 THB taken, the rest given back. */
export const captureExample = (demo: DemoExamples) => {
  const captured = authorizationExample(demo);
  const at = demo.createdAt.replace('T03:00', 'T04:05');
  return {
    ...captured,
    status: 'CAPTURED',
    captured: thb(AUTHORIZATION_AMOUNTS.captured),
    remaining: thb(0),
    resolvedAt: at,
    capture: {
      ...paymentExample(demo),
      id: 'txn_01M7W0A37RKC4PT9Y2VQ8XMB3N',
      amount: thb(AUTHORIZATION_AMOUNTS.captured),
      reference: 'RIDE-20417',
      description: `capture of ${EXAMPLE_IDS.authorization}`,
      authorizationId: EXAMPLE_IDS.authorization,
      createdAt: at,
      initiatedBy: machine,
    },
  };
};
