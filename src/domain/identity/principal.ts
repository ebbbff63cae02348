import type { Channel, Product } from './agent.js';

/** Who is calling the booking surface, resolved from the API key alone. */
export interface AgentPrincipal {
  readonly kind: 'agent';
  readonly agentId: string;
  readonly agentName: string;
  /** The id of the key that authenticated this call; recorded on what the call creates. */
  readonly keyId: string;
  /** What may be shown of the key that authenticated this call. */
  readonly key: {
    readonly id: string;
    readonly prefix: string;
    readonly createdAt: Date;
    readonly expiresAt: Date | null;
    /** The key's scopes and allowlist, checked on every request (`decideKeyPolicy`). */
    readonly scopes: readonly string[];
    readonly allowedIps: readonly string[];
  };
  readonly channel: Channel;
  readonly entitlements: readonly Product[];
  readonly discountBps: number;
  /** False when the caller is a sandbox agent (its key is `pbk_test_…`). */
  readonly livemode: boolean;
}

/** A tenant's backend, authenticated by a machine token. */
export interface MachinePrincipal {
  readonly kind: 'machine';
  readonly tenantId: string;
  readonly clientId: string;
}

/** One wallet holder, authenticated by a user token (password login or delegated). */
export interface WalletUserPrincipal {
  readonly kind: 'user';
  readonly tenantId: string;
  readonly userId: string;
  /** How the person was authenticated: `pwd` or `tenant_delegated`. */
  readonly amr: readonly string[];
  /** The client that asserted the person, for delegated tokens. */
  readonly act: { readonly sub: string } | null;
  /** The client the token was issued to. */
  readonly clientId: string;
}

/** A caller of the wallet surface. */
export type WalletPrincipal = MachinePrincipal | WalletUserPrincipal;
