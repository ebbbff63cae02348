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

/** An answer of the service as the webhook tests read it. */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, any>;
}

/**
 * Over HTTP with the agent's key: registers `receiverUrl` for `order.confirmed`, quotes a transfer
 * ten days ahead and books it for `contact`; returns the endpoint and the order as answered.
 */
export async function orderWatchedBy(
  call: (path: string, init: RequestInit) => Promise<Answer>,
  apiKey: string,
  receiverUrl: string,
  contact: { name: string; email: string },
): Promise<{ endpoint: Answer; order: Answer }> {
  const post = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-API-KEY': apiKey },
    body: JSON.stringify(body),
  });
  const endpoint = await call('/api/v1/webhook-endpoints', post({ url: receiverUrl, events: ['order.confirmed'] }));
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  const pickupAt = new Date(Date.now() + 10 * 86_400_000).toISOString();
  const quote = await call(
    '/api/v1/airport-transfer/quotes',
    post({ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_sukhumvit', pickupAt, passengers: 2 }),
  );
  if (quote.status !== 201) throw new Error(`quote: ${quote.status} ${JSON.stringify(quote.body)}`);
  const order = await call('/api/v1/orders', post({ quoteId: quote.body.id, contact }));
  if (order.status !== 201) throw new Error(`order: ${order.status} ${JSON.stringify(order.body)}`);
  return { endpoint, order };
}
