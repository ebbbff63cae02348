import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { WEBHOOK_SECRET_PREFIX } from '../../domain/webhooks/endpoint.js';

/** How much of a receiver's answer is read before the connection is dropped. */
export const MAX_RESPONSE_BYTES = 4096;

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the secret's bytes (Standard Webhooks). */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * POSTs one signed event and answers the receiver's status, or null when none came in time.
 * The connection goes to `address` (checked by the URL guard) whatever DNS says now, TLS still
 * verifies the URL's host name, redirects are not followed (a 3xx is just not a success), and
 * at most MAX_RESPONSE_BYTES of the answer are read.
 */
export function postSigned(input: {
  url: string;
  address: { address: string; family: 4 | 6 };
  id: string;
  timestamp: number;
  body: string;
  secret: string;
  timeoutMs: number;
}): Promise<number | null> {
  const target = new URL(input.url);
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [input.address]);
    else callback(null, input.address.address, input.address.family);
  };
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'partner-booking-wallet-webhooks/1',
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': webhookSignature(input.secret, input.id, input.timestamp, input.body),
    'content-length': String(Buffer.byteLength(input.body)),
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(status);
    };
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'POST', headers, lookup: pinned, agent: false },
      (res) => {
        const status = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) {
            done(status);
            res.destroy();
          }
        });
        res.on('end', () => done(status));
        res.on('error', () => done(status));
        res.on('close', () => done(status));
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error('timeout'));
      done(null);
    }, input.timeoutMs);
    request.on('error', () => done(null));
    request.end(input.body);
  });
}
