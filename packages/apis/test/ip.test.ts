import fc from 'fast-check';
import { bytesToIp, canonicalIp, formatIpv6, ipToBytes } from '../src/index';
import { mappedIpv6Bytes, sparseIpv6Bytes } from './support/arbitraries';
import { previousIpv6Text } from './support/previous-ipv6-text';

/** Any IPv6 address, with many zero runs and IPv4-mapped ones among them. */
const ipv6Bytes = fc.oneof(fc.uint8Array({ minLength: 16, maxLength: 16 }), sparseIpv6Bytes, mappedIpv6Bytes);

describe('IP text and bytes', () => {
  test('IPv4 and IPv6 bytes survive a text round trip', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.uint8Array({ minLength: 16, maxLength: 16 })), (b) => {
        expect(ipToBytes(bytesToIp(b) as string)).toEqual(b);
      }),
    );
  });

  test('IPv6 text is canonical per RFC 5952', () => {
    expect(canonicalIp('2001:0DB8:0000:0000:0000:0000:0002:0001')).toBe('2001:db8::2:1');
    expect(canonicalIp('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalIp('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1');
    expect(canonicalIp('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIp('::')).toBe('::');
    expect(canonicalIp('::1')).toBe('::1');
    expect(canonicalIp('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1');
    expect(canonicalIp('fe80::')).toBe('fe80::');
  });

  test('IPv6 text is what the previous hand-written formatters wrote, at any offset', () => {
    fc.assert(
      fc.property(ipv6Bytes, fc.uint8Array({ maxLength: 3 }), (b, before) => {
        expect(bytesToIp(b)).toBe(previousIpv6Text(b, true));
        expect(formatIpv6(b)).toBe(previousIpv6Text(b, false));
        expect(formatIpv6(Uint8Array.of(...before, ...b, 9), before.length)).toBe(previousIpv6Text(b, false));
      }),
      { numRuns: 5000 },
    );
  });

  test('IPv4-mapped addresses keep a dotted tail in bytesToIp only', () => {
    const b = ipToBytes('::ffff:10.0.0.1') as Uint8Array;
    expect(bytesToIp(b)).toBe('::ffff:10.0.0.1');
    expect(formatIpv6(b)).toBe('::ffff:a00:1');
  });

  test('IPv4 text is four octets of 0..255 without leading zeros', () => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 999 }).map(String), fc.stringMatching(/^[0-9]{1,4}$/), fc.constantFrom('', 'a', '-1', ' 1'));
    fc.assert(
      fc.property(fc.array(octet, { minLength: 3, maxLength: 5 }), (parts) => {
        const valid = parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
        expect(ipToBytes(parts.join('.'))).toEqual(valid ? Uint8Array.from(parts.map(Number)) : undefined);
      }),
      { numRuns: 5000 },
    );
  });

  test('invalid text is refused', () => {
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '1:2:3:4:5:6:7::8', '::1.2.3']) {
      expect(ipToBytes(bad)).toBeUndefined();
    }
    expect(bytesToIp(new Uint8Array(5))).toBeUndefined();
  });
});
