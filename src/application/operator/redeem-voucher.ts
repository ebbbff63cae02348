import type { Operator } from '../../domain/catalogue/operator.js';
import type { VoucherCodes } from '../../domain/booking/voucher-codes.port.js';
import type { VoucherRedemption, VoucherRedemptions } from '../../domain/booking/voucher-redemptions.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

/**
 * An operator takes a traveller's voucher (CONTRACT §6.5): the code must verify against the
 * service's published keys (else `invalid-voucher`), name this operator's order (else
 * `order-not-found`, like any other operator's order), and the order must still be CONFIRMED
 * (`voucher-void` once cancelled); the first redemption wins, a later one is
 * `voucher-already-redeemed`.
 */
export class RedeemVoucher {
  constructor(
    private readonly codes: VoucherCodes,
    private readonly redemptions: VoucherRedemptions,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(operator: Operator, code: string): Promise<VoucherRedemption> {
    const claims = await this.codes.verify(code);
    if (claims === null) throw new DomainError('invalid-voucher');
    if (claims.op !== operator.code) throw new DomainError('order-not-found');
    const now = this.clock.now();
    const redeemed = await this.unitOfWork.run(() => this.redemptions.redeem(operator, claims.oid, now));
    if (redeemed === null) throw new DomainError('order-not-found');
    return redeemed;
  }
}
