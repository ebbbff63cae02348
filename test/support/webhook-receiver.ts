import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly at: number;
}

/**
 * A webhook receiver on 127.0.0.1: records every request and answers with the next status of
 * `statuses` (then `fallback`).
 */
export interface Receiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** The statuses to answer next, in order. */
  statuses: number[];
  fallback: number;
  close(): Promise<void>;
}

export async function startReceiver(fallback = 200): Promise<Receiver> {
  const receiver = { received: [] as ReceivedWebhook[], statuses: [] as number[], fallback } as Receiver & { url: string };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      receiver.received.push({ headers, body, at: Date.now() });
      res.statusCode = receiver.statuses.shift() ?? receiver.fallback;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** Verifies a received request with the `standardwebhooks` library and returns the parsed payload. */
export function verified(secret: string, w: ReceivedWebhook): { type: string; timestamp: string; data: Record<string, any> } {
  return new Webhook(secret).verify(w.body, w.headers) as { type: string; timestamp: string; data: Record<string, any> };
}
