import type { ApiKeyRecord } from '../../domain/identity/api-key.js';
import { DomainError } from '../../domain/shared/errors.js';
import { FULL_KEY_SCOPES, parseAllowedIps, parseScopes } from '../../domain/identity/key-policy.js';
import { OPERATOR_CONTEXT } from '../../domain/security-events/security-event.js';
import { checkKeyName, checkNewKeyExpiry } from '../identity/key-fields.js';
import { KeyMint } from '../identity/key-mint.js';

const DAY_MS = 86_400_000;

/** Issues a key to an agent. The plaintext is returned here once and stored nowhere. */
export class IssueApiKey extends KeyMint {
  /**
   * Without `scopes` the key is a full key (`*`); without `allowedIps` it works from anywhere.
   * `expiresInDays` and `expiresAt` are two ways to name the expiry (at most one).
   */
  async execute(input: {
    agentId: string;
    expiresInDays?: number;
    expiresAt?: Date;
    name?: string;
    scopes?: readonly string[];
    allowedIps?: readonly string[];
  }): Promise<{ keyId: string; apiKey: string; record: ApiKeyRecord }> {
    const days = input.expiresInDays;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650)) {
      throw new DomainError('invalid-request', { message: 'Expiry must be a whole number of days from 1 to 3650.' });
    }
    if (days !== undefined && input.expiresAt !== undefined) {
      throw new DomainError('invalid-request', { message: 'Name the expiry once: in days or as a time, not both.' });
    }
    const name = input.name === undefined ? null : checkKeyName(input.name);
    const scopes = input.scopes === undefined ? FULL_KEY_SCOPES : parseScopes(input.scopes);
    const allowedIps = parseAllowedIps(input.allowedIps ?? [], this.ipRanges).map((r) => r.text);
    const now = this.clock.now();
    const expiresAt = days === undefined ? checkNewKeyExpiry(input.expiresAt ?? null, now) : new Date(now.getTime() + days * DAY_MS);
    const agent = await this.directory.findAgent(input.agentId);
    if (agent === null) {
      throw new DomainError('agent-not-found');
    }
    const { apiKey, record } = this.mint({
      agentId: input.agentId,
      createdAt: now,
      expiresAt,
      name,
      scopes,
      allowedIps,
      livemode: agent.livemode,
    });
    await this.directory.insertKey(record, OPERATOR_CONTEXT);
    return { keyId: record.id, apiKey, record };
  }
}
