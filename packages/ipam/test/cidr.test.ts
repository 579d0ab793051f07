// CIDR and address basics: parsing, normalization, errors, neighbours, usable addresses.
import { inspect, formatWithOptions } from 'node:util';
import { Cidr, CidrError, Ip, IpRange, IpSet, aggregate, cidrExcept, parseAddressLike, parseCidr, parseIp } from '@switchyard/ipam/cidr';

const err = (f: () => unknown): CidrError => {
  try {
    f();
  } catch (e) {
    if (e instanceof CidrError) return e;
    throw e;
  }
  throw new Error('expected a CidrError');
};

describe('parsing', () => {
  it('normalizes host bits away unless strict', () => {
    expect(parseCidr('10.1.2.3/24').toString()).toBe('10.1.2.0/24');
    expect(parseCidr('FD00:0:0::1:2/112').toString()).toBe('fd00::1:0/112');
    const e = err(() => parseCidr('10.1.2.3/24', { strict: true, path: 'spec.cidr' }));
    expect(e.code).toBe('HOST_BITS_SET');
    expect(e.input).toBe('10.1.2.3/24');
    expect(e.path).toBe('spec.cidr');
    expect(e.message).toContain('10.1.2.0/24');
  });

  it('names the bad input in every parse error', () => {
    for (const [text, code] of [
      ['10.0.0.256/8', 'INVALID_CIDR'],
      ['10.0.0.0/33', 'INVALID_PREFIX'],
      ['fd00::/129', 'INVALID_PREFIX'],
      ['10.0.0.0', 'INVALID_CIDR'],
      ['10.0.0.0/-1', 'INVALID_PREFIX'],
      ['banana/8', 'INVALID_CIDR'],
    ] as const) {
      const e = err(() => parseCidr(text));
      expect([e.code, e.input]).toEqual([code, text]);
      expect(e.message).toContain(text);
    }
    expect(err(() => parseIp('010.0.0.1')).code).toBe('INVALID_IP');
    expect(err(() => parseIp('fe80::1%eth0')).input).toBe('fe80::1%eth0');
    expect(err(() => IpRange.parse('10.0.0.9-10.0.0.1')).code).toBe('INVALID_RANGE');
    expect(err(() => IpRange.parse('10.0.0.1-fd00::1')).code).toBe('FAMILY_MISMATCH');
  });

  it('accepts a bare address as a host block only when asked', () => {
    expect(parseCidr('fd00::5', { allowBareIp: true }).toString()).toBe('fd00::5/128');
    expect(parseAddressLike('10.0.0.1-10.0.0.3')).toBeInstanceOf(IpRange);
    expect(parseAddressLike('10.0.0.1')).toBeInstanceOf(Ip);
  });
});

describe('blocks', () => {
  const c = parseCidr('10.244.1.0/24');
  it('gives network, gateway (first usable), last usable and nth addresses', () => {
    expect(c.first.toString()).toBe('10.244.1.0');
    expect(c.gateway().toString()).toBe('10.244.1.1');
    expect(c.lastUsable().toString()).toBe('10.244.1.254');
    expect(c.last.toString()).toBe('10.244.1.255');
    expect(c.nth(10).toString()).toBe('10.244.1.10');
    expect(c.nth(-1).toString()).toBe('10.244.1.255');
    expect(err(() => c.nth(256)).code).toBe('OUT_OF_RANGE');
    expect(parseCidr('fd00::/64').lastUsable().toString()).toBe('fd00::ffff:ffff:ffff:ffff');
    expect(parseCidr('10.0.0.4/31').firstUsable().toString()).toBe('10.0.0.4');
  });

  it('steps to neighbouring blocks and addresses, stopping at the ends of the space', () => {
    expect(c.next()?.toString()).toBe('10.244.2.0/24');
    expect(c.prev()?.toString()).toBe('10.244.0.0/24');
    expect(parseCidr('0.0.0.0/1').prev()).toBeUndefined();
    expect(parseCidr('128.0.0.0/1').next()).toBeUndefined();
    expect(parseIp('255.255.255.255').next()).toBeUndefined();
    expect(parseIp('::').prev()).toBeUndefined();
    expect(parseIp('fd00::ffff').next()?.toString()).toBe('fd00::1:0');
  });

  it('splits, checks containment and overlap across families', () => {
    expect(parseCidr('10.0.0.0/22').split(24).map(String)).toEqual(['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24', '10.0.3.0/24']);
    expect(err(() => parseCidr('10.0.0.0/24').split(16)).code).toBe('INVALID_PREFIX');
    expect(err(() => parseCidr('fd00::/48').split(80)).code).toBe('TOO_MANY');
    expect(parseCidr('10.0.0.0/8').contains(parseCidr('10.3.0.0/16'))).toBe(true);
    expect(parseCidr('10.3.0.0/16').contains(parseCidr('10.0.0.0/8'))).toBe(false);
    expect(parseCidr('10.3.0.0/16').overlaps(parseCidr('10.0.0.0/8'))).toBe(true);
    expect(parseCidr('10.0.0.0/8').contains(parseIp('::a00:1'))).toBe(false);
    expect(new Cidr(4, 0x0a000001n, 32).equals(parseCidr('10.0.0.1/32'))).toBe(true);
  });
});

