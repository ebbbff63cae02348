import { z } from 'zod';
import { DocumentBody, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDS } from '../openapi/examples.js';
import { INVALID, KEY_ERRORS } from './booking.openapi-common.js';
import { orderParams, timestamp } from './booking.schemas.js';
import type { Voucher } from '../../../domain/booking/voucher.js';

/** Where an order's voucher is fetched. */
export const VOUCHER_PATH = '/api/v1/orders/{orderId}/voucher';

const voucherSchema = z
  .object({
    orderId: z.string(),
    code: z
      .string()
      .describe(
        'What the QR code holds: a compact JWS, protected header `{ alg, kid, typ: "voucher+jwt" }`, claims `{ oid, op, sta, pax, iat }` (order id, operator code, pickup or departure in epoch seconds, passenger count, signing time). It verifies with any JOSE library against the keys of `GET /.well-known/jwks.json` (select by `kid`), offline.',
      ),
    qr: z.string().describe('The QR code as an image: a `data:image/png;base64,…` URL, usable as an `<img src>` as it is'),
    format: z.literal('QR'),
    validFrom: timestamp().describe('When the order was confirmed'),
    validUntil: timestamp().describe('12 hours after the pickup or departure'),
    livemode: z.boolean().describe('False for a sandbox order’s voucher (CONTRACT §6.7)'),
  })
  .meta({ id: 'Voucher', description: 'The voucher of a CONFIRMED order' });

/** The voucher's data as the API shows it: the QR image inline as a data URL. */
const voucherView = (v: Voucher, livemode: boolean) => ({
  orderId: v.orderId,
  code: v.code,
  qr: `data:image/png;base64,${Buffer.from(v.qrPng.buffer, v.qrPng.byteOffset, v.qrPng.byteLength).toString('base64')}`,
  format: 'QR' as const,
  validFrom: v.validFrom.toISOString(),
  validUntil: v.validUntil.toISOString(),
  livemode,
});

/** An order's voucher (CONTRACT §6.5): the printable page, or its data by `Accept: application/json`. */
export const voucherOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: VOUCHER_PATH,
    operationId: 'getVoucher',
    summary: 'The voucher of one of the caller’s orders',
    description:
      'What the traveller shows the driver. By default `application/pdf`: one printable A4 page with the trip, the pickup or departure in the operator’s time zone (named on the page), the passengers, the operator and its reference, the order id and the QR code. With `Accept: application/json`, the voucher’s data: its `code` (the QR’s content, a JWS the operator’s scanner verifies offline against the JWKS) and the QR image. Only a CONFIRMED order has a voucher; each request signs its code anew (the same claims, a new `iat`), and every code stays valid until the order is cancelled or the voucher is redeemed.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:read',
    request: { params: orderParams },
    examples: (demo) => ({
      params: { orderId: EXAMPLE_IDS.order },
      response: {
        orderId: EXAMPLE_IDS.order,
        code: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IndrXzAxTTdXMEEzN1IiLCJ0eXAiOiJ2b3VjaGVyK2p3dCJ9.eyJvaWQiOiJvcmRfMDFKQkRFTU8iLCJvcCI6IlNJQU0tQUlSUE9SVC1UUkFOU0ZFUlMiLCJzdGEiOjE3OTk5OTk5OTksInBheCI6MiwiaWF0IjoxNzk5OTk5MDAwfQ.c2lnbmF0dXJl',
        qr: 'data:image/png;base64,iVBORw0KGgo=',
        format: 'QR',
        validFrom: demo.createdAt,
        validUntil: demo.createdAt,
        livemode: true,
      },
    }),
    responses: {
      200: {
        description: 'The voucher: a PDF page by default, its data with `Accept: application/json`',
        schema: voucherSchema,
        document: { contentType: 'application/pdf', description: 'One printable A4 page' },
        headers: { Vary: 'Accept' },
      },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
      409: { description: 'The order is not CONFIRMED (now)', reasons: ['voucher-not-available'] },
    },
    handler: async ({ params: { orderId }, caller, core, req }) => {
      // JSON only when asked for it over the PDF; anything else (none, */*, a PDF) gets the page.
      const format = req.accepts(['application/pdf', 'application/json']) === 'application/json' ? 'json' : 'pdf';
      const answer = await core.booking.getVoucher.execute(caller.agent(), orderId, format);
      const headers = { 'Cache-Control': 'no-store', Vary: 'Accept' };
      if (answer.format === 'json') return { status: 200, headers, body: voucherView(answer.voucher, caller.agent().livemode) };
      return {
        status: 200,
        headers: { ...headers, 'Content-Disposition': `inline; filename="voucher-${orderId}.pdf"` },
        body: new DocumentBody('application/pdf', answer.pdf),
      };
    },
  }),
];
