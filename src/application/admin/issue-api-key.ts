import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { mintApiKey, type ApiKeyRecord } from '../../domain/identity/api-key.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

const DAY_MS = 86_400_000;

/** Issues a key to an agent. The plaintext is returned here once and stored nowhere. */
export class IssueApiKey {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: { agentId: string; expiresInDays?: number }): Promise<{ keyId: string; apiKey: string; record: ApiKeyRecord }> {
    const days = input.expiresInDays;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650)) {
      throw new DomainError('invalid-request', { message: 'Expiry must be a whole number of days from 1 to 3650.' });
    }
    if ((await this.directory.findAgent(input.agentId)) === null) {
      throw new DomainError('agent-not-found');
    }
    const now = this.clock.now();
    const { apiKey, record } = mintApiKey(this.random, this.hasher, {
      id: this.ids.next('key'),
      agentId: input.agentId,
      createdAt: now,
      expiresAt: days === undefined ? null : new Date(now.getTime() + days * DAY_MS),
      rolledFromKeyId: null,
    });
    await this.directory.insertKey(record);
    return { keyId: record.id, apiKey, record };
  }
}
