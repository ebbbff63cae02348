import type { ResponseSpec } from '../operation.js';

/** The identity responses every keyed booking operation can give. */
export const KEY_ERRORS: Readonly<Record<number, ResponseSpec>> = {
  401: { description: 'No key, or the key is unknown, revoked or expired', reasons: ['missing-api-key', 'invalid-api-key'] },
  403: { description: 'The agent is suspended', reasons: ['agent-suspended'] },
};

/** The same, for operations on one product, where entitlement is checked too. */
export const PRODUCT_KEY_ERRORS: Readonly<Record<number, ResponseSpec>> = {
  ...KEY_ERRORS,
  403: { description: 'The agent is suspended, or not entitled to the product', reasons: ['agent-suspended', 'not-entitled'] },
};

export const INVALID: ResponseSpec = { description: 'The request does not match the schema', reasons: ['invalid-request'] };
export const INVALID_BODY: ResponseSpec = {
  description: 'Malformed JSON or a body that does not match the schema',
  reasons: ['malformed-json', 'invalid-request'],
};
export const BODY_LIMITS: Readonly<Record<number, ResponseSpec>> = {
  413: { description: 'Body over 64 KiB', reasons: ['payload-too-large'] },
  415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
};
