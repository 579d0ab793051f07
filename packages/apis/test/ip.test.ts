import fc from 'fast-check';
import { bytesToIp, canonicalIp, ipToBytes } from '../src/index';

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
