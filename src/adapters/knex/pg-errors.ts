/** PostgreSQL error classification by SQLSTATE, identical on the server and on PGlite. */
const code = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;

export const isUniqueViolation = (err: unknown): boolean => code(err) === '23505';
export const isForeignKeyViolation = (err: unknown): boolean => code(err) === '23503';
/** Serialization failure or deadlock: safe to retry the whole transaction. */
export const isRetryableTransactionError = (err: unknown): boolean => {
  const c = code(err);
  return c === '40001' || c === '40P01';
};
