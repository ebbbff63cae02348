import type { KeyView } from '../../domain/identity/api-key.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { ListAgentKeys } from './list-agent-keys.js';

/** The calling agent's own keys (metadata only). */
export class ListOwnKeys {
  constructor(private readonly keys: ListAgentKeys) {}

  execute(principal: AgentPrincipal): Promise<KeyView[]> {
    return this.keys.execute(principal.agentId);
  }
}
