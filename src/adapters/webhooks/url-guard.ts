import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { UrlCheckContext, WebhookUrlGuard } from '../../domain/webhooks/webhook-ports.port.js';

/** What local development and tests may relax, and how names are resolved. */
export interface UrlGuardSettings {
  /** `WEBHOOK_ALLOW_INSECURE=on`: `http` URLs too. */
  readonly allowInsecure: boolean;
  /** `WEBHOOK_ALLOW_PRIVATE=on`: loopback, private, link-local and other special-purpose addresses too (never the cloud metadata and host addresses). */
  readonly allowPrivate: boolean;
  /** `WEBHOOK_DNS_TIMEOUT_MS`: a lookup (waiting for a slot, A and AAAA) ends after this (default 3000). */
  readonly dnsTimeoutMs?: number;
  /** `WEBHOOK_DNS_SERVERS`: the name servers asked (`ip` or `ip:port`, `[ipv6]:port`); absent: the system's. */
  readonly dnsServers?: readonly string[];
  /** Lookups of one owner in flight at once in this process; the next ones wait their turn (default 2). */
  readonly lookupsPerOwner?: number;
}

/** Resolves a name to its addresses (A and AAAA); rejects when it does not resolve. */
export type Resolve = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export const DEFAULT_DNS_TIMEOUT_MS = 3000;
export const DEFAULT_LOOKUPS_PER_OWNER = 2;

const refused = (why: string) =>
  new DomainError('invalid-webhook-url', {
    message: `The webhook URL is refused: ${why}.`,
    details: { errors: [{ path: 'url', message: why }] },
  });

/**
 * Cloud metadata services and host endpoints, refused whatever `WEBHOOK_ALLOW_PRIVATE` says:
 * no webhook has a reason to reach them, and they hand out credentials. Most also sit in a
 * special-purpose range; 168.63.129.16 (Azure's host services) does not.
 */
const DENIED: ReadonlyArray<readonly [string, string]> = [
  ['169.254.169.254', 'instance metadata (AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle, …)'],
  ['169.254.169.253', 'AWS VPC DNS'],
  ['169.254.169.123', 'AWS time sync'],
  ['169.254.170.2', 'AWS ECS task metadata'],
  ['169.254.170.23', 'AWS EKS pod identity'],
  ['169.254.0.23', 'Tencent Cloud metadata'],
  ['168.63.129.16', 'Azure host services'],
  ['100.100.100.200', 'Alibaba Cloud metadata'],
  ['192.0.0.192', 'Oracle Cloud metadata'],
  ['fd00:ec2::254', 'AWS instance metadata (IPv6)'],
  ['fd00:ec2::253', 'AWS VPC DNS (IPv6)'],
  ['fd00:ec2::123', 'AWS time sync (IPv6)'],
  ['fd00:ec2::23', 'AWS EKS pod identity (IPv6)'],
  ['fd20:ce::254', 'GCP metadata (IPv6)'],
];
const DENIED_SET = new Set(DENIED.map(([a]) => ipaddr.parse(a).toNormalizedString()));

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];
/** RFC 4291 2.5.5.1: deprecated "IPv4-compatible" addresses (`::a.b.c.d`). */
const IPV4_COMPATIBLE = cidr('::/96');
/** RFC 6052 well-known NAT64 prefix: `64:ff9b::a.b.c.d` reaches the IPv4 address through a NAT64 gateway. */
const NAT64 = cidr('64:ff9b::/96');
/** RFC 3056 6to4: `2002:AABB:CCDD::/48` carries the IPv4 address AA.BB.CC.DD. */
const SIX_TO_FOUR = cidr('2002::/16');
/** RFC 4380 Teredo: the server's IPv4 address in bits 32..63, the client's (inverted) in the last 32. */
const TEREDO = cidr('2001::/32');
/** Global unicast: every IPv6 address outside it is reserved by the IETF and not routed on the Internet. */
const GLOBAL_UNICAST = cidr('2000::/3');

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/** The IPv4 addresses an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo). */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = ip.parts;
  if (ip.isIPv4MappedAddress() || ip.match(IPV4_COMPATIBLE) || ip.match(NAT64)) return [v4(p[6]!, p[7]!)];
  if (ip.match(SIX_TO_FOUR)) return [v4(p[1]!, p[2]!)];
  if (ip.match(TEREDO)) return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return [];
}

/**
 * Why an address may not receive webhooks, or null when it may. IPv4 (IPv4-mapped IPv6 too)
 * must be public unicast by ipaddr.js's table of the IANA special-purpose ranges; IPv6 must be
 * public unicast inside 2000::/3, or a NAT64 address (64:ff9b::/96) of a public IPv4 address.
 * The deprecated IPv4-compatible range `::/96` (`[::127.0.0.1]` is `::7f00:1`), 6to4 and
 * Teredo are refused. The cloud metadata and host addresses, and IPv6 addresses carrying one,
 * are refused even when private addresses are allowed.
 */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return 'the host resolves to an unusable address';
  const parsed = ipaddr.parse(address);
  const carried = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : [];
  for (const ip of [parsed, ...carried]) {
    if (DENIED_SET.has(ip.toNormalizedString())) return 'the host is a cloud metadata or host-services address';
  }
  if (allowPrivate) return null;
  if (parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    const range = (carried[0] ?? parsed).range();
    return range === 'unicast' ? null : `the host resolves to a ${range} address`;
  }
  const ip = parsed as ipaddr.IPv6;
  if (ip.match(NAT64)) {
    const range = carried[0]!.range();
    return range === 'unicast' ? null : `the host resolves to a NAT64 address of a ${range} address`;
  }
  const range = ip.range();
  if (range !== 'unicast') return `the host resolves to a ${range} address`;
  if (ip.match(IPV4_COMPATIBLE)) return 'the host resolves to an IPv4-compatible IPv6 address (::/96)';
  if (!ip.match(GLOBAL_UNICAST)) return 'the host resolves to a reserved IPv6 address';
  return null;
}

