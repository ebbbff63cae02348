import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { isKeyUsable } from '../../domain/identity/api-key.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { agentSummary, type AgentSummary } from './list-agents.js';

/** One agent as an operator sees it: its contract, its channel's terms and how many keys work now. */
export interface AgentDetails extends AgentSummary {
  readonly channelName: string;
  readonly currency: string;
  readonly markupBps: number;
  /** Keys that authenticate now (active, not expired, not past a rotation's overlap). */
  readonly usableKeys: number;
  /** Every key ever issued to or rolled by the agent. */
  readonly totalKeys: number;
}

/** Shows one agent; `agent-not-found` when there is none. */
export class ShowAgent {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(agentId: string): Promise<AgentDetails> {
    const agent = await this.directory.findAgent(agentId);
    if (agent === null) throw new DomainError('agent-not-found');
    const [channel, keys] = await Promise.all([this.directory.findChannel(agent.channelCode), this.directory.listKeys(agentId)]);
    if (channel === null) throw new DomainError('channel-not-found');
    const now = this.clock.now();
    return {
      ...agentSummary(agent),
      channelName: channel.name,
      currency: channel.currency,
      markupBps: channel.markupBps,
      usableKeys: keys.filter(({ key }) => isKeyUsable(key, now)).length,
      totalKeys: keys.length,
    };
  }
}
