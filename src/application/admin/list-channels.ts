import type { Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';

/** Every channel with its pricing and cancellation terms. */
export class ListChannels {
  constructor(private readonly directory: AgentDirectory) {}

  execute(): Promise<Channel[]> {
    return this.directory.listChannels();
  }
}