/** `localhost` and names under it are the loopback (RFC 6761), as the system resolver answers them. */
const isLocalhost = (host: string): boolean => /(^|\.)localhost\.?$/i.test(host);

/**
 * A resolver on c-ares (`dns.promises.Resolver`): UDP/TCP queries on the event loop, not
 * getaddrinfo on libuv's small thread pool, so a name server that never answers holds no thread
 * another lookup needs. A and AAAA are asked at once; IPv4 addresses come first. It reads
 * the name servers of /etc/resolv.conf (or the ones given), not /etc/hosts.
 */
export function caresResolve(options: { timeoutMs: number; servers?: readonly string[] }): Resolve {
  // Two tries, the second waiting longer (c-ares backs off): together at least the lookup's time,
  // which the guard's own deadline then bounds exactly.
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / 3)), tries: 2 });
  if (options.servers !== undefined && options.servers.length > 0) resolver.setServers([...options.servers]);
  return async (host) => {
    const [a, aaaa] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const found = [
      ...(a.status === 'fulfilled' ? a.value.map((address) => ({ address, family: 4 })) : []),
      ...(aaaa.status === 'fulfilled' ? aaaa.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length === 0) throw a.status === 'rejected' ? a.reason : new Error('no address');
    return found;
  };
}

/** At most `limit` holders per key at once; the others wait their turn, in order, until their deadline. */
class KeyedSlots {
  private readonly held = new Map<string, { n: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  /** A release function once a slot is free; null when `deadline` (epoch ms) passed first. */
  async acquire(key: string, deadline: number): Promise<(() => void) | null> {
    let entry = this.held.get(key);
    if (entry === undefined) {
      entry = { n: 0, waiting: [] };
      this.held.set(key, entry);
    }
    const e = entry;
    if (e.n >= this.limit) {
      const granted = await new Promise<boolean>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(
          () => {
            e.waiting.splice(e.waiting.indexOf(wake), 1);
            resolve(false);
          },
          Math.max(0, deadline - Date.now()),
        );
        e.waiting.push(wake);
      });
      // A woken waiter inherits the releaser's slot (n unchanged).
      if (!granted) return null;
    } else e.n += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = e.waiting.shift();
      if (next !== undefined) next();
      else if (--e.n === 0) this.held.delete(key);
    };
  }
}

class Timeout extends Error {}

const within = <T>(work: Promise<T>, deadline: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Timeout()), Math.max(0, deadline - Date.now()));
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });

/**
 * Checks webhook URLs: the scheme, then every address the host resolves to (`addressRefusal`);
 * the first is returned so the connection is made to it and nothing else (no second resolution
 * that DNS rebinding could answer differently). A lookup ends after `dnsTimeoutMs` (or the
 * caller's shorter time), and one owner has at most `lookupsPerOwner` lookups in flight in this
 * process, so an owner whose name server never answers delays only its own registrations and
 * deliveries.
 */
export class DnsWebhookUrlGuard implements WebhookUrlGuard {
  private readonly resolve: Resolve;
  private readonly timeoutMs: number;
  private readonly slots: KeyedSlots;

  constructor(
    private readonly settings: UrlGuardSettings,
    resolve?: Resolve,
  ) {
    this.timeoutMs = settings.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
    this.slots = new KeyedSlots(settings.lookupsPerOwner ?? DEFAULT_LOOKUPS_PER_OWNER);
    this.resolve =
      resolve ??
      caresResolve({ timeoutMs: this.timeoutMs, ...(settings.dnsServers === undefined ? {} : { servers: settings.dnsServers }) });
  }

  async check(url: string, context: UrlCheckContext = {}): Promise<{ address: string; family: 4 | 6 }> {
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
    else if (isLocalhost(host))
      addresses = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    else addresses = await this.lookup(host, context);
    if (addresses.length === 0) throw refused('the host does not resolve');
    for (const a of addresses) {
      const why = addressRefusal(a.address, this.settings.allowPrivate);
      if (why !== null) throw refused(why);
    }
    const first = addresses[0]!;
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  private async lookup(host: string, context: UrlCheckContext): Promise<ReadonlyArray<{ address: string; family: number }>> {
    const deadline = Date.now() + Math.min(this.timeoutMs, context.withinMs ?? Infinity);
    const release = await this.slots.acquire(ownerKey(context.owner), deadline);
    if (release === null) throw refused('the host did not resolve in time (other lookups of this caller are still running)');
    try {
      return await within(this.resolve(host), deadline);
    } catch (err) {
      throw refused(err instanceof Timeout ? 'the host did not resolve in time' : 'the host does not resolve');
    } finally {
      release();
    }
  }
}

const ownerKey = (owner: EventOwner | undefined): string => (owner === undefined ? '' : `${owner.kind}:${owner.id}`);
