import { HttpProblem } from './problem.js';

/**
 * How deeply a JSON body may nest. No operation takes more than a few levels; the bound keeps
 * every later step that walks the body (canonical JSON, logging, validation) far from the stack
 * limit, whatever a client sends.
 */
export const JSON_MAX_DEPTH = 32;

/** A NUL character: PostgreSQL text cannot hold it, so no input may carry one to the database. */
export const hasNul = (text: string): boolean => text.includes('\u0000');

/**
 * Checks a parsed JSON body without recursion: nesting within JSON_MAX_DEPTH, and no NUL in any
 * string or member name. Throws HttpProblem 400 `invalid-request` naming the first offending path.
 */
export function checkJsonBody(body: unknown): void {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: body, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (hasNul(value)) throw nulAt(path);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_MAX_DEPTH) {
      throw new HttpProblem(400, 'invalid-request', `The JSON body nests deeper than ${JSON_MAX_DEPTH} levels.`, {
        errors: [{ path: path || '(root)', message: `nests deeper than ${JSON_MAX_DEPTH} levels` }],
      });
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], depth: depth + 1, path: join(path, String(i)) });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (hasNul(key)) throw nulAt(join(path, key.replaceAll('\u0000', '\\u0000')));
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: join(path, key) });
    }
  }
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const nulAt = (path: string): HttpProblem =>
  new HttpProblem(400, 'invalid-request', 'The request holds a NUL character (U+0000), which no field accepts.', {
    errors: [{ path: path || '(root)', message: 'must not contain a NUL character' }],
  });
