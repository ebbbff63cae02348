import { DomainError } from './errors.js';

/** The `Idempotency-Key` header's shape: 1..255 visible ASCII characters. */
export const isValidIdempotencyKey = (key: string): boolean => /^[\x21-\x7e]{1,255}$/.test(key);

export const keyReused = (): DomainError => new DomainError('idempotency-key-reused');

export const keyInUse = (): DomainError => new DomainError('idempotency-key-in-use');
