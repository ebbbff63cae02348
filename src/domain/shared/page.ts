import { DomainError } from './errors.js';

/** A keyset page: the items and an opaque cursor for the next page, or null at the end. */
export interface Page<T> {
  readonly data: readonly T[];
  readonly nextCursor: string | null;
}

/** Where a keyset page starts: strictly after (createdAt, id) in the listing order. */
export interface Cursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** The smallest, default and largest page sizes. */
export const PAGE_LIMITS = { min: 1, default: 20, max: 100 } as const;

/** What a caller sends to page through a listing: an opaque cursor and a page size, both optional. */
export interface PageQuery {
  readonly cursor?: string | null | undefined;
  readonly limit?: number | undefined;
}

/** A checked page request: where the page starts (null for the first page) and how many items it holds. */
export interface PageRequest {
  readonly after: Cursor | null;
  readonly limit: number;
}

/** The one answer to a cursor this service did not issue (or that was altered). */
const invalidCursor = (): DomainError =>
  new DomainError('invalid-request', {
    message: 'The cursor is not valid.',
    details: { errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }] },
  });

/**
 * Checks a caller's page query: the cursor must be one `pageOf` issued, the limit a whole number
 * within PAGE_LIMITS (the default when absent). Throws `invalid-request` otherwise.
 */
export const pageRequest = (query: PageQuery): PageRequest => {
  const limit = query.limit ?? PAGE_LIMITS.default;
  if (!Number.isInteger(limit) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
    throw new DomainError('invalid-request', {
      message: `limit must be a whole number from ${PAGE_LIMITS.min} to ${PAGE_LIMITS.max}.`,
      details: { errors: [{ path: 'limit', message: `must be an integer from ${PAGE_LIMITS.min} to ${PAGE_LIMITS.max}` }] },
    });
  }
  if (query.cursor === undefined || query.cursor === null) return { after: null, limit };
  const after = decodeCursor(query.cursor);
  if (after === null) throw invalidCursor();
  return { after, limit };
};

/**
 * Turns up to `limit + 1` rows, in listing order, into a page of `limit` with the cursor of its
 * last item; the extra row only says that another page exists.
 */
export const pageOf = <T extends Cursor>(rows: readonly T[], limit: number): Page<T> => pageAt(rows, limit, (t) => t);

/** `pageOf` for a listing ordered by another (time, id) position than (createdAt, id). */
export const pageAt = <T>(rows: readonly T[], limit: number, position: (item: T) => Cursor): Page<T> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  if (rows.length <= limit || last === undefined) return { data, nextCursor: null };
  const { createdAt, id } = position(last);
  return { data, nextCursor: encodeCursor({ createdAt, id }) };
};

/** Encodes a keyset position as an opaque token. */
export const encodeCursor = (c: Cursor): string => base64url(`${c.createdAt.toISOString()}|${c.id}`);

/** An id the service issues: its kind's prefix (`ord`, `txn`, `auth`, …), an underscore, then letters and digits. */
const ID = /^[a-z]{3,4}_[A-Za-z0-9]{1,64}$/;

/** Decodes a token from `encodeCursor`; returns null for anything else. */
const decodeCursor = (token: string): Cursor | null => {
  const raw = unbase64url(token);
  if (raw === null) return null;
  const sep = raw.indexOf('|');
  if (sep < 0) return null;
  const createdAt = new Date(raw.slice(0, sep));
  const id = raw.slice(sep + 1);
  if (Number.isNaN(createdAt.getTime()) || !ID.test(id)) return null;
  return { createdAt, id };
};

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 1 >= bytes.length ? 2 : i + 2 >= bytes.length ? 3 : 4;
    for (let j = 0; j < chars; j++) out += B64[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}

function unbase64url(token: string): string | null {
  if (token.length === 0 || token.length > 256 || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i += 4) {
    const chunk = token.slice(i, i + 4);
    let n = 0;
    for (let j = 0; j < 4; j++) n = (n << 6) | (j < chunk.length ? B64.indexOf(chunk[j]!) : 0);
    bytes.push((n >> 16) & 255);
    if (chunk.length > 2) bytes.push((n >> 8) & 255);
    if (chunk.length > 3) bytes.push(n & 255);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}
