/**
 * An IP address range as the rules read it, parsed at the edge (`src/adapters/ip`): IPv4 and
 * IPv6 share one space of 16 bytes, an IPv4 range standing as its IPv4-mapped IPv6 form
 * (`::ffff:a.b.c.d`), so that an address, a range, and a range inside another are compared
 * one way. One address is a range of all 128 bits.
 */
export interface IpRange {
  /** The network's 16 bytes, bits past `bits` zero. */
  readonly bytes: readonly number[];
  /** How many leading bits are fixed, counted over the 16 bytes (an IPv4 /24 is 120). */
  readonly bits: number;
  /** The range as stored and shown: `a.b.c.d/n` for IPv4, the RFC 5952 form `x::y/n` for IPv6. */
  readonly text: string;
}

/** Reads IP text into ranges: the edge's parser, given to the use cases that read allowlists. */
export interface IpRangeParser {
  /**
   * The range a CIDR (`a.b.c.d/n`, `x:…/n`) or a bare address (all its bits) names, or null when
   * the text is not one, or has host bits set (what is stored says exactly which addresses it allows).
   */
  parseRange(text: string): IpRange | null;
  /** A client's address as a range of all its bits, or null when it is not an address. */
  parseAddress(text: string): IpRange | null;
}

/** Whether the first `bits` bits of two 16-byte addresses are the same. */
const samePrefix = (a: readonly number[], b: readonly number[], bits: number): boolean => {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[whole]! & mask) === (b[whole]! & mask);
};

/** Whether every address of `inner` (an address, or a range) lies in `outer`. */
export const rangeWithin = (inner: IpRange, outer: IpRange): boolean =>
  inner.bits >= outer.bits && samePrefix(inner.bytes, outer.bytes, outer.bits);
