/**
 * Renders flows as text in ovs-ofctl / antctl syntax, with tables by name (as `antctl get ovsflows`
 * and Antrea's tests print them) or by number (input for `ovs-ofctl add-flows`). Field order follows
 * OVS's match_format so dumps compare line by line.
 */
import type { Action, CtState, FieldRef, Flow, LearnSpec, Match, Masked } from '@switchyard/openflow/codec';
import { OFPP } from '@switchyard/openflow/codec';

/** How to name tables: a lookup (names) or undefined (numbers). */
export interface FormatOptions {
  tableName?: (id: number) => string | undefined;
  /** Print the cookie (default true). */
  cookie?: boolean;
}

const hex = (v: number | bigint): string => `0x${v.toString(16)}`;

function fmtMasked(v: Masked<number> | Masked<bigint>): string {
  if (typeof v === 'object') return `${hex(v.value)}/${hex(v.mask)}`;
  return hex(v);
}
function fmtMaskedStr(v: Masked<string>): string {
  return typeof v === 'object' ? `${v.value}/${v.mask}` : v;
}
/** IPv4/IPv6 masks print as prefix length when contiguous. */
function fmtIp(v: Masked<string>): string {
  if (typeof v !== 'object') return v;
  const len = prefixLen(v.mask);
  return len === undefined ? `${v.value}/${v.mask}` : `${v.value}/${len}`;
}
function prefixLen(mask: string): number | undefined {
  if (mask.includes('.')) {
    const n = mask.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    for (let l = 0; l <= 32; l++) if (n === (l === 0 ? 0 : (0xffffffff << (32 - l)) >>> 0)) return l;
    return undefined;
  }
  return undefined;
}

function fmtCtState(s: CtState): string {
  const order = ['new', 'est', 'rel', 'rpl', 'inv', 'trk', 'snat', 'dnat'] as const;
  return order.filter((f) => s[f] !== undefined).map((f) => `${s[f] ? '+' : '-'}${f}`).join('');
}

function protoName(m: Match): string | undefined {
  if (m.ethType === 0x0800) {
    switch (m.ipProto) {
      case undefined: return 'ip';
      case 6: return 'tcp';
      case 17: return 'udp';
      case 132: return 'sctp';
      case 1: return 'icmp';
      case 2: return 'igmp';
      default: return undefined;
    }
  }
  if (m.ethType === 0x86dd) {
    switch (m.ipProto) {
      case undefined: return 'ipv6';
      case 6: return 'tcp6';
      case 17: return 'udp6';
      case 132: return 'sctp6';
      case 58: return 'icmp6';
      default: return undefined;
    }
  }
  if (m.ethType === 0x0806) return 'arp';
  return undefined;
}

