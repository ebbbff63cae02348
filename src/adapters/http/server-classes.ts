import type { Express } from 'express';
import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Request and response classes for `http.createServer` (Node's documented `IncomingMessage` and
 * `ServerResponse` options) whose instances are born with the prototypes Express gives them,
 * `app.request` and `app.response` (Express's public API, the objects its guide to overriding
 * the API extends). Express's switch of prototype on every request then finds them already in
 * place and does nothing: changing an object's prototype was one of the costlier things a
 * request did. Requests still go through Express's routers as usual.
 */
export const expressServerClasses = (
  app: Express,
): { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse } => {
  function Request(this: http.IncomingMessage, socket: Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return {
    IncomingMessage: Request as unknown as typeof http.IncomingMessage,
    ServerResponse: Response as unknown as typeof http.ServerResponse,
  };
};
