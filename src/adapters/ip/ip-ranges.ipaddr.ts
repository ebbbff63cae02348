import ipaddr from 'ipaddr.js';
import type { IpRange, IpRangeParser } from '../../domain/identity/ip-range.js';

/** The first 12 bytes of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`). */
const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
/** A prefix length as written: no sign, no leading zero, at most three digits. */
const PREFIX_LENGTH = /^(0|[1-9][0-9]{0,2})$/;

/** Four decimal parts, none with a leading zero (no octal, hex or short forms). */
const strictIpv4 = (text: string): number[] | null =>
  ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text).toByteArray() : null;

/**
 * An IPv6 address's 16 bytes, or null. No zone (`%eth0`): a zone names an interface, not an
 * address. A dotted tail must be four strict decimal parts and stands for the last 4 bytes as
 * written (`::1.2.3.4` is not `::ffff:1.2.3.4`).
 */
const strictIpv6 = (text: string): number[] | null => {
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0 || text.includes('%')) return null;
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = strictIpv4(tail);
    const head = `${text.slice(0, lastColon + 1)}0:0`;
    if (v4 === null || !ipaddr.IPv6.isValid(head)) return null;
    return [...ipaddr.IPv6.parse(head).toByteArray().slice(0, 12), ...v4];
  }
  return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text).toByteArray() : null;
};

/** An address as 16 bytes (IPv4 as its mapped form) and whether it was written as IPv4. */
const addressBytes = (text: string): { bytes: number[]; v4: boolean } | null => {
  const v4 = strictIpv4(text);
  if (v4 !== null) return { bytes: [...MAPPED_PREFIX, ...v4], v4: true };
  const v6 = strictIpv6(text);
  return v6 === null ? null : { bytes: v6, v4: false };
};

/** The RFC 5952 text of 16 bytes; an IPv4-mapped address keeps its dotted tail (RFC 5952 §5). */
const ipv6Text = (bytes: readonly number[]): string => {
  const address = ipaddr.fromByteArray([...bytes]) as ipaddr.IPv6;
  return address.isIPv4MappedAddress() ? `::ffff:${address.toIPv4Address().toString()}` : address.toRFC5952String();
};

/**
 * Parses CIDRs and addresses with ipaddr.js into the ranges the key-policy rules read. IPv4 is
 * four strict decimal parts; a range's host bits must be zero.
 */
export const ipaddrRanges: IpRangeParser = {
  parseRange(text) {
    const slash = text.indexOf('/');
    const written = addressBytes(slash < 0 ? text : text.slice(0, slash));
    if (written === null) return null;
    const max = written.v4 ? 32 : 128;
    const lengthText = slash < 0 ? null : text.slice(slash + 1);
    if (lengthText !== null && !PREFIX_LENGTH.test(lengthText)) return null;
    const length = lengthText === null ? max : Number(lengthText);
    if (length > max) return null;
    const bits = written.v4 ? 96 + length : length;
    for (let i = bits; i < 128; i++) if ((written.bytes[i >> 3]! >> (7 - (i & 7))) & 1) return null;
    const address = written.v4 ? written.bytes.slice(12).join('.') : ipv6Text(written.bytes);
    return { bytes: written.bytes, bits, text: `${address}/${length}` };
  },
  parseAddress(text) {
    const written = addressBytes(text.trim());
    return written === null
      ? null
      : { bytes: written.bytes, bits: 128, text: written.v4 ? written.bytes.slice(12).join('.') : ipv6Text(written.bytes) };
  },
};

/**
 * The ranges of each allowlist seen, by the list itself: a resolved key keeps its list while it
 * is cached, so each request checks its address without parsing the list again. A stored text
 * that does not parse (none should: each was parsed on its way in) stays as null, which allows
 * nothing, so the list still restricts.
 */
const parsedAllowlists = new WeakMap<readonly string[], ReadonlyArray<IpRange | null>>();

export const allowlistRanges = (allowedIps: readonly string[]): ReadonlyArray<IpRange | null> => {
  let parsed = parsedAllowlists.get(allowedIps);
  if (parsed === undefined) {
    parsed = allowedIps.map((t) => ipaddrRanges.parseRange(t));
    parsedAllowlists.set(allowedIps, parsed);
  }
  return parsed;
};
