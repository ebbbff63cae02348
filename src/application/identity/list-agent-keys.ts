import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { keyViewAt, type KeyView } from '../../domain/identity/api-key.js';
import type { KeyUseRecorder } from '../../domain/identity/key-usage.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** An agent's keys as they stand now, with the most recent use known (stored or noted here). */
export class ListAgentKeys {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
    private readonly usage?: KeyUseRecorder,
  ) {}

  /** The keys of `agentId`, oldest first; DomainError `agent-not-found` when there is no such agent. */
  async execute(agentId: string): Promise<KeyView[]> {
    const keys = await this.directory.listKeys(agentId);
    if (keys.length === 0 && (await this.directory.findAgent(agentId)) === null) {
      throw new DomainError('agent-not-found');
    }
    const now = this.clock.now();
    return keys.map(({ key, lastUsedAt }) => keyViewAt(key, latest(lastUsedAt, this.usage?.lastNoted(key.id) ?? null), now));
  }
}

const latest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null ? a : a.getTime() >= b.getTime() ? a : b);
