/** The match-field table: wire headers (OXM/NXM), widths and text names of every modelled field. */
import type { CtState, CtStateFlag, FieldName } from './flow';

/** How a field's value is represented in the model. */
export type FieldKind = 'uint' | 'big' | 'mac' | 'ipv4' | 'ipv6' | 'ctState';

/** Facts about one match field. */
export interface FieldInfo {
  name: FieldName;
  kind: FieldKind;
  /** Width on the wire in bytes. */
  bytes: number;
  /** Meaningful bits (for subfield ranges and masks). */
  bits: number;
  /** OXM_OF_* header (class 0x8000) without the mask bit and length, if the field has one. */
  oxm?: number;
  /** NXM_OF_x or NXM_NX_x header (class 0/1) without the mask bit and length, if any. */
  nxm?: number;
  maskable: boolean;
  /** Name in ovs-ofctl match output (`nw_src`, `dl_dst`, `tp_src`...). */
  text: string;
  /** meta-flow name used by set_field (`ip_src`, `eth_dst`, `reg0`...). */
  mf: string;
  /** NXM/OXM symbolic name used in subfields (`NXM_NX_REG0[0..3]`). */
  sym: string;
}

const OXM = (f: number): number => ((0x8000 << 16) | (f << 9)) >>> 0;
const NX0 = (f: number): number => (0x0000 << 16) | (f << 9);
const NX1 = (f: number): number => (0x0001 << 16) | (f << 9);

type Row = [FieldName, FieldKind, number, number, number | undefined, number | undefined, boolean, string, string, string];

