import { DomainError } from '../../src/domain/shared/errors.js';

/** The `reason` a promise rejects with, or `'resolved'`; anything but a DomainError is rethrown. */
export const reasonOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    if (err instanceof DomainError) return err.reason;
    throw err;
  }
};

/** The `reason` of a problem+json response. */
export const reasonIn = async (res: Response): Promise<string> => ((await res.json()) as { reason: string }).reason;
