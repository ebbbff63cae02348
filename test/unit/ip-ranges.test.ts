import { expect } from 'chai';
import { allowlistRanges, ipaddrRanges } from '../../src/adapters/ip/ip-ranges.ipaddr.js';
import { rangeWithin } from '../../src/domain/identity/ip-range.js';

describe('IP ranges read at the edge (ipaddr.js)', () => {
  const range = (text: string) => ipaddrRanges.parseRange(text);

  it('when a CIDR or a bare address is read, then it stands in one 16-byte space, IPv4 as its mapped form, with its canonical text', () => {
    expect(range('192.0.2.0/24')).to.deep.equal({
      bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 192, 0, 2, 0],
      bits: 120,
      text: '192.0.2.0/24',
    });
    expect(range('198.51.100.7')?.text).to.equal('198.51.100.7/32');
    expect(range('198.51.100.7')?.bits).to.equal(128);
    expect(range('2001:0DB8:0:0::/32')?.text).to.equal('2001:db8::/32');
    expect(range('::FFFF:192.0.2.0/120')?.text).to.equal('::ffff:192.0.2.0/120');
    expect(range('::ffff:c000:200/120')?.bytes).to.deep.equal(range('192.0.2.0/24')?.bytes);
    // A dotted tail is the last four bytes as written: `::1.2.3.4` is not `::ffff:1.2.3.4`.
    expect(range('::1.2.3.4')?.bytes.slice(10)).to.deep.equal([0, 0, 1, 2, 3, 4]);
  });

  it('when the text is not a strict CIDR, then it is refused: short or octal IPv4, zones, host bits, bad lengths', () => {
    for (const bad of [
      '1.2.3',
      '01.2.3.4',
      '0x1.2.3.4',
      '::ffff:01.2.3.4',
      'fe80::1%eth0',
      '192.0.2.1/24',
      '192.0.2.0/024',
      '192.0.2.0/',
      '::/129',
      '1::2::3',
      '',
      'x',
    ])
      expect(range(bad), bad).to.equal(null);
  });

  it('when a client address is read, then an IPv4 address and its mapped IPv6 form are one address, inside the same ranges', () => {
    const v4 = ipaddrRanges.parseAddress('192.0.2.9')!;
    const mapped = ipaddrRanges.parseAddress('::ffff:192.0.2.9')!;
    expect(v4.bytes).to.deep.equal(mapped.bytes);
    expect(rangeWithin(v4, range('192.0.2.0/24')!)).to.equal(true);
    expect(rangeWithin(mapped, range('192.0.2.0/24')!)).to.equal(true);
    expect(rangeWithin(v4, range('::/0')!)).to.equal(true);
    expect(ipaddrRanges.parseAddress('fe80::1%eth0')).to.equal(null);
    expect(ipaddrRanges.parseAddress('nonsense')).to.equal(null);
  });

  it('when a stored list is read, then it is read once per list, and a text that does not parse allows nothing', () => {
    const list = ['192.0.2.0/24', 'not a cidr'];
    expect(allowlistRanges(list)).to.equal(allowlistRanges(list));
    expect(allowlistRanges(list)[1]).to.equal(null);
  });
});
