/**
 * Domain errors carry a stable `reason` that clients branch on and a `kind` that the
 * transport maps to a status. No transport detail (HTTP status) lives here.
 */
export type ErrorKind =
  'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'gone' | 'invalid' | 'unprocessable' | 'too-many' | 'unavailable';

interface ReasonEntry {
  readonly kind: ErrorKind;
  /** The message a call site gets unless it says something more precise about the request. */
  readonly message: string;
}

/**
 * The closed set of reasons the service answers with, each with its kind and default message.
 * Add a reason here before using it; a call site then names only the reason.
 */
export const REASONS = {
  // request shape
  'invalid-request': { kind: 'invalid', message: 'The request is not valid.' },
  // booking identity
  'missing-api-key': { kind: 'unauthenticated', message: 'The X-API-KEY header is required.' },
  'invalid-api-key': { kind: 'unauthenticated', message: 'The API key is not valid.' },
  'agent-suspended': { kind: 'forbidden', message: 'The agent account is not active.' },
  'not-entitled': { kind: 'forbidden', message: 'The agent is not entitled to this product.' },
  'insufficient-scope': { kind: 'forbidden', message: 'This key does not hold the scope this operation needs.' },
  'ip-not-allowed': { kind: 'forbidden', message: 'This key may not be used from this address.' },
  // booking flow
  'quote-not-found': { kind: 'not-found', message: 'No such quote.' },
  'quote-channel-mismatch': {
    kind: 'conflict',
    message: 'The quote was minted for another channel than the one this key resolves to. Request a new quote.',
  },
  'quote-expired': { kind: 'gone', message: 'The quote has expired. Request a new quote.' },
  'quote-already-booked': { kind: 'conflict', message: 'The quote has already been booked.' },
  'sold-out': { kind: 'conflict', message: 'Not enough seats or vehicles are left for this booking.' },
  'order-not-found': { kind: 'not-found', message: 'No such order.' },
  'order-already-cancelled': { kind: 'conflict', message: 'The order is already cancelled.' },
  'booked-with-leaked-key': {
    kind: 'conflict',
    message: 'The order was placed with an API key that was revoked as leaked; it cannot be cancelled through the API. Contact support.',
  },
  'order-not-cancellable': {
    kind: 'conflict',
    message: 'Only a confirmed or pending order can be cancelled; a hold is released instead.',
  },
  'order-not-on-hold': { kind: 'conflict', message: 'The order is not on hold.' },
  'hold-expired': { kind: 'gone', message: 'The hold has expired; its seats or vehicle and its price are no longer held.' },
  'order-not-pending': { kind: 'conflict', message: 'The order is not waiting for the operator.' },
  'order-has-no-deadline': { kind: 'conflict', message: 'Only a hold or a pending order has a deadline to reach.' },
  'too-late-to-request': { kind: 'conflict', message: 'The operator cannot confirm in time before the trip starts.' },
  'cancellation-window-closed': { kind: 'conflict', message: 'The pickup or departure has passed; the order can no longer be cancelled.' },
  'voucher-not-available': { kind: 'conflict', message: 'Only a confirmed order has a voucher.' },
  'invalid-voucher': { kind: 'invalid', message: 'The voucher code is not one this service signed, or it was altered.' },
  'voucher-already-redeemed': { kind: 'conflict', message: 'This voucher has already been redeemed.' },
  'voucher-void': { kind: 'gone', message: 'The order was cancelled; its voucher is void.' },
  'location-not-found': { kind: 'not-found', message: 'No such location.' },
  'trip-not-found': { kind: 'not-found', message: 'No such trip.' },
  'no-fare': { kind: 'unprocessable', message: 'There is no fare between these locations.' },
  'trip-departed': { kind: 'conflict', message: 'The trip has already departed.' },
  // idempotency
  'idempotency-key-reused': { kind: 'unprocessable', message: 'This Idempotency-Key was used with a different request.' },
  'idempotency-key-in-use': { kind: 'conflict', message: 'A request with this Idempotency-Key is still in progress. Retry later.' },
  // wallet identity
  'invalid-token': { kind: 'unauthenticated', message: 'The bearer token is missing or not valid.' },
  'not-a-wallet-user': { kind: 'unauthenticated', message: 'Authenticated principal is not a wallet user.' },
  'machine-token-required': { kind: 'forbidden', message: 'This operation needs the tenant’s machine token.' },
  'invalid-credentials': { kind: 'unauthenticated', message: 'The email or password is not correct.' },
  'password-too-common': {
    kind: 'invalid',
    message:
      'This password is too common (it is on a list of commonly used or breached passwords, or repeats a short run); choose another.',
  },
  'too-many-attempts': { kind: 'too-many', message: 'Too many failed login attempts. Try again later.' },
  'user-exists': { kind: 'conflict', message: 'The tenant already has a user with that externalUserRef.' },
  'user-not-found': { kind: 'not-found', message: 'No such user.' },
  'tenant-not-found': { kind: 'not-found', message: 'No such tenant.' },
  'invalid-client': { kind: 'unauthenticated', message: 'Client authentication failed.' },
  'user-disabled': { kind: 'forbidden', message: 'The wallet user is disabled; no token is issued for it.' },
  'invalid-dpop-proof': { kind: 'unauthenticated', message: 'The DPoP proof is missing or not valid for this request.' },
  'invalid-grant': { kind: 'invalid', message: 'The grant (subject token) is not valid.' },
  'invalid-target': { kind: 'invalid', message: 'The token cannot be issued for the audience or resource asked for.' },
  // wallet money
  'insufficient-funds': { kind: 'unprocessable', message: 'The balance is too low for this amount.' },
  'refund-exceeds-payment': { kind: 'unprocessable', message: 'The refund is more than what remains of the payment.' },
  'transaction-not-found': { kind: 'not-found', message: 'No such transaction.' },
  'not-refundable': { kind: 'unprocessable', message: 'Only payments can be refunded.' },
  'currency-mismatch': { kind: 'unprocessable', message: 'The amount is not in the wallet’s currency.' },
  'same-user-transfer': { kind: 'unprocessable', message: 'A transfer needs a recipient other than the sender.' },
  'authorization-not-found': { kind: 'not-found', message: 'No such authorization.' },
  'authorization-not-pending': { kind: 'conflict', message: 'The authorization is no longer pending: captured, voided or expired.' },
  'exceeds-authorization': { kind: 'unprocessable', message: 'The capture is more than what remains of the authorization.' },
  // operations
  'rate-limited': { kind: 'too-many', message: 'Too many requests. Retry later.' },
  'service-unavailable': { kind: 'unavailable', message: 'The service is temporarily unavailable. Retry shortly.' },
  /** A write the stored data refused as conflicting with one made meanwhile (a unique key, a missing reference). */
  conflict: { kind: 'conflict', message: 'The request conflicts with data stored meanwhile. Retry it.' },
  // administration
  'agent-not-found': { kind: 'not-found', message: 'No such agent.' },
  'channel-not-found': { kind: 'not-found', message: 'No such channel.' },
  'channel-exists': { kind: 'conflict', message: 'A channel with this code exists.' },
  'operator-not-found': { kind: 'not-found', message: 'No such operator.' },
  'operator-exists': { kind: 'conflict', message: 'An operator with this code exists.' },
  'key-not-found': { kind: 'not-found', message: 'No such key.' },
  // agents' own keys
  'key-already-rolled': { kind: 'conflict', message: 'This key has already been rolled; use the key it was rolled to.' },
  'scope-not-held': { kind: 'forbidden', message: 'A key can only be given scopes the calling key holds.' },
  'policy-not-held': {
    kind: 'forbidden',
    message: 'A key can only make keys used from within its own allowedIps and expiring no later than it does.',
  },
  'too-many-keys': { kind: 'conflict', message: 'The agent holds as many keys as allowed (keys in a roll’s overlap count).' },
  // webhooks
  'invalid-webhook-url': { kind: 'invalid', message: 'The webhook URL is refused.' },
  'webhook-endpoint-not-found': { kind: 'not-found', message: 'No such webhook endpoint.' },
  'webhook-delivery-not-found': { kind: 'not-found', message: 'No such delivery of this endpoint.' },
  'too-many-webhook-endpoints': { kind: 'conflict', message: 'The owner has as many webhook endpoints as allowed; delete one first.' },
} as const satisfies Readonly<Record<string, ReasonEntry>>;

