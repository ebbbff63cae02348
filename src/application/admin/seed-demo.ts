import type { CatalogueCounts } from '../../domain/catalogue/catalogue.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { SeedCatalogue } from '../catalogue/seed-catalogue.js';
import type { CreateAgent, CreateChannel } from './manage-agents.js';
import type { IssueApiKey } from './manage-keys.js';

export const DEMO_CHANNEL = { code: 'DEMO-B2B', name: 'Demo B2B channel', currency: 'THB', markupBps: 1_000 } as const;
export const DEMO_AGENT_NAME = 'Demo Travel Agency';

/** Extra demo data from other areas (the wallet's demo tenant), added by the composition root. */
export interface DemoContribution {
  seed(): Promise<Record<string, unknown>>;
}

export interface DemoCredentials {
  readonly catalogue: CatalogueCounts;
  /** False when the demo data already existed; a new key is issued either way. */
  readonly created: boolean;
  readonly channel: string;
  readonly agentId: string;
  readonly keyId: string;
  readonly apiKey: string;
  readonly [extra: string]: unknown;
}

/**
 * Seeds the demo: the catalogue, a channel, an agent entitled to everything with a key, plus
 * what other areas contribute. Running it again reuses what exists and issues a fresh key, since
 * the earlier one cannot be shown again.
 */
export class SeedDemo {
  constructor(
    private readonly seedCatalogue: SeedCatalogue,
    private readonly directory: AgentDirectory,
    private readonly createChannel: CreateChannel,
    private readonly createAgent: CreateAgent,
    private readonly issueKey: IssueApiKey,
    private readonly contributions: readonly DemoContribution[],
  ) {}

  async execute(): Promise<DemoCredentials> {
    const catalogue = await this.seedCatalogue.execute();
    let created = false;
    if ((await this.directory.findChannel(DEMO_CHANNEL.code)) === null) {
      await this.createChannel.execute(DEMO_CHANNEL);
      created = true;
    }
    const existing = (await this.directory.findAgentsByChannel(DEMO_CHANNEL.code)).find((a) => a.name === DEMO_AGENT_NAME);
    const agent = existing ?? (await this.createAgent.execute({ name: DEMO_AGENT_NAME, channelCode: DEMO_CHANNEL.code, discountBps: 500 }));
    const key = await this.issueKey.execute({ agentId: agent.id });
    let extra: Record<string, unknown> = {};
    for (const contribution of this.contributions) extra = { ...extra, ...(await contribution.seed()) };
    return { ...extra, catalogue, created, channel: DEMO_CHANNEL.code, agentId: agent.id, keyId: key.keyId, apiKey: key.apiKey };
  }
}
