import { z } from 'zod';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { BODY_LIMITS, INVALID_BODY } from '../booking/booking.openapi-common.js';
import { idempotencyHeaders, timestamp } from '../booking/booking.schemas.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS } from '../openapi/examples.js';

const redeemBody = z
  .object({ code: z.string().min(1).max(4096).describe('The voucher’s code, as read from its QR') })
  .meta({ id: 'RedeemVoucherRequest' });
const redemptionSchema = z
  .object({
    orderId: z.string(),
    redeemedAt: timestamp(),
    passengers: z.array(z.object({ name: z.string() })).describe('Who travels on it'),
    livemode: z.boolean().describe('False for a sandbox operator’s redemption (CONTRACT §6.7)'),
  })
  .meta({ id: 'VoucherRedemption' });

/** The operator surface's voucher check (CONTRACT §6.5). */
export const operatorVoucherOperations: readonly Operation[] = [
  operation({
    surface: 'operator',
    method: 'post',
    path: '/operator/v1/vouchers/redeem',
    operationId: 'redeemVoucher',
    summary: 'Redeem a traveller’s voucher',
    description:
      'Takes the voucher whose code the scanner read (a scanner may verify it offline first, against `GET /.well-known/jwks.json`). A voucher is redeemed once: the first redemption answers 200 and tells the agent `order.voucher_redeemed`; any later one is 409. A cancelled order’s voucher is void (410); another operator’s order is 404; a code this service did not sign, or one altered, is 400.',
    tags: ['operator-vouchers'],
    token: 'operator-key',
    idempotency: { scope: 'operator' },
    request: { body: redeemBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.redeemVoucher },
      body: {
        code: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IndrXzAxTTdXMEEzN1IiLCJ0eXAiOiJ2b3VjaGVyK2p3dCJ9.eyJvaWQiOiJvcmRfMDFKQkRFTU8ifQ.c2lnbmF0dXJl',
      },
      response: {
        orderId: EXAMPLE_IDS.order,
        redeemedAt: demo.createdAt,
        passengers: [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }],
        livemode: true,
      },
    }),
    responses: {
      200: { description: 'Redeemed now', schema: redemptionSchema },
      400: {
        description: 'Malformed body, or a code that is not a voucher this service signed (forged, altered, unparseable, another `typ`)',
        reasons: [...INVALID_BODY.reasons!, 'invalid-voucher'],
      },
      404: { description: 'The voucher is for another operator’s order, or one that no longer exists', reasons: ['order-not-found'] },
      409: { description: 'Redeemed already', reasons: ['voucher-already-redeemed'] },
      410: { description: 'The order was cancelled: its voucher is void', reasons: ['voucher-void'] },
      ...BODY_LIMITS,
    },
    handler: async ({ body, caller, core }) => {
      const r = await core.booking.redeemVoucher.execute(caller.operator(), body.code);
      return {
        status: 200,
        headers: NO_STORE,
        body: {
          orderId: r.orderId,
          redeemedAt: r.redeemedAt.toISOString(),
          passengers: r.passengers.map((p) => ({ name: p.name })),
          livemode: caller.operator().livemode,
        },
      };
    },
  }),
];
