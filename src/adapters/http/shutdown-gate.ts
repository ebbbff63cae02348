import type { RequestHandler } from 'express';
import { sendProblem } from './problem.js';

/** Whether the stopping service still takes new requests. */
export interface ShutdownState {
  /** True once a stopping service refuses new requests (the ones in flight still finish). */
  refusing(): boolean;
}

/**
 * Refuses every request once the stopping service takes no new work: 503 `shutting-down` with
 * `Retry-After` and `Connection: close`, so the client sends it again on a new connection (to
 * another instance) and never reuses this one. Nothing of the request has been done.
 */
export function shutdownGate(state: ShutdownState): RequestHandler {
  return (_req, res, next) => {
    if (!state.refusing()) {
      next();
      return;
    }
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', '1');
    res.setHeader('Cache-Control', 'no-store');
    sendProblem(res, 503, 'shutting-down', 'The service is shutting down: send the request again.');
  };
}