/** Renders a match (without priority) in OVS order. */
export function formatMatch(m: Match, portName?: (p: number) => string): string {
  const out: string[] = [];
  const push = (k: string, v: string): void => void out.push(`${k}=${v}`);
  if (m.conjId !== undefined) push('conj_id', String(m.conjId));
  if (m.pktMark !== undefined) push('pkt_mark', fmtMasked(m.pktMark));
  if (m.ctState !== undefined) push('ct_state', fmtCtState(m.ctState));
  if (m.ctZone !== undefined) push('ct_zone', String(m.ctZone));
  if (m.ctMark !== undefined) push('ct_mark', fmtMasked(m.ctMark));
  if (m.ctLabel !== undefined) push('ct_label', fmtMasked(m.ctLabel));
  if (m.ctNwSrc !== undefined) push('ct_nw_src', fmtIp(m.ctNwSrc));
  if (m.ctNwDst !== undefined) push('ct_nw_dst', fmtIp(m.ctNwDst));
  if (m.ctNwProto !== undefined) push('ct_nw_proto', String(m.ctNwProto));
  if (m.ctTpSrc !== undefined) push('ct_tp_src', fmtMaskedPort(m.ctTpSrc));
  if (m.ctTpDst !== undefined) push('ct_tp_dst', fmtMaskedPort(m.ctTpDst));
  const proto = protoName(m);
  if (proto) out.push(proto);
  for (let i = 0; i < 16; i++) {
    const r = m[`reg${i}` as 'reg0'];
    if (r !== undefined) push(`reg${i}`, fmtMasked(r));
  }
  for (let i = 0; i < 4; i++) {
    const r = m[`xxreg${i}` as 'xxreg0'];
    if (r !== undefined) push(`xxreg${i}`, fmtMasked(r));
  }
  if (m.tunId !== undefined) push('tun_id', fmtMasked(m.tunId));
  if (m.tunIpv4Src !== undefined) push('tun_src', fmtIp(m.tunIpv4Src));
  if (m.tunIpv4Dst !== undefined) push('tun_dst', fmtIp(m.tunIpv4Dst));
  if (m.metadata !== undefined) push('metadata', fmtMasked(m.metadata));
  if (m.inPort !== undefined) push('in_port', portName ? portName(m.inPort) : String(m.inPort));
  if (m.vlanVid !== undefined) push('vlan_tci', fmtMasked(typeof m.vlanVid === 'object' ? m.vlanVid : m.vlanVid));
  if (m.ethSrc !== undefined) push('dl_src', fmtMaskedStr(m.ethSrc));
  if (m.ethDst !== undefined) push('dl_dst', fmtMaskedStr(m.ethDst));
  if (m.ethType !== undefined && !proto) push('dl_type', hex(m.ethType));
  if (m.ipv4Src !== undefined) push('nw_src', fmtIp(m.ipv4Src));
  if (m.ipv4Dst !== undefined) push('nw_dst', fmtIp(m.ipv4Dst));
  if (m.ipv6Src !== undefined) push('ipv6_src', fmtMaskedStr(m.ipv6Src));
  if (m.ipv6Dst !== undefined) push('ipv6_dst', fmtMaskedStr(m.ipv6Dst));
  if (m.arpSpa !== undefined) push('arp_spa', fmtIp(m.arpSpa));
  if (m.arpTpa !== undefined) push('arp_tpa', fmtIp(m.arpTpa));
  if (m.arpOp !== undefined) push('arp_op', String(m.arpOp));
  if (m.arpSha !== undefined) push('arp_sha', fmtMaskedStr(m.arpSha));
  if (m.arpTha !== undefined) push('arp_tha', fmtMaskedStr(m.arpTha));
  if (m.ipProto !== undefined && !proto) push('nw_proto', String(m.ipProto));
  if (m.ipDscp !== undefined) push('nw_tos', String(m.ipDscp << 2));
  const tpSrc = m.tcpSrc ?? m.udpSrc ?? m.sctpSrc;
  const tpDst = m.tcpDst ?? m.udpDst ?? m.sctpDst;
  if (tpSrc !== undefined) push('tp_src', fmtMaskedPort(tpSrc));
  if (tpDst !== undefined) push('tp_dst', fmtMaskedPort(tpDst));
  const icmpType = m.icmpType ?? m.icmpv6Type;
  const icmpCode = m.icmpCode ?? m.icmpv6Code;
  if (icmpType !== undefined) push('icmp_type', String(icmpType));
  if (icmpCode !== undefined) push('icmp_code', String(icmpCode));
  if (m.tcpFlags !== undefined) push('tcp_flags', fmtMasked(m.tcpFlags));
  return out.join(',');
}

function fmtMaskedPort(v: Masked<number>): string {
  return typeof v === 'object' ? `${hex(v.value)}/${hex(v.mask)}` : String(v);
}

const SET_FIELD_NAMES: Partial<Record<string, string>> = {
  ethSrc: 'eth_src', ethDst: 'eth_dst', arpOp: 'arp_op', arpSha: 'arp_sha', arpTha: 'arp_tha', arpSpa: 'arp_spa',
  arpTpa: 'arp_tpa', ipv4Src: 'ip_src', ipv4Dst: 'ip_dst', tunIpv4Dst: 'tun_dst', tunIpv4Src: 'tun_src',
  tunIpv6Dst: 'tun_ipv6_dst', tunId: 'tun_id', ctMark: 'ct_mark', ctLabel: 'ct_label', pktMark: 'pkt_mark',
  vlanVid: 'vlan_vid', tcpDst: 'tcp_dst', udpDst: 'udp_dst', ipDscp: 'ip_dscp',
};
const NXM_NAMES: Partial<Record<string, string>> = {
  ethSrc: 'NXM_OF_ETH_SRC', ethDst: 'NXM_OF_ETH_DST', arpSha: 'NXM_NX_ARP_SHA', arpTha: 'NXM_NX_ARP_THA',
  arpSpa: 'NXM_OF_ARP_SPA', arpTpa: 'NXM_OF_ARP_TPA', ipv4Src: 'NXM_OF_IP_SRC', ipv4Dst: 'NXM_OF_IP_DST',
  tcpDst: 'NXM_OF_TCP_DST', tcpSrc: 'NXM_OF_TCP_SRC', udpDst: 'NXM_OF_UDP_DST', udpSrc: 'NXM_OF_UDP_SRC',
  sctpDst: 'OXM_OF_SCTP_DST', ctMark: 'NXM_NX_CT_MARK', ctLabel: 'NXM_NX_CT_LABEL', tunId: 'NXM_NX_TUN_ID',
  tunIpv4Dst: 'NXM_NX_TUN_IPV4_DST', vlanVid: 'OXM_OF_VLAN_VID', ipProto: 'NXM_OF_IP_PROTO', ethType: 'NXM_OF_ETH_TYPE',
  inPort: 'NXM_OF_IN_PORT', pktMark: 'NXM_NX_PKT_MARK',
};

