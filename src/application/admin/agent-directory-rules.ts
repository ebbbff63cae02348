// Input rules shared by the channel and agent use cases (names and basis points).

import { DomainError } from '../../domain/shared/errors.js';

export const MAX_BPS = 10_000;

export const checkMarkup = (markupBps: number): void => {
  if (!Number.isInteger(markupBps) || Math.abs(markupBps) > MAX_BPS)
    throw new DomainError('invalid-request', { message: 'Markup must be an integer number of basis points between -10000 and 10000.' });
};

export const nameOk = (name: string): boolean => name.trim().length >= 1 && name.length <= 200;