// [name, kind, bytes, bits, oxm, nxm, maskable, ofctl match name, mf name, subfield symbol]
const rows: Row[] = [
  ['inPort', 'uint', 4, 32, OXM(0), undefined, false, 'in_port', 'in_port_oxm', 'OXM_OF_IN_PORT'],
  ['ethDst', 'mac', 6, 48, OXM(3), NX0(1), true, 'dl_dst', 'eth_dst', 'NXM_OF_ETH_DST'],
  ['ethSrc', 'mac', 6, 48, OXM(4), NX0(2), true, 'dl_src', 'eth_src', 'NXM_OF_ETH_SRC'],
  ['ethType', 'uint', 2, 16, OXM(5), NX0(3), false, 'dl_type', 'eth_type', 'NXM_OF_ETH_TYPE'],
  ['vlanVid', 'uint', 2, 13, OXM(6), undefined, true, 'vlan_vid', 'vlan_vid', 'OXM_OF_VLAN_VID'],
  ['ipDscp', 'uint', 1, 6, OXM(8), undefined, false, 'ip_dscp', 'ip_dscp', 'OXM_OF_IP_DSCP'],
  ['ipEcn', 'uint', 1, 2, OXM(9), NX1(28), false, 'nw_ecn', 'nw_ecn', 'NXM_NX_IP_ECN'],
  ['ipProto', 'uint', 1, 8, OXM(10), NX0(6), false, 'nw_proto', 'nw_proto', 'NXM_OF_IP_PROTO'],
  ['ipv4Src', 'ipv4', 4, 32, OXM(11), NX0(7), true, 'nw_src', 'ip_src', 'NXM_OF_IP_SRC'],
  ['ipv4Dst', 'ipv4', 4, 32, OXM(12), NX0(8), true, 'nw_dst', 'ip_dst', 'NXM_OF_IP_DST'],
  ['tcpSrc', 'uint', 2, 16, OXM(13), NX0(9), true, 'tp_src', 'tcp_src', 'NXM_OF_TCP_SRC'],
  ['tcpDst', 'uint', 2, 16, OXM(14), NX0(10), true, 'tp_dst', 'tcp_dst', 'NXM_OF_TCP_DST'],
  ['udpSrc', 'uint', 2, 16, OXM(15), NX0(11), true, 'tp_src', 'udp_src', 'NXM_OF_UDP_SRC'],
  ['udpDst', 'uint', 2, 16, OXM(16), NX0(12), true, 'tp_dst', 'udp_dst', 'NXM_OF_UDP_DST'],
  ['sctpSrc', 'uint', 2, 16, OXM(17), undefined, true, 'tp_src', 'sctp_src', 'OXM_OF_SCTP_SRC'],
  ['sctpDst', 'uint', 2, 16, OXM(18), undefined, true, 'tp_dst', 'sctp_dst', 'OXM_OF_SCTP_DST'],
  ['icmpType', 'uint', 1, 8, OXM(19), NX0(13), false, 'icmp_type', 'icmp_type', 'NXM_OF_ICMP_TYPE'],
  ['icmpCode', 'uint', 1, 8, OXM(20), NX0(14), false, 'icmp_code', 'icmp_code', 'NXM_OF_ICMP_CODE'],
  ['arpOp', 'uint', 2, 16, OXM(21), NX0(15), false, 'arp_op', 'arp_op', 'NXM_OF_ARP_OP'],
  ['arpSpa', 'ipv4', 4, 32, OXM(22), NX0(16), true, 'arp_spa', 'arp_spa', 'NXM_OF_ARP_SPA'],
  ['arpTpa', 'ipv4', 4, 32, OXM(23), NX0(17), true, 'arp_tpa', 'arp_tpa', 'NXM_OF_ARP_TPA'],
  ['arpSha', 'mac', 6, 48, OXM(24), NX1(17), true, 'arp_sha', 'arp_sha', 'NXM_NX_ARP_SHA'],
  ['arpTha', 'mac', 6, 48, OXM(25), NX1(18), true, 'arp_tha', 'arp_tha', 'NXM_NX_ARP_THA'],
  ['ipv6Src', 'ipv6', 16, 128, OXM(26), NX1(19), true, 'ipv6_src', 'ipv6_src', 'NXM_NX_IPV6_SRC'],
  ['ipv6Dst', 'ipv6', 16, 128, OXM(27), NX1(20), true, 'ipv6_dst', 'ipv6_dst', 'NXM_NX_IPV6_DST'],
  ['icmpv6Type', 'uint', 1, 8, OXM(29), NX1(21), false, 'icmp_type', 'icmpv6_type', 'NXM_NX_ICMPV6_TYPE'],
  ['icmpv6Code', 'uint', 1, 8, OXM(30), NX1(22), false, 'icmp_code', 'icmpv6_code', 'NXM_NX_ICMPV6_CODE'],
  ['ndTarget', 'ipv6', 16, 128, OXM(31), NX1(23), true, 'nd_target', 'nd_target', 'NXM_NX_ND_TARGET'],
  ['ndSll', 'mac', 6, 48, OXM(32), NX1(24), true, 'nd_sll', 'nd_sll', 'NXM_NX_ND_SLL'],
  ['ndTll', 'mac', 6, 48, OXM(33), NX1(25), true, 'nd_tll', 'nd_tll', 'NXM_NX_ND_TLL'],
  ['tunId', 'big', 8, 64, OXM(38), NX1(16), true, 'tun_id', 'tun_id', 'NXM_NX_TUN_ID'],
  ['tcpFlags', 'uint', 2, 12, OXM(42), NX1(34), true, 'tcp_flags', 'tcp_flags', 'NXM_NX_TCP_FLAGS'],
  ['metadata', 'big', 8, 64, OXM(2), undefined, true, 'metadata', 'metadata', 'OXM_OF_METADATA'],
  ['ipTtl', 'uint', 1, 8, undefined, NX1(29), false, 'nw_ttl', 'nw_ttl', 'NXM_NX_IP_TTL'],
  ['tunIpv4Src', 'ipv4', 4, 32, undefined, NX1(31), true, 'tun_src', 'tun_src', 'NXM_NX_TUN_IPV4_SRC'],
  ['tunIpv4Dst', 'ipv4', 4, 32, undefined, NX1(32), true, 'tun_dst', 'tun_dst', 'NXM_NX_TUN_IPV4_DST'],
  ['pktMark', 'uint', 4, 32, undefined, NX1(33), true, 'pkt_mark', 'pkt_mark', 'NXM_NX_PKT_MARK'],
  ['conjId', 'uint', 4, 32, undefined, NX1(37), false, 'conj_id', 'conj_id', 'NXM_NX_CONJ_ID'],
  ['ctState', 'ctState', 4, 32, undefined, NX1(105), true, 'ct_state', 'ct_state', 'NXM_NX_CT_STATE'],
  ['ctZone', 'uint', 2, 16, undefined, NX1(106), false, 'ct_zone', 'ct_zone', 'NXM_NX_CT_ZONE'],
  ['ctMark', 'uint', 4, 32, undefined, NX1(107), true, 'ct_mark', 'ct_mark', 'NXM_NX_CT_MARK'],
  ['ctLabel', 'big', 16, 128, undefined, NX1(108), true, 'ct_label', 'ct_label', 'NXM_NX_CT_LABEL'],
  ['tunIpv6Src', 'ipv6', 16, 128, undefined, NX1(109), true, 'tun_ipv6_src', 'tun_ipv6_src', 'NXM_NX_TUN_IPV6_SRC'],
  ['tunIpv6Dst', 'ipv6', 16, 128, undefined, NX1(110), true, 'tun_ipv6_dst', 'tun_ipv6_dst', 'NXM_NX_TUN_IPV6_DST'],
  ['ctNwProto', 'uint', 1, 8, undefined, NX1(119), false, 'ct_nw_proto', 'ct_nw_proto', 'NXM_NX_CT_NW_PROTO'],
  ['ctNwSrc', 'ipv4', 4, 32, undefined, NX1(120), true, 'ct_nw_src', 'ct_nw_src', 'NXM_NX_CT_NW_SRC'],
  ['ctNwDst', 'ipv4', 4, 32, undefined, NX1(121), true, 'ct_nw_dst', 'ct_nw_dst', 'NXM_NX_CT_NW_DST'],
  ['ctIpv6Src', 'ipv6', 16, 128, undefined, NX1(122), true, 'ct_ipv6_src', 'ct_ipv6_src', 'NXM_NX_CT_IPV6_SRC'],
  ['ctIpv6Dst', 'ipv6', 16, 128, undefined, NX1(123), true, 'ct_ipv6_dst', 'ct_ipv6_dst', 'NXM_NX_CT_IPV6_DST'],
  ['ctTpSrc', 'uint', 2, 16, undefined, NX1(124), true, 'ct_tp_src', 'ct_tp_src', 'NXM_NX_CT_TP_SRC'],
  ['ctTpDst', 'uint', 2, 16, undefined, NX1(125), true, 'ct_tp_dst', 'ct_tp_dst', 'NXM_NX_CT_TP_DST'],
];
for (let i = 0; i < 16; i++) rows.push([`reg${i}` as FieldName, 'uint', 4, 32, undefined, NX1(i), true, `reg${i}`, `reg${i}`, `NXM_NX_REG${i}`]);
for (let i = 0; i < 4; i++) rows.push([`xxreg${i}` as FieldName, 'big', 16, 128, undefined, NX1(111 + i), true, `xxreg${i}`, `xxreg${i}`, `NXM_NX_XXREG${i}`]);

