import type { Request } from 'express';
import type { z } from 'zod';

/**
 * Parses the body with a zod object schema. Unknown fields are dropped (zod's default `strip`),
 * so a `channel`, `agentId` or `price` the caller sends never reaches a use case.
 */
export const parseBody = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => schema.parse(req.body);

/** Parses the query string the same way. */
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => schema.parse(req.query);

/** Parses path parameters the same way. */
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => schema.parse(req.params);
