import { generateApiKey, isWellFormedApiKey, keyDisplayPrefix, keyPrefixFor } from '../identity/api-key.js';
import { DomainError } from '../shared/errors.js';
import type { RandomSource, SecretHasher } from '../shared/secrets.port.js';
import type { Operator } from './operator.js';

/**
 * Operator keys look like agent keys with their own prefix: `pbo_` + 43 base62 characters of 32
 * random bytes + a 6-character checksum (CONTRACT §6.3). They are a separate identity: an
 * operator key is never an agent key, and the other way round.
 */
export const OPERATOR_KEY_PREFIX = 'pbo_';

/** An operator key as stored: never the plaintext, only its hash and display prefix. */
export interface OperatorKeyRecord {
  readonly id: string;
  readonly operatorCode: string;
  readonly hash: string;
  readonly prefix: string;
  readonly createdAt: Date;
  /** When it was revoked, or null while it authenticates. */
  readonly revokedAt: Date | null;
}

/** A stored operator key with the operator it belongs to. */
export interface ResolvedOperatorKey {
  readonly key: OperatorKeyRecord;
  readonly operator: Operator;
}

/** A new operator key: the plaintext (shown once, stored nowhere) and the record that stores only its hash. */
export const mintOperatorKey = (
  random: RandomSource,
  hasher: SecretHasher,
  fields: { readonly id: string; readonly operatorCode: string; readonly createdAt: Date; readonly livemode?: boolean },
): { apiKey: string; record: OperatorKeyRecord } => {
  const prefix = keyPrefixFor(OPERATOR_KEY_PREFIX, fields.livemode ?? true);
  const apiKey = generateApiKey(random, prefix);
  return {
    apiKey,
    record: {
      id: fields.id,
      operatorCode: fields.operatorCode,
      hash: hasher.hash(apiKey),
      prefix: keyDisplayPrefix(apiKey, prefix),
      createdAt: fields.createdAt,
      revokedAt: null,
    },
  };
};

/** True when the text has the shape of an operator key and its checksum matches. */
export const isWellFormedOperatorKey = (text: string): boolean => isWellFormedApiKey(text, OPERATOR_KEY_PREFIX);

/** The operator a presented key stands for, or `invalid-api-key` when it is unknown or revoked (no hint which). */
export const operatorFromKey = (resolved: ResolvedOperatorKey | null): Operator => {
  if (resolved === null || resolved.key.revokedAt !== null) throw new DomainError('invalid-api-key');
  return resolved.operator;
};
