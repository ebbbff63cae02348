import type { CatalogueCounts } from '../../domain/catalogue/catalogue.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { SeedCatalogue } from '../catalogue/seed-catalogue.js';
import type { CreateAgent } from './create-agent.js';
import type { CreateChannel } from './create-channel.js';
import type { IssueApiKey } from './issue-api-key.js';

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
  readonly [extra: string]: unknown;
}

/**
 * Seeds the demo: the catalogue, a channel, an agent entitled to everything with a key, plus
 * what other areas contribute. On an existing demo it changes nothing and issues nothing (only
 * hashes of secrets are stored, so the earlier ones cannot be shown again); `reset` issues new
 * ones: a new key, a new tenant secret and a new user password (the old secret and password stop
 * working; earlier keys stay valid until revoked).
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
    const key = existing === undefined || reset ? await this.issueKey.execute({ agentId: agent.id }) : null;
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
    };
  }
}
