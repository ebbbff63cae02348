import { spendableShort } from '../../domain/billing/agent-account.js';
import { DomainError } from '../../domain/shared/errors.js';
import { currencyMismatch } from '../../domain/wallet/ledger.js';

/** PostgreSQL error classification by SQLSTATE, identical on the server and on PGlite. */
export const sqlState = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
const code = sqlState;

/** The error's DETAIL field (`RAISE … USING DETAIL`), as both drivers hand it back; '' when none. */
export const detailOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'detail' in err && typeof (err as { detail: unknown }).detail === 'string'
    ? (err as { detail: string }).detail
    : '';

/**
 * The refusals of an agent's money that the database may raise at a commit (its triggers
 * deferred to it, 0042), as the domain's errors: PB012, the spendable and its currency in
 * DETAIL (`500 THB`), is `insufficient-funds`; PB020, the account's currency and the amount's
 * (`EUR THB`), `currency-mismatch`. `currency` stands in for a currency DETAIL does not name.
 * Null for anything else.
 */
export const moneyRefusal = (err: unknown, currency?: string): DomainError | null => {
  const state = code(err);
  if (state !== 'PB012' && state !== 'PB020') return null;
  const [value = '', named] = detailOf(err).trim().split(/\s+/);
  const other = named ?? currency ?? 'another currency';
  return state === 'PB012' ? spendableShort({ amount: Number(value), currency: other }) : currencyMismatch(value, other);
};

export const isUniqueViolation = (err: unknown): boolean => code(err) === '23505';
export const isForeignKeyViolation = (err: unknown): boolean => code(err) === '23503';
/** How many times a write that met a deadlock or a serialization failure is tried in all. */
export const TRANSACTION_ATTEMPTS = 3;

/** Serialization failure or deadlock: safe to retry the whole transaction. */
export const isRetryableTransactionError = (err: unknown): boolean => {
  const c = code(err);
  return c === '40001' || c === '40P01';
};

/** Codes of a database that cannot be reached, has gone away or has no room for another connection. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08006',
  '08001',
  '08003',
]);
/**
 * A statement or lock wait over its timeout, or a serialization failure or deadlock that its
 * retries did not resolve: the database is overloaded or contended, and a retry may succeed.
 */
const CONTENDED_CODES = new Set(['57014', '55P03', '40001', '40P01']);

/** Is this a database that cannot be reached, a pool with no free connection, or a database too busy to answer in time? */
const isUnavailable = (e: { name?: string; code?: string; message?: string }): boolean =>
  e.name === 'KnexTimeoutError' ||
  (e.code !== undefined && (UNAVAILABLE_CODES.has(e.code) || CONTENDED_CODES.has(e.code))) ||
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '');

/**
 * A failure of PostgreSQL (or PGlite, or the driver and pool before them) that no store turned
 * into a domain error, as the domain error the request meets; null for anything else.
 * - the database unreachable, gone, out of connections or too busy in time: `service-unavailable`;
 * - an agent's money refused at a commit (`moneyRefusal`): `insufficient-funds`, `currency-mismatch`;
 * - a value it refused (SQLSTATE class 22, "data exception": a NUL or other character the
 *   encoding cannot hold, text that is not a valid number or date, a value out of range):
 *   `invalid-request`. Input checks should have refused it first; this keeps one that slipped
 *   through a refusal rather than a fault;
 * - a write a constraint refused (23514 check, 23502 not null, 23505 unique, 23503 foreign key).
 *   The domain checks every rule before writing and the stores handle the unique keys they
 *   expect, so this is a rule the checks missed, or a race the constraint decided: a balance
 *   that would go below zero (`ledger_accounts_never_negative`) is `insufficient-funds`, any
 *   other CHECK or NOT NULL `invalid-request`, a unique key or a missing reference `conflict`
 *   (the stored data changed underneath the request, which may succeed if sent again).
 * The failure is the domain error's `cause` (its code and constraint are for the log); its SQL
 * and values never reach the message.
 */
export const databaseRefusal = (err: unknown): DomainError | null => {
  if (typeof err !== 'object' || err === null || err instanceof DomainError) return null;
  const e = err as { name?: string; code?: string; message?: string; constraint?: unknown };
  if (isUnavailable(e)) return new DomainError('service-unavailable', { cause: err });
  const money = moneyRefusal(err);
  if (money !== null) return money;
  const c = e.code;
  if (typeof c === 'string' && /^22[0-9A-Z]{3}$/.test(c))
    return new DomainError('invalid-request', { message: 'A value in the request cannot be stored or compared.', cause: err });
  if (c === '23514' || c === '23502')
    return e.constraint === 'ledger_accounts_never_negative'
      ? new DomainError('insufficient-funds', { message: 'The balance is too low for this amount.', cause: err })
      : new DomainError('invalid-request', { message: 'The request breaks a rule of the stored data.', cause: err });
  if (c === '23505' || c === '23503') return new DomainError('conflict', { cause: err });
  return null;
};
