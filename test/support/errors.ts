export { reasonOf } from '../../src/testing/fixtures.js';

/** The `reason` of a problem+json response. */
export const reasonIn = async (res: Response): Promise<string> => ((await res.json()) as { reason: string }).reason;