/** All modelled fields, in the order the encoder writes them. */
export const FIELDS: readonly FieldInfo[] = rows.map(([name, kind, bytes, bits, oxm, nxm, maskable, text, mf, sym]) => {
  const f: FieldInfo = { name, kind, bytes, bits, maskable, text, mf, sym };
  if (oxm !== undefined) f.oxm = oxm;
  if (nxm !== undefined) f.nxm = nxm;
  return f;
});

export const FIELD_BY_NAME: ReadonlyMap<FieldName, FieldInfo> = new Map(FIELDS.map((f) => [f.name, f]));
/** header (class<<16 | field<<9, mask bit and length cleared) -> field. */
export const FIELD_BY_HEADER: ReadonlyMap<number, FieldInfo> = (() => {
  const m = new Map<number, FieldInfo>();
  for (const f of FIELDS) {
    if (f.oxm !== undefined) m.set(f.oxm, f);
    if (f.nxm !== undefined) m.set(f.nxm, f);
  }
  // NXM_OF_IN_PORT (16-bit) decodes to inPort as well; NXM_OF_IP_TOS to ipDscp (value << 2).
  return m;
})();
/** Subfield symbol (NXM_NX_REG0, OXM_OF_METADATA, or the mf name) -> field. */
export const FIELD_BY_SYM: ReadonlyMap<string, FieldInfo> = (() => {
  const m = new Map<string, FieldInfo>();
  for (const f of FIELDS) {
    m.set(f.sym.toLowerCase(), f);
    m.set(f.mf, f);
  }
  m.set('in_port', FIELD_BY_NAME.get('inPort')!);
  m.set('nxm_of_in_port', FIELD_BY_NAME.get('inPort')!);
  return m;
})();

