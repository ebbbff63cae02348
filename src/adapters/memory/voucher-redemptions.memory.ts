import { orderAt, type Order } from '../../domain/booking/order.js';
import type { VoucherRedemption, VoucherRedemptions } from '../../domain/booking/voucher-redemptions.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { voucherRedeemed } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';

/**
 * Redemptions in process memory, deciding as PostgreSQL does: the order is read, checked and the
 * redemption recorded (with its event) in one turn of the event loop, so nothing runs between.
 */
export class MemoryVoucherRedemptions implements VoucherRedemptions {
  private readonly redeemed = new Map<string, VoucherRedemption>();

  /** `orders` reads an order as stored, at once; `outbox` records the events as the database's would. */
  constructor(
    private readonly orders: { orderNow(orderId: string): Order | null },
    private readonly outbox?: MemoryOutbox,
  ) {}

  async redeem(operator: { code: string; livemode: boolean }, orderId: string, at: Date): Promise<VoucherRedemption | null> {
    const operatorCode = operator.code;
    const stored = this.orders.orderNow(orderId);
    if (stored === null || stored.operatorCode !== operatorCode || stored.livemode !== operator.livemode) return null;
    const order = orderAt(stored, at);
    if (order.status !== 'CONFIRMED') throw new DomainError('voucher-void');
    if (this.redeemed.has(orderId)) throw new DomainError('voucher-already-redeemed');
    const redemption: VoucherRedemption = { orderId, operatorCode, redeemedAt: at, passengers: order.passengers };
    this.redeemed.set(orderId, redemption);
    this.outbox?.record([voucherRedeemed(order, redemption)]);
    return redemption;
  }
}
