/**
 * The values the examples of the published files are drawn from: the demo data that `npm start`
 * seeds on a first start (the Thailand catalogue, the demo agent's channel and pricing, the demo
 * wallet tenant and its user), so that "Try it out" on the reference page answers as documented.
 *
 * Dates are not fixed. A fixed date goes stale (a quote's pickup must be in the future and at
 * most 365 days ahead), so every date is computed from the day the file is generated: travel
 * is `EXAMPLE_LEAD_DAYS` after it. The server generates its files again each day it serves them;
 * the committed files record their day in `info.x-examples-as-of`, and the check that they are
 * up to date regenerates them for that day (see `committedExamplesDay`).
 */

/** Days between the day a file is generated and the travel date of its examples. */
export const EXAMPLE_LEAD_DAYS = 30;

/** Ids shaped as the service makes them (`<prefix>_<time><random>`, Crockford base32). */
export const EXAMPLE_IDS = {
  agent: 'agt_01M7W0A37RND3DB0ZPZKY0QHCN',
  apiKey: 'key_01M7W0A37RPZS1HDGX1BQW3P94',
  createdApiKey: 'key_01M7W0A37RE2QW8N5KJ3T6VXC9',
  securityEvent: 'sev_01M7W0A37RB4F9K2M6P8T1VX3Z',
  transferQuote: 'qte_01M7W0A37RMMH0QD7532Y9DRVJ',
  busQuote: 'qte_01M7W0A37RT5H72S00GNVY6JN8',
  order: 'ord_01M7W0A37R0JYVR933QVAFEY9Z',
  tenant: 'tnt_01M7W0A37R90XSG42B800S91XP',
  client: 'cli_01M7W0A37RAVEQJ36DQ7CSJXVR',
  demoUser: 'usr_01M7W0A37R3S6CTPPYWZ0XATFZ',
  otherUser: 'usr_01M7W0A37RHX78YP1A8EH7MV67',
  topUp: 'txn_01M7W0A37RCRSW4M0CX170ZFQQ',
  payment: 'txn_01M7W0A37RZ5PBEAS5ZQMRHEQT',
  bookingEndpoint: 'whe_01M7W0A37RN8Y8AFTE2PFY6BM8',
  walletEndpoint: 'whe_01M7W0A37RPP0HC3E26WHZ1T78',
  delivery: 'dlv_01M7W0A37RQM8QNY7GAWJR7PYB',
  event: 'evt_01M7W0A37REKH85DNV8F4S4BA3',
  /** An event the feed lists after `event`. */
  laterEvent: 'evt_01M7W0A37RX4T6QZ9N2B5C8D1F',
  authorization: 'auth_01M7W0A37RV3K8QZ5N2XW7TD4M',
  /** The funding a sandbox agent's test helper records. */
  fundingTransaction: 'txn_01M7W0A37RF7NDQ2XK4B9C3M5W',
} as const;

/**
 * One `Idempotency-Key` example per operation: a UUID, as a client makes them. Distinct, because
 * a key names one request of one caller: the same key on another request answers 422.
 */
export const EXAMPLE_IDEMPOTENCY_KEYS = {
  placeOrder: '7fb94f2b-417c-4805-a25b-9be4d4d1db65',
  cancelOrder: 'c619bd9d-a94d-417e-a837-4de0caf331d6',
  confirmHold: '2e4b7c1a-5d3f-4a8e-9b6c-0f1d2e3a4b5c',
  releaseHold: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  confirmOperatorOrder: '4c3b2a19-0f8e-4d7c-9b6a-5e4d3c2b1a09',
  rejectOperatorOrder: '6f5e4d3c-2b1a-4098-8f7e-6d5c4b3a2918',
  cancelOperatorOrder: '1b2c3d4e-5f60-4718-9a0b-c1d2e3f4a5b6',
  redeemVoucher: '8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a',
  rollCurrentKey: '5b36a811-9d81-495b-82d9-cf8fec58a42f',
  createKey: '0d6f3c52-8e41-4b7a-9a35-61c2f0e9b8d4',
  topUpWalletUser: 'c28b72a8-f18e-444a-b9e9-0b6347aac667',
  fundTestUser: '5f0c2a9e-7d41-4b8a-9c3e-2e6f1b7a9d04',
  testOperatorConfirm: '0a6e2b7c-93d1-4f58-8e2a-6c1b9d0f3e47',
  testOperatorReject: '2c8f4d9e-15b3-4a7a-9c4e-8e3d1f2b5a69',
  testOperatorCancel: '4e1a6f2b-37d5-4c9c-8b6a-0a5f3e4d7c8b',
  testExpireOrder: '6a3c8e4d-59f7-4e1e-9d8c-2c7b5a6f9e0d',
  testFundAccount: '8c5e0a6f-7b19-4a3a-8f0e-4e9d7c8b1a2f',
  refundPayment: '3afaf154-21f6-4754-9b3d-8283ff2548a5',
  makePayment: 'ba1a8f33-b6ce-421f-9e71-04b6003907ad',
  makeTransfer: '8f545c59-e8d9-4723-ba72-f200679d01ee',
  authorizePayment: 'e3d1c7a2-6b54-4f08-9c1e-2a7d5b9f0c34',
  captureAuthorization: '0a9f8e7d-6c5b-4a39-8271-6f5e4d3c2b1a',
  voidAuthorization: '5d4c3b2a-1908-4f7e-a6d5-c4b3a2918f7e',
  expireTestAuthorization: 'a7e2c4f1-3b6d-4e90-8c5a-1f2d3e4b5c6a',
  sendTestWebhook: '3c9e1f7a-2d4b-4c6e-8a0f-5b7d9e1c3a52',
  sendTestWebhookForTenant: '7e5a3c1f-9b2d-4f8e-a6c4-2d0b8f6e4a19',
} as const;