describe('set operations', () => {
  it('subtracts ipBlock excepts into the fewest CIDRs', () => {
    expect(cidrExcept('10.0.0.0/24', ['10.0.0.128/25', '10.0.0.0/26']).map(String)).toEqual(['10.0.0.64/26']);
    expect(cidrExcept('172.16.0.0/16', ['172.16.1.0/24']).map(String)).toEqual([
      '172.16.0.0/24', '172.16.2.0/23', '172.16.4.0/22', '172.16.8.0/21', '172.16.16.0/20', '172.16.32.0/19', '172.16.64.0/18', '172.16.128.0/17',
    ]);
    expect(cidrExcept('fd00::/64', ['fd00::/64'])).toEqual([]);
  });

  it('aggregates a mixed dual-stack list', () => {
    expect(aggregate(['10.0.0.1', '10.0.0.0', '10.0.0.2-10.0.0.3', 'fd00::/65', 'fd00::8000:0:0:0/65']).map(String)).toEqual(['10.0.0.0/30', 'fd00::/64']);
    expect(err(() => aggregate(['10.0.0.1', 'nope'])).path).toBe('[1]');
  });
});

describe('printing', () => {
  it('console.log and util.inspect show the address text, not the raw bigint', () => {
    expect(inspect(parseIp('10.244.1.2'))).toBe('Ip<10.244.1.2>');
    expect(inspect(parseIp('FD00::0:1'))).toBe('Ip<fd00::1>');
    expect(inspect(parseCidr('10.0.0.7/24'))).toBe('Cidr<10.0.0.0/24>');
    expect(inspect(IpRange.parse('10.0.0.5-10.0.0.12'))).toBe('IpRange<10.0.0.5-10.0.0.12>');
    expect(inspect(IpSet.from(['10.0.0.0/29', 'fd00::1']).subtract(['10.0.0.7']))).toBe('IpSet<10.0.0.0-10.0.0.6, fd00::1>');
    // Nested, as a user meets them in a result object.
    expect(inspect({ podCIDR: parseCidr('10.10.1.0/24'), gateway: parseIp('10.10.1.1') })).toBe(
      '{ podCIDR: Cidr<10.10.1.0/24>, gateway: Ip<10.10.1.1> }',
    );
    expect(formatWithOptions({}, '%o', parseCidr('fd00::/64'))).toContain('Cidr<fd00::/64>');
  });

  it('toString and JSON give the canonical text that parses back to an equal value', () => {
    const c = parseCidr('10.0.0.7/24');
    expect(String(c)).toBe('10.0.0.0/24');
    expect(parseCidr(JSON.parse(JSON.stringify(c)) as string).equals(c)).toBe(true);
    const ip = parseIp('fd00:0:0:0::ffff');
    expect(`${ip}`).toBe('fd00::ffff');
    expect(parseIp(JSON.parse(JSON.stringify(ip)) as string).equals(ip)).toBe(true);
    const r = IpRange.parse('10.0.0.5-10.0.0.12');
    expect(JSON.stringify({ r })).toBe('{"r":"10.0.0.5-10.0.0.12"}');
    const s = IpSet.from(['10.0.0.0/30', '10.0.0.9']);
    expect(String(s)).toBe('10.0.0.0-10.0.0.3, 10.0.0.9');
    expect(JSON.stringify(s)).toBe('["10.0.0.0-10.0.0.3","10.0.0.9"]');
    expect(IpSet.from(s.toJSON()).toString()).toBe(s.toString());
    expect(String(IpSet.empty())).toBe('');
  });
});
