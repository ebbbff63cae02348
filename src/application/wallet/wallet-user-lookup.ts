// The one "no such user" error of the wallet-user reads.

import { DomainError } from '../../domain/shared/errors.js';

export const userNotFound = () => new DomainError('user-not-found');
