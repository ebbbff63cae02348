// The one "no such user" error of the wallet-user reads.

import { notFound } from '../../domain/shared/errors.js';

export const userNotFound = () => notFound('user-not-found', 'No such user.');
