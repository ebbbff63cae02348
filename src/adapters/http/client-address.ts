import type { Request } from 'express';
import type { RequestOrigin } from '../../domain/security-events/security-event.js';
import { ipKeyGenerator } from 'express-rate-limit';
import { redactSecrets } from '../../domain/shared/redaction.js';

/**
 * The client's own address, whole: the forwarded one with `TRUST_PROXY` set, else the socket's.
 * What a key's `allowedIps` are checked against and what the security trail records (the limits
 * count `clientAddress`, which groups an IPv6 address by its network).
 */
export const clientIp = (req: Request): string =>
  // Without X-Forwarded-For, Express's req.ip is the socket's address whatever 'trust proxy'
  // says; reading it directly skips parsing the (absent) forwarding chain on every request.
  (req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : req.ip) ?? 'unknown';

/**
 * The client address every limit counts, and the one place that says how: an IPv6 address by
 * its /56 network (what one subscriber is usually given, so one client cannot walk through its
 * own addresses; express-rate-limit's `ipKeyGenerator`), an IPv4 address (or an IPv4-mapped IPv6
 * one) as the IPv4 address. With `TRUST_PROXY` set it is the forwarded address, else the
 * socket's. The request-rate limiters, the failed-authentication limit and the login lockout all
 * use it, so no limit can be sidestepped by changing the low bits of an IPv6 address.
 */
export const clientAddress = (req: Request): string => {
  const address = clientIp(req);
  // Without a colon it is not IPv6: the helper would return it unchanged after a pattern test.
  return address.includes(':') ? ipKeyGenerator(address) : address;
};

/**
 * Where a request came from, as the security trail records it: the client address and the
 * request id (a forwarded address is taken as the proxy wrote it: one with the form of a secret is redacted).
 */
export const requestOrigin = (req: Request): RequestOrigin => ({
  ip: redactSecrets(clientIp(req)),
  requestId: req.res?.locals.requestId ?? null,
});
