import { orderAt } from '../../domain/booking/order.js';
import type { VoucherRedemption, VoucherRedemptions } from '../../domain/booking/voucher-redemptions.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { voucherRedeemed } from '../../domain/webhooks/events.js';
import { orderOf, type OrderRow } from './booking-rows.js';
import { KnexStore } from './knex-store.js';
import { recordEvents } from './outbox.knex.js';

/**
 * Redemptions on PostgreSQL. The order's row lock (FOR UPDATE, as every change of the order takes)
 * orders a redemption against a cancel; the primary key of `voucher_redemptions` (the order id)
 * makes it happen once, the insert that finds the row taken inserting nothing.
 */
export class KnexVoucherRedemptions extends KnexStore implements VoucherRedemptions {
  async redeem(operator: { code: string; livemode: boolean }, orderId: string, at: Date): Promise<VoucherRedemption | null> {
    const operatorCode = operator.code;
    return this.inTransaction(async (trx) => {
      const row = (await trx('orders')
        .where({ id: orderId, operator_code: operatorCode, livemode: operator.livemode })
        .forUpdate()
        .first()) as OrderRow | undefined;
      if (row === undefined) return null;
      const order = orderAt(orderOf(row), at);
      // Only a confirmed order ever had a voucher, and a confirmed order only ends cancelled.
      if (order.status !== 'CONFIRMED') throw new DomainError('voucher-void');
      const redemption: VoucherRedemption = { orderId, operatorCode, redeemedAt: at, passengers: order.passengers };
      const inserted = (await trx('voucher_redemptions')
        .insert({ order_id: orderId, operator_code: operatorCode, redeemed_at: at, passengers: order.passengers.length })
        .onConflict('order_id')
        .ignore()
        .returning('order_id')) as unknown[];
      if (inserted.length === 0) throw new DomainError('voucher-already-redeemed');
      await recordEvents(trx, [voucherRedeemed(order, redemption)]);
      return redemption;
    });
  }
}
