import { DomainError } from '../../domain/shared/errors.js';

/** The longest key name. */
export const MAX_KEY_NAME_LENGTH = 100;

/** A key's name: trimmed, 1 to 100 characters; null stays null. */
export function checkKeyName(name: string): string;
export function checkKeyName(name: string | null): string | null;
export function checkKeyName(name: string | null): string | null {
  if (name === null) return null;
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_KEY_NAME_LENGTH) {
    throw new DomainError('invalid-request', {
      message: `name must be 1 to ${MAX_KEY_NAME_LENGTH} characters.`,
      details: { errors: [{ path: 'name', message: `must be 1 to ${MAX_KEY_NAME_LENGTH} characters` }] },
    });
  }
  return trimmed;
}

/** A new key's expiry must lie ahead. */
export const checkNewKeyExpiry = (expiresAt: Date | null, now: Date): Date | null => {
  if (expiresAt === null) return null;
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
    throw new DomainError('invalid-request', {
      message: 'expiresAt must be a time in the future.',
      details: { errors: [{ path: 'expiresAt', message: 'must be in the future' }] },
    });
  }
  return expiresAt;
};
