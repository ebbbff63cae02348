/** PostgreSQL error classification by SQLSTATE, identical on the server and on PGlite. */
export const sqlState = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
const code = sqlState;

/** The error's DETAIL field (`RAISE … USING DETAIL`), as both drivers hand it back; '' when none. */
export const detailOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'detail' in err && typeof (err as { detail: unknown }).detail === 'string'
    ? (err as { detail: string }).detail
    : '';

export const isUniqueViolation = (err: unknown): boolean => code(err) === '23505';
export const isForeignKeyViolation = (err: unknown): boolean => code(err) === '23503';
/** How many times a write that met a deadlock or a serialization failure is tried in all. */
export const TRANSACTION_ATTEMPTS = 3;

/** Serialization failure or deadlock: safe to retry the whole transaction. */
export const isRetryableTransactionError = (err: unknown): boolean => {
  const c = code(err);
  return c === '40001' || c === '40P01';
};