/** `NXM_NX_REG0[0..3]` style name of a field range. */
export function formatFieldRef(r: FieldRef): string {
  let name = NXM_NAMES[r.field];
  if (!name) {
    const reg = /^(x*reg)(\d+)$/.exec(r.field);
    name = reg ? `NXM_NX_${reg[1]!.toUpperCase()}${reg[2]}` : r.field;
  }
  if (r.start === undefined || r.end === undefined) return `${name}[]`;
  return r.start === r.end ? `${name}[${r.start}]` : `${name}[${r.start}..${r.end}]`;
}

function fmtSetValue(field: string, v: Masked<number> | Masked<bigint> | Masked<string>): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && typeof v.value === 'string') return `${v.value}/${v.mask as string}`;
  if (field === 'arpOp') return String(v as number);
  return fmtMasked(v as Masked<number>);
}

const RESERVED_PORT_NAMES: Record<number, string> = {
  [OFPP.IN_PORT]: 'IN_PORT', [OFPP.NORMAL]: 'NORMAL', [OFPP.FLOOD]: 'FLOOD', [OFPP.ALL]: 'ALL',
  [OFPP.CONTROLLER]: 'CONTROLLER', [OFPP.LOCAL]: 'LOCAL', [OFPP.TABLE]: 'TABLE',
};

function fmtLearnSrc(src: FieldRef | { value: number | bigint | string }): string {
  if ('field' in src) return formatFieldRef(src);
  return typeof src.value === 'string' ? src.value : hex(src.value);
}

function fmtLearnSpec(s: LearnSpec): string {
  switch (s.kind) {
    case 'match':
      if ('field' in s.src && s.src.field === s.dst.field && s.src.start === s.dst.start && s.src.end === s.dst.end) return formatFieldRef(s.dst);
      return `${formatFieldRef(s.dst)}=${fmtLearnSrc(s.src)}`;
    case 'load':
      return `load:${fmtLearnSrc(s.src)}->${formatFieldRef(s.dst)}`;
    case 'output':
      return `output:${formatFieldRef(s.src)}`;
  }
}

