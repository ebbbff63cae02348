import type { AgentPrincipal } from '../../domain/identity/principal.js';

/** What an agent sees of its own account. */
export interface AgentAccount {
  readonly agentId: string;
  readonly name: string;
  readonly status: 'ACTIVE';
  readonly channel: { readonly code: string; readonly name: string; readonly currency: string };
  readonly entitlements: readonly string[];
  readonly pricing: {
    readonly currency: string;
    readonly channelMarkupBps: number;
    readonly agentDiscountBps: number;
  };
  readonly apiKey: {
    readonly id: string;
    readonly prefix: string;
    readonly createdAt: Date;
    readonly expiresAt: Date | null;
  };
  /** False for a sandbox agent. */
  readonly livemode: boolean;
}

/** The calling agent's account, from its key alone: no parameter selects another agent. */
export class GetAgentAccount {
  execute(principal: AgentPrincipal): AgentAccount {
    const { channel } = principal;
    return {
      agentId: principal.agentId,
      name: principal.agentName,
      // Only an ACTIVE agent gets this far (principalFromKey refuses the rest).
      status: 'ACTIVE',
      channel: { code: channel.code, name: channel.name, currency: channel.currency },
      entitlements: principal.entitlements,
      pricing: {
        currency: channel.currency,
        channelMarkupBps: channel.markupBps,
        agentDiscountBps: principal.discountBps,
      },
      // What the account shows of the key: its identity and expiry (its policy is the key listing's).
      apiKey: {
        id: principal.key.id,
        prefix: principal.key.prefix,
        createdAt: principal.key.createdAt,
        expiresAt: principal.key.expiresAt,
      },
      livemode: principal.livemode,
    };
  }
}