export type Reason = keyof typeof REASONS;

/**
 * The reasons of the transport, given before or around a use case rather than by one (no
 * `DomainError` carries them): a body that is not JSON, too large or of another type, an
 * unknown path, a fault, and a service leaving. With `REASONS`, the whole catalogue of the
 * `reason` an answer can carry.
 */
export const TRANSPORT_REASONS = [
  'malformed-json',
  'payload-too-large',
  'unsupported-media-type',
  'not-found',
  'internal-error',
  'shutting-down',
] as const;
export type TransportReason = (typeof TRANSPORT_REASONS)[number];

/** Every `reason` a problem answer can carry: the domain's and the transport's. */
export type ProblemReason = Reason | TransportReason;

export interface DomainErrorOptions {
  /** Replaces the reason's default message when the call site can say more (a limit, the value refused). */
  readonly message?: string;
  /** Extra fields for the client, such as `errors: [{ path, message }]`. */
  readonly details?: Record<string, unknown>;
  readonly cause?: unknown;
}

/** A rule of the service was broken; `reason` is the stable code, `message` is for humans. */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  /** What sort of failure this is, fixed by the reason. */
  readonly kind: ErrorKind;
  readonly details?: Record<string, unknown>;

  constructor(
    readonly reason: Reason,
    options: DomainErrorOptions = {},
  ) {
    super(options.message ?? REASONS[reason].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = REASONS[reason].kind;
    if (options.details !== undefined) this.details = options.details;
  }
}
