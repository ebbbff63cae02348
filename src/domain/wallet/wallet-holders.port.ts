/** What the money side needs to know about tenants and their wallet users. */
export interface WalletHolders {
  /** The tenant's ISO 4217 currency, or null when there is no such tenant. */
  currencyOf(tenantId: string): Promise<string | null>;
  /** Whether the user exists and belongs to this tenant (false for another tenant's user). */
  isHolder(tenantId: string, userId: string): Promise<boolean>;
}
