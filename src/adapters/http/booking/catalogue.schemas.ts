import { z } from 'zod';
import { SEARCH_LIMITS } from '../../../domain/catalogue/catalogue.js';

/** Query of the two public autocomplete routes. */
export const autocompleteQuery = z.object({
  q: z.string().min(SEARCH_LIMITS.minQuery).max(SEARCH_LIMITS.maxQuery),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMITS.maxLimit).default(SEARCH_LIMITS.defaultLimit),
});

export const locationSchema = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  type: z.enum(['airport', 'district', 'hotel']),
  city: z.string(),
  country: z.string(),
});

export const citySchema = z.object({ id: z.string(), name: z.string(), country: z.string() });
