import type { Agent, AgentStatus } from '../../domain/identity/agent.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** Suspends or re-activates an agent; every instance honours it within a second. */
export class SetAgentStatus {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(agentId: string, status: AgentStatus): Promise<Agent> {
    const agent = await this.directory.setAgentStatus(agentId, status);
    if (agent === null) throw new DomainError('agent-not-found');
    return agent;
  }
}