/** The demo credentials' shape: the real ones are printed by the first `npm start` (or `demo seed --reset`). */
export const EXAMPLE_SECRETS = {
  apiKey: 'pbk_3yQbS0dK8mWv2LxN7cTqR4hJ9uF1pZaE6gYoBnCsVt5iWx2Kd',
  clientSecret: 'pbcs_9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e',
  password: '5e0c2a9b7d41f3e86a2c0d17',
  /** A JWT (header.payload.signature), shortened. */
  token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IndrXzAxTTdXMEEzN1IiLCJ0eXAiOiJhdCtqd3QifQ.eyJzdWIiOiJ1c3JfMDFNN1cwQTM3UjNTNkNUUFBZV1owWEFURloifQ.c2lnbmF0dXJl',
} as const;

/** The demo agent's pricing: DEMO-B2B marks up 10 %, the demo agent gets 5 % off. */
const demoPrice = (baseSatang: number): number => Math.round((baseSatang * 11_000 * 9_500) / 100_000_000);

/** What the examples of one generation say: dates relative to its day, prices of the demo pricing. */
export interface DemoExamples {
  /** The day (UTC, `YYYY-MM-DD`) the file was generated for. */
  readonly asOf: string;
  /** The travel date: `EXAMPLE_LEAD_DAYS` after `asOf`. */
  readonly travelDate: string;
  /** Airport-transfer pickup, Bangkok time, on the travel date. */
  readonly pickupAt: string;
  readonly pickupAtUtc: string;
  /** The 09:00 Bangkok → Pattaya departure of the travel date. */
  readonly tripId: string;
  readonly departsAt: string;
  readonly arrivesAt: string;
  /** When the example resources were made: the generation day, 03:00 UTC. */
  readonly createdAt: string;
  /** A quote's expiry: 15 minutes after `createdAt` (QUOTE_TTL_SECONDS's default). */
  readonly quoteExpiresAt: string;
  /** Until when the example order cancels for free (24 hours before the pickup). */
  readonly freeUntil: string;
  /** A reading window that holds what was done on the generation day: 30 days back, to the next midnight. */
  readonly from: string;
  readonly to: string;
  /** The demo prices (minor units, THB) of the two example quotes. */
  readonly transferPrice: number;
  readonly busSeatPrice: number;
}

const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The UTC day of an instant, `YYYY-MM-DD`: the day a file generated at that instant is for. */
export const exampleDayOf = (now: Date): string => now.toISOString().slice(0, 10);

/** The examples of a file generated on `asOf` (a `YYYY-MM-DD` day). */
export function demoExamples(asOf: string): DemoExamples {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(`${asOf}T00:00:00Z`))) throw new Error(`not a day: ${asOf}`);
  const travelDate = addDays(asOf, EXAMPLE_LEAD_DAYS);
  const createdAt = `${asOf}T03:00:00.000Z`;
  return {
    asOf,
    travelDate,
    pickupAt: `${travelDate}T10:00:00+07:00`,
    pickupAtUtc: `${travelDate}T03:00:00.000Z`,
    tripId: `trp_bangkok_pattaya_${travelDate.replace(/-/g, '')}0200`,
    departsAt: `${travelDate}T02:00:00.000Z`,
    arrivesAt: `${travelDate}T04:30:00.000Z`,
    createdAt,
    quoteExpiresAt: `${asOf}T03:15:00.000Z`,
    freeUntil: `${addDays(travelDate, -1)}T03:00:00.000Z`,
    from: `${addDays(asOf, -30)}T00:00:00Z`,
    to: `${addDays(asOf, 1)}T00:00:00Z`,
    // Suvarnabhumi → a Sukhumvit hotel, sedan: 1,200 THB; Bangkok → Pattaya bus seat: 180 THB.
    transferPrice: demoPrice(120_000),
    busSeatPrice: demoPrice(18_000),
  };
}

/** The request (and success answer) examples of one operation. */
export interface OperationExamples {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** The body of the operation's success answer. */
  readonly response?: unknown;
}
