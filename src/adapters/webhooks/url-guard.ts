import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { WebhookUrlGuard } from '../../domain/webhooks/webhook-ports.port.js';

/** What local development and tests may relax. */
export interface UrlGuardSettings {
  /** `WEBHOOK_ALLOW_INSECURE=on`: `http` URLs too. */
  readonly allowInsecure: boolean;
  /** `WEBHOOK_ALLOW_PRIVATE=on`: loopback, private, link-local and other special-purpose addresses too. */
  readonly allowPrivate: boolean;
}

type Resolve = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

const refused = (why: string) =>
  new DomainError('invalid-webhook-url', {
    message: `The webhook URL is refused: ${why}.`,
    details: { errors: [{ path: 'url', message: why }] },
  });

/**
 * Checks webhook URLs with ipaddr.js's classification of addresses (a maintained table of the
 * IANA special-purpose ranges, IPv4-mapped IPv6 included): only `unicast` (public) addresses
 * pass, unless private ones are allowed. A name is resolved and every address it gives must
 * pass; the first is returned so the connection is made to it and nothing else (no second
 * resolution that DNS rebinding could answer differently).
 */
export class DnsWebhookUrlGuard implements WebhookUrlGuard {
  constructor(
    private readonly settings: UrlGuardSettings,
    private readonly resolve: Resolve = (host) => lookup(host, { all: true, verbatim: true }),
  ) {}

  async check(url: string): Promise<{ address: string; family: 4 | 6 }> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused('not an absolute URL');
    }
    if (parsed.protocol !== 'https:' && !(this.settings.allowInsecure && parsed.protocol === 'http:'))
      throw refused('the scheme must be https');
    if (parsed.username !== '' || parsed.password !== '') throw refused('credentials in the URL are not allowed');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    let addresses: ReadonlyArray<{ address: string; family: number }>;
    if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    else {
      try {
        addresses = await this.resolve(host);
      } catch {
        throw refused('the host does not resolve');
      }
    }
    if (addresses.length === 0) throw refused('the host does not resolve');
    for (const a of addresses) {
      if (!ipaddr.isValid(a.address)) throw refused('the host resolves to an unusable address');
      const range = ipaddr.process(a.address).range();
      if (range !== 'unicast' && !this.settings.allowPrivate) throw refused(`the host resolves to a ${range} address`);
    }
    const first = addresses[0]!;
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
}
