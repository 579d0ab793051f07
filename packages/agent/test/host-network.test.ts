import { ifla, parseAttributes, type NetlinkAttribute } from 'netlink';
import { nlattr, vethLinkInfo } from '../src/host-network/attributes';
import { planRouteSync } from '../src/host-network/route-plan';

/** Attributes of a stream by type, decoded by the `netlink` package's own parser. */
function attrs(buf: Buffer): Map<number, NetlinkAttribute> {
  const out = new Map<number, NetlinkAttribute>();
  parseAttributes(buf, (a) => out.set(a.type, a));
  return out;
}

describe('netlink attributes', () => {
  test('pads the payload to 4 bytes and records the unpadded length', () => {
    const a = nlattr(3, Buffer.from('eth0\0'));
    expect(a.length).toBe(12);
    expect(a.readUInt16LE(0)).toBe(9);
    expect(a.readUInt16LE(2)).toBe(3);
  });

  test('a veth linkinfo carries kind veth and a peer with its name, MTU, MAC and namespace fd', () => {
    const info = attrs(vethLinkInfo({ name: 'eth0', mtu: 1450, mac: '02:00:0a:4e:00:05', netnsFd: 42 }));
    expect(info.get(1)?.data.toString()).toBe('veth\0');
    const data = info.get(2)!;
    expect(data.type).toBe(2);
    const peer = attrs(data.data).get(1)!.data;
    // The peer is an ifinfomsg (16 zero bytes) followed by ordinary link attributes.
    expect(peer.subarray(0, 16).equals(Buffer.alloc(16))).toBe(true);
    const link = ifla.parseLinkAttrs(peer.subarray(16));
    expect(link).toMatchObject({ ifname: 'eth0', mtu: 1450, netNsFd: 42 });
    expect(link.address?.toString('hex')).toBe('02000a4e0005');
  });

  test('a peer without MAC or namespace leaves them to the kernel', () => {
    const peer = attrs(attrs(vethLinkInfo({ name: 'p', mtu: 1500 })).get(2)!.data).get(1)!.data;
    const link = ifla.parseLinkAttrs(peer.subarray(16));
    expect(link.address).toBeUndefined();
    expect(link.netNsFd).toBeUndefined();
  });
});

describe('planRouteSync', () => {
  const r = (dst: string, via: string, dev = 'gw0') => ({ dst, via, dev });
  test('adds what is missing and deletes what no wanted route covers', () => {
    expect(planRouteSync([{ dst: '10.1.0.0/24', gateway: '10.1.0.1', dev: 'gw0' }], [r('10.2.0.0/24', '10.2.0.1')])).toEqual({ delete: ['10.1.0.0/24'], replace: [r('10.2.0.0/24', '10.2.0.1')] });
  });
  test('a route already there is left alone', () => {
    expect(planRouteSync([{ dst: '10.1.0.0/24', gateway: '10.1.0.1', dev: 'gw0' }], [r('10.1.0.0/24', '10.1.0.1')])).toEqual({ delete: [], replace: [] });
  });
  test('a new next hop for a wanted destination is replaced in place, not deleted first', () => {
    expect(planRouteSync([{ dst: '10.1.0.0/24', gateway: '10.1.0.1', dev: 'gw0' }], [r('10.1.0.0/24', '10.1.0.9')])).toEqual({ delete: [], replace: [r('10.1.0.0/24', '10.1.0.9')] });
  });
  test('a /32 read back without its length is matched as /32', () => {
    expect(planRouteSync([{ dst: '10.1.0.7', gateway: '10.1.0.1', dev: 'gw0' }], [r('10.1.0.7/32', '10.1.0.1')])).toEqual({ delete: [], replace: [] });
    expect(planRouteSync([{ dst: '10.1.0.7', dev: 'gw0' }], [])).toEqual({ delete: ['10.1.0.7/32'], replace: [] });
  });
});
