// Lookup and paging helpers shared by the webhook endpoint and delivery use cases.

import { DomainError } from '../../domain/shared/errors.js';
import { decodeCursor, encodeCursor, type Cursor, type Page } from '../../domain/shared/page.js';

export const endpointNotFound = () => new DomainError('webhook-endpoint-not-found');

export const cursorOf = (cursor: string | undefined): Cursor | null => {
  if (cursor === undefined) return null;
  const after = decodeCursor(cursor);
  if (after === null)
    throw new DomainError('invalid-request', {
      message: 'The cursor is not valid.',
      details: {
        errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
      },
    });
  return after;
};

export const pageOf = <T extends { createdAt: Date; id: string }>(rows: readonly T[], limit: number): Page<T> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
};
