import { mintOperatorKey, type OperatorKeyRecord } from '../../domain/catalogue/operator-key.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

/** Issues a key to an operator (CONTRACT §6.3). The plaintext is returned here once and stored nowhere. */
export class IssueOperatorKey {
  constructor(
    private readonly keys: OperatorKeyStore,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly operators: OperatorDirectory,
  ) {}

  /** `operator-not-found` when there is no such operator. */
  async execute(operatorCode: string): Promise<{ keyId: string; apiKey: string; key: OperatorKeyRecord }> {
    const operator = await this.operators.find(operatorCode);
    const { apiKey, record } = mintOperatorKey(this.random, this.hasher, {
      id: this.ids.next('opk'),
      operatorCode,
      createdAt: this.clock.now(),
      livemode: operator?.livemode ?? true,
    });
    const key = await this.keys.issue(record);
    return { keyId: key.id, apiKey, key };
  }
}

/** Revokes an operator key: it answers 401 on every instance within a second. Revoking twice changes nothing. */
export class RevokeOperatorKey {
  constructor(
    private readonly keys: OperatorKeyStore,
    private readonly clock: Clock,
  ) {}

  /** `key-not-found` when there is no such key. */
  execute(keyId: string): Promise<OperatorKeyRecord> {
    return this.keys.revoke(keyId, this.clock.now());
  }
}
