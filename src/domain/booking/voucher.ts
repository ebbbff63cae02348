import type { Product } from '../identity/agent.js';
import { DomainError } from '../shared/errors.js';
import { orderAt, type Order } from './order.js';

/** The JWS `typ` of a voucher's code (CONTRACT §6.5): what tells it from a wallet token signed with the same key. */
export const VOUCHER_TYPE = 'voucher+jwt';

/** How long after the pickup or departure a voucher is still shown as valid (`validUntil`). */
export const VOUCHER_VALID_AFTER_START_HOURS = 12;

/**
 * What a voucher's code says, and nothing else (CONTRACT §6.5): the order, its operator, the
 * trip's start and the passenger count, and when it was signed. An operator's scanner reads
 * these offline once the signature verifies against the published JWKS.
 */
export interface VoucherClaims {
  /** The order id. */
  readonly oid: string;
  /** The operator's code. */
  readonly op: string;
  /** The pickup or departure, in seconds since the epoch. */
  readonly sta: number;
  /** How many passengers travel on it. */
  readonly pax: number;
  /** When the code was signed, in seconds since the epoch. */
  readonly iat: number;
}

/** The voucher's data (`Accept: application/json`). */
export interface Voucher {
  readonly orderId: string;
  /** The compact JWS the QR code holds. */
  readonly code: string;
  /** The QR code's image, PNG. */
  readonly qrPng: Uint8Array;
  /** From the order's confirmation… */
  readonly validFrom: Date;
  /** …until `VOUCHER_VALID_AFTER_START_HOURS` after the pickup or departure. */
  readonly validUntil: Date;
}

/** What the printable page shows: everything a driver checks, in the operator's time zone. */
export interface VoucherSheet {
  readonly orderId: string;
  readonly product: Product;
  /** Where the trip starts and ends, as travellers read them (location or city names). */
  readonly from: string;
  readonly to: string;
  /** `Pickup` (airport transfer) or `Departure` (express bus). */
  readonly startLabel: 'Pickup' | 'Departure';
  /** The start in the operator's time zone, written out (`Tue 29 Dec 2026, 10:00`). */
  readonly startLocal: string;
  /** The operator's IANA time zone and its offset then (`Asia/Bangkok (UTC+07:00)`). */
  readonly timezone: string;
  /** Further lines about the trip (vehicle class, duration, arrival), label and value. */
  readonly details: ReadonlyArray<readonly [string, string]>;
  readonly passengers: readonly string[];
  readonly operatorName: string;
  readonly operatorReference: string | null;
  readonly code: string;
  readonly validFrom: Date;
  readonly validUntil: Date;
}

/**
 * The order as it is at `now` when it has a voucher: only a CONFIRMED order (true on read) of a
 * known operator does, else DomainError `voucher-not-available`.
 */
export const voucherOrderAt = (order: Order, now: Date): Order & { readonly operatorCode: string } => {
  const current = orderAt(order, now);
  if (current.status !== 'CONFIRMED') {
    throw new DomainError('voucher-not-available', { message: `The order is ${current.status}; only a CONFIRMED order has a voucher.` });
  }
  if (current.operatorCode === null)
    throw new DomainError('voucher-not-available', { message: 'The order has no operator to show it to.' });
  return current as Order & { readonly operatorCode: string };
};

/** The claims of the voucher of a confirmed order, signed at `at`. */
export const voucherClaimsOf = (order: Order & { readonly operatorCode: string }, at: Date): VoucherClaims => ({
  oid: order.id,
  op: order.operatorCode,
  sta: Math.floor(order.startsAt.getTime() / 1000),
  pax: order.passengers.length > 0 ? order.passengers.length : order.details.passengers,
  iat: Math.floor(at.getTime() / 1000),
});

/** When a confirmed order's voucher is shown as valid: from its confirmation to some hours after its start. */
export const voucherValidity = (order: Order): { validFrom: Date; validUntil: Date } => ({
  validFrom: order.confirmedAt ?? order.createdAt,
  validUntil: new Date(order.startsAt.getTime() + VOUCHER_VALID_AFTER_START_HOURS * 3_600_000),
});

/** Whether a value read from a code is a voucher's claims: every claim present with its type, nothing required missing. */
export const isVoucherClaims = (value: unknown): value is VoucherClaims => {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  const whole = (n: unknown): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  return (
    typeof v.oid === 'string' && v.oid !== '' && typeof v.op === 'string' && v.op !== '' && whole(v.sta) && whole(v.pax) && whole(v.iat)
  );
};

/**
 * `at` written out in `timezone` for a traveller (`Tue 29 Dec 2026, 10:00`), and the zone with
 * its offset at that moment (`Asia/Bangkok (UTC+07:00)`), so nobody has to guess whose clock it is.
 */
export const inTimeZone = (at: Date, timezone: string): { local: string; zone: string } => {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT$/, 'GMT+00:00').replace(/^GMT/, 'UTC');
  return {
    local: `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')}`,
    zone: `${timezone} (${offset})`,
  };
};
