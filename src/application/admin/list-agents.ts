import type { Agent } from '../../domain/identity/agent.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** What an operator sees of an agent in a listing: its contract, never a key or its hash. */
export interface AgentSummary {
  readonly agentId: string;
  readonly name: string;
  readonly status: Agent['status'];
  readonly channel: string;
  readonly entitlements: readonly string[];
  readonly discountBps: number;
  readonly createdAt: Date;
  /** False for a sandbox agent (`agent create --test`). */
  readonly livemode: boolean;
}

export const agentSummary = (a: Agent): AgentSummary => ({
  agentId: a.id,
  name: a.name,
  status: a.status,
  channel: a.channelCode,
  entitlements: [...a.entitlements],
  discountBps: a.discountBps,
  createdAt: a.createdAt,
  livemode: a.livemode,
});

/** Every agent, oldest first, or only those of one channel (`channel-not-found` for an unknown one). */
export class ListAgents {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(filter: { channelCode?: string | undefined } = {}): Promise<AgentSummary[]> {
    const code = filter.channelCode;
    if (code === undefined) return (await this.directory.listAgents()).map(agentSummary);
    if ((await this.directory.findChannel(code)) === null) throw new DomainError('channel-not-found');
    return (await this.directory.findAgentsByChannel(code)).map(agentSummary);
  }
}
