/** Netlink attributes the `netlink` package leaves as raw bytes: the IFLA_LINKINFO of a veth and of a VLAN link. */

// Constants from the kernel's uapi headers (linux/if_link.h, linux/veth.h, linux/netlink.h).
const NLA_F_NESTED = 0x8000;
const IFLA_ADDRESS = 1;
const IFLA_IFNAME = 3;
const IFLA_MTU = 4;
const IFLA_NET_NS_FD = 28;
const IFLA_INFO_KIND = 1;
const IFLA_INFO_DATA = 2;
const VETH_INFO_PEER = 1;
/** sizeof(struct ifinfomsg): family, pad, type, index, flags, change. */
const IFINFOMSG_LEN = 16;

/** One attribute: length (header included, padding not), type, payload padded to 4 bytes. */
export function nlattr(type: number, payload: Uint8Array): Buffer {
  const len = 4 + payload.length;
  const out = Buffer.alloc((len + 3) & ~3);
  out.writeUInt16LE(len, 0);
  out.writeUInt16LE(type, 2);
  out.set(payload, 4);
  return out;
}

/** A nested attribute: `children` concatenated, NLA_F_NESTED set as iproute2 sets it. */
export function nested(type: number, children: readonly Uint8Array[]): Buffer {
  return nlattr(type | NLA_F_NESTED, Buffer.concat(children));
}

export function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  return b;
}

/** NUL-terminated string payload. */
export function cstring(value: string): Buffer {
  return Buffer.from(`${value}\0`, 'utf8');
}

/** `aa:bb:cc:dd:ee:ff` as 6 bytes. */
export function macBytes(mac: string): Buffer {
  return Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
}

/** The veth end created in the peer's namespace. */
export interface VethPeer {
  name: string;
  mtu: number;
  /** Locally administered MAC, `aa:bb:cc:dd:ee:ff`; the kernel picks a random one when absent. */
  mac?: string;
  /** Open fd of the namespace the peer is created in; absent = the socket's namespace. */
  netnsFd?: number;
}

/**
 * IFLA_LINKINFO payload of a veth: kind "veth" and, in IFLA_INFO_DATA, VETH_INFO_PEER carrying a
 * zeroed ifinfomsg followed by the peer's own link attributes (name, MTU, MAC, namespace).
 */
export function vethLinkInfo(peer: VethPeer): Buffer {
  const peerAttrs = [nlattr(IFLA_IFNAME, cstring(peer.name)), nlattr(IFLA_MTU, u32(peer.mtu))];
  if (peer.mac !== undefined) peerAttrs.push(nlattr(IFLA_ADDRESS, macBytes(peer.mac)));
  if (peer.netnsFd !== undefined) peerAttrs.push(nlattr(IFLA_NET_NS_FD, u32(peer.netnsFd)));
  const peerMsg = Buffer.concat([Buffer.alloc(IFINFOMSG_LEN), ...peerAttrs]);
  return Buffer.concat([nlattr(IFLA_INFO_KIND, cstring('veth')), nested(IFLA_INFO_DATA, [nlattr(VETH_INFO_PEER, peerMsg)])]);
}

const IFLA_VLAN_ID = 1;

/** IFLA_LINKINFO payload of a VLAN sub-interface: kind "vlan" and, in IFLA_INFO_DATA, IFLA_VLAN_ID (u16). */
export function vlanLinkInfo(vlanId: number): Buffer {
  const id = Buffer.alloc(2);
  id.writeUInt16LE(vlanId);
  return Buffer.concat([nlattr(IFLA_INFO_KIND, cstring('vlan')), nested(IFLA_INFO_DATA, [nlattr(IFLA_VLAN_ID, id)])]);
}

/** The kind and VLAN id in a link's IFLA_LINKINFO (what a dump returns raw), or undefined when it is not a VLAN link. */
export function vlanIdOf(linkinfo: Buffer | undefined): number | undefined {
  if (!linkinfo) return undefined;
  let kind: string | undefined;
  let id: number | undefined;
  const walk = (buf: Buffer, inData: boolean): void => {
    for (let off = 0; off + 4 <= buf.length; ) {
      const len = buf.readUInt16LE(off);
      const type = buf.readUInt16LE(off + 2) & ~NLA_F_NESTED;
      if (len < 4) return;
      const payload = buf.subarray(off + 4, off + len);
      if (!inData && type === IFLA_INFO_KIND) kind = payload.toString('utf8').replace(/\0+$/, '');
      else if (!inData && type === IFLA_INFO_DATA) walk(payload, true);
      else if (inData && type === IFLA_VLAN_ID && payload.length >= 2) id = payload.readUInt16LE(0);
      off += (len + 3) & ~3;
    }
  };
  walk(linkinfo, false);
  return kind === 'vlan' ? id : undefined;
}
