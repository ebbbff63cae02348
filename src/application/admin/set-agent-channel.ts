import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/**
 * Moves an agent to another sales channel. Its later quotes are priced with the new channel on
 * every instance within a second; a quote minted before the move is refused at order time
 * (`quote-channel-mismatch`), so no booking is made at the old channel's price.
 */
export class SetAgentChannel {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(agentId: string, channelCode: string): Promise<{ agentId: string; channel: string; previousChannel: string }> {
    const before = await this.directory.findAgent(agentId);
    if (before === null) throw new DomainError('agent-not-found');
    const after = await this.directory.setAgentChannel(agentId, channelCode);
    if (after === null) throw new DomainError('agent-not-found');
    return { agentId: after.id, channel: after.channelCode, previousChannel: before.channelCode };
  }
}
