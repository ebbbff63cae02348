/** A voucher taken by its operator: the order it was for, when, and who travels. */
export interface VoucherRedemption {
  readonly orderId: string;
  readonly operatorCode: string;
  readonly redeemedAt: Date;
  readonly passengers: ReadonlyArray<{ readonly name: string }>;
}

/**
 * Where vouchers are redeemed. Run inside a unit of work (`UnitOfWork`, of the application), the
 * write takes part in it.
 */
export interface VoucherRedemptions {
  /**
   * Redeems the voucher of the operator's order at `at`, at most once per order: locks the order
   * (so a cancel in flight is waited for and seen), then refuses with DomainError `voucher-void`
   * when the order is not CONFIRMED as true at `at` (it was cancelled), and with
   * `voucher-already-redeemed` when a redemption of it is recorded; else records the redemption
   * and its `order.voucher_redeemed` event for the agent in the same transaction. Of any number of
   * concurrent redemptions of one order exactly one succeeds (the storage keeps one row per
   * order). Returns null when the order does not exist, is another operator's, or of the other
   * mode (a live operator never redeems a sandbox order's voucher, nor the other way round).
   */
  redeem(operator: { readonly code: string; readonly livemode: boolean }, orderId: string, at: Date): Promise<VoucherRedemption | null>;
}
