import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { newRequestId } from './request-context.js';

/**
 * Answers a request that Node's HTTP parser refused before Express saw it (an unknown method, a
 * CR or LF inside a header value, a malformed request line or framing, oversized headers, a
 * client too slow to send its headers) with a short problem+json instead of the bare default,
 * then closes the connection. Like every other answer it carries a request id (made here: the
 * request's own header cannot be trusted) in `X-Request-Id` and `requestId`, and leaves one
 * access-log line with that id.
 */
export function writeClientError(err: Error & { code?: string }, socket: Socket, log?: Logger): void {
  if (!socket.writable || (err.code === 'ECONNRESET' && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const [status, title, reason] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'invalid-request']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'invalid-request']
        : [400, 'Bad Request', 'invalid-request'];
  const requestId = newRequestId();
  const body = JSON.stringify({
    type: 'about:blank',
    title,
    status,
    reason,
    message: status === 408 ? 'The request was not received in time.' : 'The request is not valid HTTP.',
    requestId,
  });
  log?.info({ requestId, status, refusedBy: 'http-parser', code: err.code ?? null }, 'request');
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
