import { z } from 'zod';
import { SEARCH_LIMITS } from '../../../domain/catalogue/catalogue.js';

/** Query of the two public autocomplete routes. */
export const autocompleteQuery = z.object({
  q: z.string().min(SEARCH_LIMITS.minQuery).max(SEARCH_LIMITS.maxQuery).describe('What the user typed so far'),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMITS.maxLimit).default(SEARCH_LIMITS.defaultLimit),
});

export const locationSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    type: z.enum(['airport', 'district', 'hotel']),
    city: z.string(),
    country: z.string(),
  })
  .meta({ id: 'Location', description: 'An airport, district or hotel that an airport transfer can start or end at' });

export const citySchema = z
  .object({ id: z.string(), name: z.string(), country: z.string() })
  .meta({ id: 'City', description: 'A city that express buses serve' });

export const locationListSchema = z.object({ data: z.array(locationSchema) }).meta({ id: 'LocationList' });
export const cityListSchema = z.object({ data: z.array(citySchema) }).meta({ id: 'CityList' });