/** Renders one action. */
export function formatAction(a: Action, tableName: (id: number) => string): string {
  switch (a.type) {
    case 'output':
      if (typeof a.port === 'number') return RESERVED_PORT_NAMES[a.port] ?? `output:${a.port}`;
      if (typeof a.port === 'string') return a.port === 'CONTROLLER' ? `CONTROLLER:${a.maxLen ?? 65535}` : a.port;
      return `output:${formatFieldRef(a.port)}`;
    case 'setField':
      return `set_field:${fmtSetValue(a.field, a.value)}->${SET_FIELD_NAMES[a.field] ?? a.field}`;
    case 'copyField':
      return `move:${formatFieldRef(a.src)}->${formatFieldRef(a.dst)}`;
    case 'resubmit':
      return `resubmit(${a.port === undefined ? '' : a.port === 'IN_PORT' ? 'IN_PORT' : a.port},${a.table === undefined ? '' : tableName(a.table)}${a.ct ? ',ct' : ''})`;
    case 'conjunction':
      return `conjunction(${a.id},${a.clause}/${a.nClauses})`;
    case 'ct': {
      const parts: string[] = [];
      if (a.commit) parts.push('commit');
      if (a.force) parts.push('force');
      if (a.table !== undefined) parts.push(`table=${tableName(a.table)}`);
      if (a.zone !== undefined) parts.push(`zone=${typeof a.zone === 'number' ? a.zone : formatFieldRef(a.zone)}`);
      if (a.nat) {
        const n = a.nat;
        if (!n.kind) parts.push('nat');
        else {
          let addr = n.ipMin ?? '';
          if (n.ipMax) addr += `-${n.ipMax}`;
          if (n.portMin !== undefined) addr += `:${n.portMin}${n.portMax !== undefined ? `-${n.portMax}` : ''}`;
          const flags = [n.persistent ? 'persistent' : '', n.hash ? 'hash' : '', n.random ? 'random' : ''].filter(Boolean);
          parts.push(`nat(${n.kind}${addr ? `=${addr}` : ''}${flags.length ? `,${flags.join(',')}` : ''})`);
        }
      }
      if (a.alg !== undefined) parts.push(`alg=${a.alg}`);
      if (a.exec && a.exec.length) parts.push(`exec(${a.exec.map((x) => formatAction(x, tableName)).join(',')})`);
      return `ct(${parts.join(',')})`;
    }
    case 'ctClear':
      return 'ct_clear';
    case 'learn': {
      const parts = [`table=${tableName(a.table)}`];
      if (a.idleTimeout !== undefined) parts.push(`idle_timeout=${a.idleTimeout}`);
      if (a.hardTimeout !== undefined) parts.push(`hard_timeout=${a.hardTimeout}`);
      if (a.priority !== undefined) parts.push(`priority=${a.priority}`);
      if (a.finIdleTimeout !== undefined) parts.push(`fin_idle_timeout=${a.finIdleTimeout}`);
      if (a.finHardTimeout !== undefined) parts.push(`fin_hard_timeout=${a.finHardTimeout}`);
      if (a.deleteLearned) parts.push('delete_learned');
      if (a.cookie !== undefined) parts.push(`cookie=${hex(a.cookie)}`);
      for (const s of a.specs) parts.push(fmtLearnSpec(s));
      return `learn(${parts.join(',')})`;
    }
    case 'controller': {
      const parts: string[] = [];
      if (a.reason && a.reason !== 'action') parts.push(`reason=${a.reason}`);
      if (a.maxLen !== undefined) parts.push(`max_len=${a.maxLen}`);
      if (a.id !== undefined) parts.push(`id=${a.id}`);
      if (a.userdata && a.userdata.length) parts.push(`userdata=${[...a.userdata].map((b) => b.toString(16).padStart(2, '0')).join('.')}`);
      if (a.pause) parts.push('pause');
      if (a.meterId !== undefined) parts.push(`meter_id=${a.meterId}`);
      return parts.length ? `controller(${parts.join(',')})` : 'CONTROLLER:65535';
    }
    case 'note':
      return `note:${[...a.data].map((b) => b.toString(16).padStart(2, '0')).join('.')}`;
    case 'decTtl':
      return 'dec_ttl';
    case 'group':
      return `group:${a.id}`;
    case 'meter':
      return `meter:${a.id}`;
    case 'pushVlan':
      return `push_vlan:${hex(a.ethType ?? 0x8100)}`;
    case 'popVlan':
      return 'pop_vlan';
    case 'gotoTable':
      return `goto_table:${tableName(a.table)}`;
    case 'writeActions':
      return `write_actions(${a.actions.map((x) => formatAction(x, tableName)).join(',')})`;
    case 'clearActions':
      return 'clear_actions';
  }
}

/** Renders a flow: `cookie=0x..., table=Name, priority=200,ip,... actions=...`. */
export function formatFlow(f: Flow, opts: FormatOptions = {}): string {
  const tn = (id: number): string => opts.tableName?.(id) ?? String(id);
  const head: string[] = [];
  if (opts.cookie !== false && f.cookie !== undefined) head.push(`cookie=${hex(f.cookie)}`);
  head.push(`table=${tn(f.table)}`);
  if (f.idleTimeout) head.push(`idle_timeout=${f.idleTimeout}`);
  if (f.hardTimeout) head.push(`hard_timeout=${f.hardTimeout}`);
  const match = formatMatch(f.match);
  const actions = f.actions.length ? f.actions.map((a) => formatAction(a, tn)).join(',') : 'drop';
  return `${head.join(', ')}, priority=${f.priority}${match ? `,${match}` : ''} actions=${actions}`;
}
