import { isWellFormedOperatorKey, operatorFromKey } from '../../domain/catalogue/operator-key.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import { requirePresentedKey } from '../../domain/identity/authenticate-agent.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/**
 * Resolves the `X-API-KEY` header of the operator surface to the calling operator: none →
 * `missing-api-key`; anything but a known, unrevoked operator key (an agent key included) →
 * `invalid-api-key`, checked for shape before any lookup.
 */
export class AuthenticateOperator {
  constructor(
    private readonly keys: Pick<OperatorKeyStore, 'findByKeyHash'>,
    private readonly hasher: SecretHasher,
  ) {}

  async execute(presentedKey: string | undefined): Promise<Operator> {
    const key = requirePresentedKey(presentedKey);
    if (!isWellFormedOperatorKey(key)) throw new DomainError('invalid-api-key');
    return operatorFromKey(await this.keys.findByKeyHash(this.hasher.hash(key)));
  }
}
