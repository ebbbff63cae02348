/**
 * Domain errors carry a stable `reason` that clients branch on and a `kind` that the
 * transport maps to a status. No transport detail (HTTP status) lives here.
 */
export type ErrorKind =
  'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'gone' | 'invalid' | 'unprocessable' | 'too-many' | 'unavailable';

/** The closed set of reasons the service answers with. Add a reason here before using it. */
export type Reason =
  // request shape
  | 'invalid-request'
  // booking identity
  | 'missing-api-key'
  | 'invalid-api-key'
  | 'agent-suspended'
  | 'not-entitled'
  // booking flow
  | 'quote-not-found'
  | 'quote-channel-mismatch'
  | 'quote-expired'
  | 'quote-already-booked'
  | 'sold-out'
  | 'order-not-found'
  | 'order-already-cancelled'
  | 'booked-with-leaked-key'
  | 'cancellation-window-closed'
  | 'location-not-found'
  | 'trip-not-found'
  | 'no-fare'
  | 'trip-departed'
  // idempotency
  | 'idempotency-key-reused'
  | 'idempotency-key-in-use'
  // wallet identity
  | 'invalid-token'
  | 'not-a-wallet-user'
  | 'machine-token-required'
  | 'invalid-credentials'
  | 'password-too-common'
  | 'too-many-attempts'
  | 'user-exists'
  | 'user-not-found'
  | 'tenant-not-found'
  | 'invalid-client'
  | 'user-disabled'
  // wallet money
  | 'insufficient-funds'
  | 'refund-exceeds-payment'
  | 'transaction-not-found'
  | 'not-refundable'
  | 'currency-mismatch'
  | 'same-user-transfer'
  // operations
  | 'rate-limited'
  | 'service-unavailable'
  // administration
  | 'agent-not-found'
  | 'channel-not-found'
  | 'channel-exists'
  | 'key-not-found'
  // agents' own keys
  | 'key-already-rolled'
  // webhooks
  | 'invalid-webhook-url'
  | 'webhook-endpoint-not-found'
  | 'webhook-delivery-not-found'
  | 'too-many-webhook-endpoints';

/** A rule of the service was broken; `reason` is the stable code, `message` is for humans. */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  constructor(
    readonly reason: Reason,
    readonly kind: ErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const notFound = (reason: Reason, message: string): DomainError => new DomainError(reason, 'not-found', message);
export const conflict = (reason: Reason, message: string): DomainError => new DomainError(reason, 'conflict', message);
export const invalid = (reason: Reason, message: string, details?: Record<string, unknown>): DomainError =>
  new DomainError(reason, 'invalid', message, details);
