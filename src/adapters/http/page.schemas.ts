import { z } from 'zod';
import { PAGE_LIMITS } from '../../domain/shared/page.js';

/** The query fields of every keyset-paged listing: an opaque cursor and a page size within PAGE_LIMITS. */
export const pageQueryFields = {
  cursor: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(PAGE_LIMITS.min).max(PAGE_LIMITS.max).default(PAGE_LIMITS.default),
};