/** Extra NXM headers that decode to a modelled field (OVS may send these). */
export const NXM_IN_PORT = NX0(0);
export const NXM_IP_TOS = NX0(5);
export const NXM_VLAN_TCI = NX0(4);

/** Header with mask bit and payload length. */
export function headerWord(base: number, bytes: number, hasMask: boolean): number {
  return (base | (hasMask ? 0x100 : 0) | (hasMask ? bytes * 2 : bytes)) >>> 0;
}

/** The header OVS uses for a field in an OpenFlow 1.5 match/set_field/copy_field: OXM if any, else NXM. */
export function oxmPreferred(f: FieldInfo): number {
  return (f.oxm ?? f.nxm)!;
}
/** The header OVS uses for a field inside Nicira actions (learn, output_reg, ct zone): NXM if any. */
export function nxmPreferred(f: FieldInfo): number {
  // in_port in NX actions is the 16-bit NXM_OF_IN_PORT.
  if (f.name === 'inPort') return NXM_IN_PORT;
  return (f.nxm ?? f.oxm)!;
}
/** Width in bits of the field as addressed by a given header (NXM_OF_IN_PORT is 16 bits). */
export function headerBits(f: FieldInfo, header: number): number {
  return header === NXM_IN_PORT ? 16 : f.bits;
}

export const CT_STATE_BITS: Record<CtStateFlag, number> = {
  new: 0x01,
  est: 0x02,
  rel: 0x04,
  rpl: 0x08,
  inv: 0x10,
  trk: 0x20,
  snat: 0x40,
  dnat: 0x80,
};
export const CT_STATE_ORDER: CtStateFlag[] = ['new', 'est', 'rel', 'rpl', 'inv', 'trk', 'snat', 'dnat'];

/**
 * Each flag read by name: a loop over the flag names made `s[k]` a keyed load of eight names, which
 * stays slow until V8 optimizes it (3x the CPU for the 2,000 ct_state matches of a 1,000-rule
 * policy realized by a fresh agent).
 */
export function ctStateToBits(s: CtState): { value: number; mask: number } {
  const r = { value: 0, mask: 0 };
  ctBit(r, s.new, CT_STATE_BITS.new);
  ctBit(r, s.est, CT_STATE_BITS.est);
  ctBit(r, s.rel, CT_STATE_BITS.rel);
  ctBit(r, s.rpl, CT_STATE_BITS.rpl);
  ctBit(r, s.inv, CT_STATE_BITS.inv);
  ctBit(r, s.trk, CT_STATE_BITS.trk);
  ctBit(r, s.snat, CT_STATE_BITS.snat);
  ctBit(r, s.dnat, CT_STATE_BITS.dnat);
  return r;
}
function ctBit(r: { value: number; mask: number }, v: boolean | undefined, bit: number): void {
  if (v === undefined) return;
  r.mask |= bit;
  if (v) r.value |= bit;
}
export function ctStateFromBits(value: number, mask: number): CtState {
  const s: CtState = {};
  for (const k of CT_STATE_ORDER) if (mask & CT_STATE_BITS[k]) s[k] = (value & CT_STATE_BITS[k]) !== 0;
  return s;
}
