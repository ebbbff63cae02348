import type { CatalogueCounts } from '../../domain/catalogue/catalogue.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import type { FundAgent, SetAgentBilling } from '../billing/agent-billing.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { isKeyUsable } from '../../domain/identity/api-key.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { SeedCatalogue } from '../catalogue/seed-catalogue.js';
import type { CreateAgent } from './create-agent.js';
import type { CreateChannel } from './create-channel.js';
import type { IssueApiKey } from './issue-api-key.js';
import type { RevokeApiKey } from './revoke-api-key.js';

export const DEMO_CHANNEL = { code: 'DEMO-B2B', name: 'Demo B2B channel', currency: 'THB', markupBps: 1_000 } as const;
export const DEMO_AGENT_NAME = 'Demo Travel Agency';

/**
 * Extra demo data from other areas (the wallet's demo tenant), added by the composition root.
 * Secrets are issued only when created or when `reset` asks for new ones.
 */
export interface DemoContribution {
  seed(options: { readonly reset: boolean }): Promise<Record<string, unknown>>;
}

export interface DemoCredentials {
  readonly catalogue: CatalogueCounts;
  /** True when the demo did not exist before this call. */
  readonly created: boolean;
  /** True when secrets were issued (new demo, or `reset`); they are shown this once. */
  readonly issued: boolean;
  readonly channel: string;
  readonly agentId: string;
  /** The key issued now (absent when the demo existed and no reset was asked for). */
  readonly keyId?: string;
  readonly apiKey?: string;
  /** The demo agent's keys that a reset revoked (absent when nothing was reset). */
  readonly revokedKeyIds?: readonly string[];
  readonly [extra: string]: unknown;
}

/**
 * Seeds the demo: the catalogue, a channel, an agent entitled to everything with a key, plus
 * what other areas contribute. On an existing demo it changes nothing and issues nothing (only
 * hashes of secrets are stored, so the earlier ones cannot be shown again); `reset` issues new
 * ones: a new key, a new tenant secret and a new user password. The old secret and password stop
 * working, and so does every earlier key of the demo agent (revoked by the operator, as
 * `operator`, before the new key is issued): a reset never leaves a key behind.
 */
/** The demo agent's money: prepaid, with this much paid in (minor units of the demo channel's currency). */
export const DEMO_AGENT_FUNDS = 5_000_000;

/**
 * Makes the demo agent prepaid and funded with DEMO_AGENT_FUNDS, once: an agent still invoiced
 * with nothing moved (a new demo, or one seeded before accounts existed). A demo whose billing was
 * changed since is left as it is.
 */
export class DemoBilling {
  constructor(
    private readonly accounts: Pick<AgentAccounts, 'billingOf'>,
    private readonly setBilling: SetAgentBilling,
    private readonly fund: FundAgent,
    private readonly clock: Clock,
  ) {}

  async prepare(agentId: string): Promise<void> {
    const billing = await this.accounts.billingOf(agentId, DEMO_CHANNEL.currency, this.clock.now());
    if (billing.mode !== 'invoice' || billing.balance.amount !== 0 || billing.held.amount !== 0) return;
    await this.setBilling.execute({ agentId, mode: 'prepaid', creditLimit: 0 });
    await this.fund.execute({ agentId, amount: DEMO_AGENT_FUNDS, reference: 'demo funds' });
  }
}

export class SeedDemo {
  constructor(
    private readonly seedCatalogue: SeedCatalogue,
    private readonly directory: AgentDirectory,
    private readonly createChannel: CreateChannel,
    private readonly createAgent: CreateAgent,
    private readonly issueKey: IssueApiKey,
    private readonly revokeKey: RevokeApiKey,
    private readonly clock: Clock,
    private readonly contributions: readonly DemoContribution[],
    /** Makes the demo agent prepaid and funded (CONTRACT §6.4) while it was never billed otherwise. */
    private readonly demoBilling?: DemoBilling,
  ) {}

  async execute(options: { readonly reset?: boolean } = {}): Promise<DemoCredentials> {
    const reset = options.reset === true;
    const catalogue = await this.seedCatalogue.execute();
    let created = false;
    if ((await this.directory.findChannel(DEMO_CHANNEL.code)) === null) {
      await this.createChannel.execute(DEMO_CHANNEL);
      created = true;
    }
    const existing = (await this.directory.findAgentsByChannel(DEMO_CHANNEL.code)).find((a) => a.name === DEMO_AGENT_NAME);
    const agent = existing ?? (await this.createAgent.execute({ name: DEMO_AGENT_NAME, channelCode: DEMO_CHANNEL.code, discountBps: 500 }));
    const revokedKeyIds = existing !== undefined && reset ? await this.revokeEarlierKeys(agent.id) : null;
    const key = existing === undefined || reset ? await this.issueKey.execute({ agentId: agent.id }) : null;
    await this.demoBilling?.prepare(agent.id);
    let extra: Record<string, unknown> = {};
    for (const contribution of this.contributions) extra = { ...extra, ...(await contribution.seed({ reset })) };
    return {
      ...extra,
      catalogue,
      created,
      issued: key !== null,
      channel: DEMO_CHANNEL.code,
      agentId: agent.id,
      ...(key === null ? {} : { keyId: key.keyId, apiKey: key.apiKey }),
      ...(revokedKeyIds === null ? {} : { revokedKeyIds }),
    };
  }

  /** Revokes every key of the demo agent that still works (keys rolled from the demo key too). */
  private async revokeEarlierKeys(agentId: string): Promise<string[]> {
    const now = this.clock.now();
    const live = (await this.directory.listKeys(agentId)).filter(({ key }) => isKeyUsable(key, now));
    for (const { key } of live) await this.revokeKey.execute(key.id, 'operator');
    return live.map(({ key }) => key.id);
  }
}
