import { addressesOfFamily, podAddresses, traceflowFamily } from '../src/types';

describe('podAddresses', () => {
  it('reads status.podIPs in order when present', () => {
    expect(podAddresses({ status: { podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }] } })).toEqual(['10.0.0.5', 'fd00::5']);
  });
  it('falls back to status.podIP when podIPs is absent', () => {
    expect(podAddresses({ status: { podIP: 'fd00::7' } })).toEqual(['fd00::7']);
  });
  it('is empty for a Pod without an address, a null status or no Pod', () => {
    expect(podAddresses({ status: {} })).toEqual([]);
    expect(podAddresses({ status: null })).toEqual([]);
    expect(podAddresses(undefined)).toEqual([]);
  });
});

describe('addressesOfFamily', () => {
  const ips = ['10.0.0.5', 'fd00::5', '10.0.0.6', '::ffff:10.0.0.7'];
  it('keeps the addresses of one family, in order', () => {
    expect(addressesOfFamily(ips, 4)).toEqual(['10.0.0.5', '10.0.0.6']);
    expect(addressesOfFamily(ips, 6)).toEqual(['fd00::5', '::ffff:10.0.0.7']);
  });
});

describe('traceflowFamily', () => {
  const spec = (o: { src?: string; dst?: string; v6?: boolean } = {}) => ({
    source: o.src ? { ip: o.src } : {},
    destination: o.dst ? { ip: o.dst } : {},
    ...(o.v6 ? { packet: { ipv6Header: {} } } : {}),
  });
  it('is IPv6 for an ipv6Header, an IPv6 address named, or an IPv6-only source Pod', () => {
    expect(traceflowFamily(spec({ v6: true }))).toBe(6);
    expect(traceflowFamily(spec({ dst: 'fd00::1' }))).toBe(6);
    expect(traceflowFamily(spec(), ['fd00::9'])).toBe(6);
  });
  it('is IPv4 otherwise, a dual-stack source Pod included', () => {
    expect(traceflowFamily(spec({ dst: '10.0.0.1' }))).toBe(4);
    expect(traceflowFamily(spec(), ['10.0.0.9', 'fd00::9'])).toBe(4);
    expect(traceflowFamily(spec())).toBe(4);
  });
});
