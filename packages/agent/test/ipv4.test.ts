// IPv4 text the agent hands to ip, iptables and the flows: canonical dotted quads only.
import { ipv4Of, isIpv4WithPrefix } from '../src/ipv4';

it('takes canonical dotted quads and refuses anything else', () => {
  expect(ipv4Of('10.0.0.1')?.toString()).toBe('10.0.0.1');
  expect(ipv4Of('0.0.0.0')?.value).toBe(0n);
  for (const bad of [undefined, '', '10.0.0', '10.0.0.256', '010.0.0.1', ' 10.0.0.1', '10.0.0.1 ', '::1', '::ffff:10.0.0.1', '10.0.0.1/32', '1.2.3.4; true']) {
    expect(ipv4Of(bad)).toBeUndefined();
  }
});

it('takes an address with a prefix length 0..32, host bits allowed', () => {
  for (const ok of ['10.0.0.1/24', '10.0.0.0/8', '0.0.0.0/0', '192.168.1.5/32']) expect(isIpv4WithPrefix(ok)).toBe(true);
  for (const bad of ['10.0.0.1', '10.0.0.1/33', '10.0.0.1/024', '10.0.0.1/', '10.0.0.1/2 4', '999.0.0.1/24', 'fd00::1/64']) expect(isIpv4WithPrefix(bad)).toBe(false);
});
