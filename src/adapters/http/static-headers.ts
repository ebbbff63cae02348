import type { RequestHandler } from 'express';

/**
 * Runs a middleware that only sets fixed response headers (helmet with static options) once, at
 * start, and returns a middleware that applies the recorded headers: the same headers for the
 * cost of one middleware instead of a dozen. When the middleware turns out to read the request,
 * to answer by itself or to call `next` later, its headers may vary, and it is returned as is.
 */
export function precomputedHeaders(middleware: RequestHandler): RequestHandler {
  const set: Array<[string, string | number | readonly string[]]> = [];
  const removed: string[] = [];
  let readRequest = false;
  let passed = false;
  let unexpected = false;
  const req = new Proxy(
    {},
    {
      get: () => {
        readRequest = true;
        return undefined;
      },
    },
  );
  const res = new Proxy(
    {
      setHeader: (name: string, value: string | number | readonly string[]) => {
        set.push([name, value]);
        return res;
      },
      removeHeader: (name: string) => {
        removed.push(name);
      },
    },
    {
      get: (target, prop) => {
        if (prop === 'setHeader' || prop === 'removeHeader') return target[prop];
        unexpected = true;
        return undefined;
      },
    },
  );
  try {
    void middleware(req as never, res as never, (err?: unknown) => {
      if (err !== undefined) unexpected = true;
      passed = true;
    });
  } catch {
    unexpected = true;
  }
  if (readRequest || unexpected || !passed) return middleware;
  return (_req, response, next) => {
    for (const name of removed) response.removeHeader(name);
    for (const [name, value] of set) response.setHeader(name, value);
    next();
  };
}
