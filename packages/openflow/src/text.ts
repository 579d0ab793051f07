/** ovs-ofctl text: render a Flow in add-flow syntax, parse `ovs-ofctl -O OpenFlow15 dump-flows` lines back. */
import { portFromNumber, portNumber, REASONS } from './actions';
import { fromHex, toHex } from './buf';
import { OfTextError } from './errors';
import { CT_STATE_BITS, CT_STATE_ORDER, FIELD_BY_NAME, FIELD_BY_SYM, FIELDS, type FieldInfo } from './fields';
import type {
  Action,
  CtAction,
  CtState,
  CtStateFlag,
  FieldRef,
  Flow,
  FlowFlag,
  LearnAction,
  LearnSpec,
  Masked,
  Match,
  NatSpec,
  PacketInReason,
  ReservedPort,
  SetFieldAction,
  ValueFieldName,
} from './flow';
import { isMasked, parseIpv4, parseIpv6, formatIpv4, formatIpv6, valueToBytes, bytesToValue, bigToBytes, bytesToBig } from './values';

// ---------------------------------------------------------------- render

const HEX_FIELDS = new Set<string>(['tunId', 'metadata', 'ctMark', 'ctLabel', 'pktMark', 'tcpFlags', 'ethType', 'vlanVid']);

function renderNumber(v: number | bigint, hex: boolean): string {
  return hex ? `0x${v.toString(16)}` : v.toString(10);
}

function prefixLen(bytes: Uint8Array): number | undefined {
  let n = 0;
  let i = 0;
  for (; i < bytes.length && bytes[i] === 0xff; i++) n += 8;
  if (i < bytes.length) {
    const b = bytes[i]!;
    let bits = 0;
    while (bits < 8 && b & (0x80 >> bits)) bits++;
    if (((b << bits) & 0xff) !== 0) return undefined;
    n += bits;
    for (i++; i < bytes.length; i++) if (bytes[i] !== 0) return undefined;
  }
  return n;
}

/** Render one field value (with mask) in ovs-ofctl syntax. */
export function renderFieldValue(f: FieldInfo, v: Masked<unknown>): string {
  const one = (x: unknown): string => {
    if (typeof x === 'number' || typeof x === 'bigint') {
      const hex = HEX_FIELDS.has(f.name) || f.name.startsWith('reg') || f.name.startsWith('xxreg') || isMasked(v);
      return renderNumber(x, hex);
    }
    return String(x);
  };
  if (!isMasked(v)) return one(v);
  if (f.kind === 'ipv4' || f.kind === 'ipv6') {
    const p = prefixLen(valueToBytes(f, v.mask, f.name));
    if (p !== undefined) return `${String(v.value)}/${p}`;
  }
  return `${one(v.value)}/${one(v.mask)}`;
}

function renderCtState(s: CtState): string {
  let out = '';
  for (const k of CT_STATE_ORDER) {
    const v = s[k];
    if (v !== undefined) out += `${v ? '+' : '-'}${k}`;
  }
  return out;
}

const MATCH_TEXT_NAME: Partial<Record<ValueFieldName | 'ctState', string>> = {
  tcpSrc: 'tcp_src',
  tcpDst: 'tcp_dst',
  udpSrc: 'udp_src',
  udpDst: 'udp_dst',
  sctpSrc: 'sctp_src',
  sctpDst: 'sctp_dst',
  icmpv6Type: 'icmpv6_type',
  icmpv6Code: 'icmpv6_code',
  inPort: 'in_port',
  vlanVid: 'vlan_vid',
};

/** Render a match as comma-separated `field=value` terms (no protocol shorthands). */
export function renderMatch(m: Match): string {
  const parts: string[] = [];
  for (const f of FIELDS) {
    const v = (m as Record<string, unknown>)[f.name];
    if (v === undefined) continue;
    const name = MATCH_TEXT_NAME[f.name] ?? f.text;
    if (f.name === 'ctState') parts.push(`ct_state=${renderCtState(v as CtState)}`);
    else if (f.name === 'inPort') parts.push(`in_port=${String(portFromNumber(v as number))}`);
    else parts.push(`${name}=${renderFieldValue(f, v as Masked<unknown>)}`);
  }
  return parts.join(',');
}

/** Render a field reference as `NXM_NX_REG0[0..3]`. */
export function renderRef(r: FieldRef): string {
  const f = FIELD_BY_NAME.get(r.field);
  const sym = r.field === 'inPort' ? 'NXM_OF_IN_PORT' : (f?.sym ?? r.field);
  if (r.start === undefined && r.end === undefined) return `${sym}[]`;
  const s = r.start ?? 0;
  const e = r.end ?? (f ? f.bits - 1 : s);
  return s === e ? `${sym}[${s}]` : `${sym}[${s}..${e}]`;
}

function dotted(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('.');
}

function renderNat(n: NatSpec): string {
  if (n.kind === undefined) return 'nat';
  let s = `nat(${n.kind}`;
  if (n.ipMin !== undefined) {
    const v6 = n.ipMin.includes(':');
    const addr = (a: string): string => (v6 && n.portMin !== undefined ? `[${a}]` : a);
    s += `=${addr(n.ipMin)}`;
    if (n.ipMax !== undefined) s += `-${addr(n.ipMax)}`;
    if (n.portMin !== undefined) s += `:${n.portMin}${n.portMax !== undefined ? `-${n.portMax}` : ''}`;
  }
  if (n.persistent) s += ',persistent';
  if (n.hash) s += ',hash';
  if (n.random) s += ',random';
  return s + ')';
}

function renderLearnSrc(spec: { src: FieldRef | { value: number | bigint | string } }, dst: FieldRef): string {
  if ('field' in spec.src) return renderRef(spec.src);
  const v = spec.src.value;
  if (typeof v === 'number' || typeof v === 'bigint') {
    // Immediates are relative to the destination range.
    const shifted = BigInt(v) >> BigInt(dst.start ?? 0);
    return `0x${shifted.toString(16)}`;
  }
  return v;
}

function renderLearn(a: LearnAction): string {
  const parts = [`table=${a.table}`];
  if (a.idleTimeout) parts.push(`idle_timeout=${a.idleTimeout}`);
  if (a.hardTimeout) parts.push(`hard_timeout=${a.hardTimeout}`);
  if (a.finIdleTimeout) parts.push(`fin_idle_timeout=${a.finIdleTimeout}`);
  if (a.finHardTimeout) parts.push(`fin_hard_timeout=${a.finHardTimeout}`);
  if (a.priority !== undefined && a.priority !== 0x8000) parts.push(`priority=${a.priority}`);
  if (a.cookie) parts.push(`cookie=0x${a.cookie.toString(16)}`);
  if (a.deleteLearned) parts.push('delete_learned');
  for (const s of a.specs) {
    if (s.kind === 'output') parts.push(`output:${renderRef(s.src)}`);
    else if (s.kind === 'load') parts.push(`load:${renderLearnSrc(s, s.dst)}->${renderRef(s.dst)}`);
    else if ('field' in s.src) parts.push(`${renderRef(s.dst)}=${renderRef(s.src)}`);
    else {
      const f = FIELD_BY_NAME.get(s.dst.field)!;
      const whole = s.dst.start === undefined && s.dst.end === undefined;
      parts.push(whole ? `${f.mf}=${renderFieldValue(f, s.src.value)}` : `${renderRef(s.dst)}=${renderLearnSrc(s, s.dst)}`);
    }
  }
  return `learn(${parts.join(',')})`;
}

/** Render one action in ovs-ofctl syntax. */
export function renderAction(a: Action): string {
  switch (a.type) {
    case 'output':
      if (typeof a.port === 'object') return `output:${renderRef(a.port)}`;
      if (a.port === 'CONTROLLER') return `CONTROLLER:${a.maxLen ?? 65535}`;
      if (typeof a.port === 'string') return a.port;
      return `output:${a.port}`;
    case 'setField': {
      const f = FIELD_BY_NAME.get(a.field)!;
      return `set_field:${renderFieldValue(f, a.value)}->${f.name === 'inPort' ? 'in_port' : f.mf}`;
    }
    case 'copyField':
      return `move:${renderRef(a.src)}->${renderRef(a.dst)}`;
    case 'resubmit': {
      const port = a.port === undefined ? '' : String(a.port);
      if (a.table === undefined && !a.ct) return `resubmit:${port}`;
      return `resubmit(${port},${a.table ?? ''}${a.ct ? ',ct' : ''})`;
    }
    case 'conjunction':
      return `conjunction(${a.id},${a.clause}/${a.nClauses})`;
    case 'ct': {
      const p: string[] = [];
      if (a.commit) p.push('commit');
      if (a.force) p.push('force');
      if (a.table !== undefined) p.push(`table=${a.table}`);
      if (a.zone !== undefined) p.push(`zone=${typeof a.zone === 'object' ? renderRef(a.zone) : a.zone}`);
      if (a.nat) p.push(renderNat(a.nat));
      if (a.exec) p.push(`exec(${a.exec.map(renderAction).join(',')})`);
      if (a.alg !== undefined) p.push(`alg=${a.alg}`);
      return `ct(${p.join(',')})`;
    }
    case 'ctClear':
      return 'ct_clear';
    case 'learn':
      return renderLearn(a);
    case 'controller': {
      const p: string[] = [];
      if (a.reason && a.reason !== 'action') p.push(`reason=${a.reason}`);
      if (a.maxLen !== undefined && a.maxLen !== 65535) p.push(`max_len=${a.maxLen}`);
      if (a.id) p.push(`id=${a.id}`);
      if (a.userdata?.length) p.push(`userdata=${dotted(a.userdata)}`);
      if (a.pause) p.push('pause');
      if (a.meterId !== undefined) p.push(`meter_id=${a.meterId}`);
      return p.length ? `controller(${p.join(',')})` : 'controller';
    }
    case 'note':
      return `note:${dotted(a.data)}`;
    case 'decTtl':
      return 'dec_ttl';
    case 'group':
      return `group:${a.id}`;
    case 'meter':
      return `meter:${a.id}`;
    case 'pushVlan':
      return `push_vlan:0x${(a.ethType ?? 0x8100).toString(16)}`;
    case 'popVlan':
      return 'pop_vlan';
    case 'gotoTable':
      return `goto_table:${a.table}`;
    case 'writeActions':
      return `write_actions(${a.actions.map(renderAction).join(',')})`;
    case 'clearActions':
      return 'clear_actions';
  }
}

/** Render an action list (`drop` when empty). */
export function renderActions(actions: readonly Action[]): string {
  return actions.length === 0 ? 'drop' : actions.map(renderAction).join(',');
}

/** Render a flow in `ovs-ofctl add-flow` syntax (stats are not rendered). */
export function renderFlow(flow: Flow): string {
  const parts = [`table=${flow.table}`, `priority=${flow.priority}`];
  if (flow.cookie !== undefined) parts.push(`cookie=0x${flow.cookie.toString(16)}${flow.cookieMask !== undefined ? `/0x${flow.cookieMask.toString(16)}` : ''}`);
  if (flow.idleTimeout) parts.push(`idle_timeout=${flow.idleTimeout}`);
  if (flow.hardTimeout) parts.push(`hard_timeout=${flow.hardTimeout}`);
  if (flow.importance) parts.push(`importance=${flow.importance}`);
  for (const fl of flow.flags ?? []) parts.push(fl);
  const m = renderMatch(flow.match);
  if (m) parts.push(m);
  return `${parts.join(',')},actions=${renderActions(flow.actions)}`;
}

// ---------------------------------------------------------------- parse

/** Options for parsing. */
export interface ParseOptions {
  /** Port names as printed with `--names`, mapped to numbers. */
  portNumbers?: ReadonlyMap<string, number>;
  /** Table names as printed with `--names` (when the bridge has named tables), mapped to numbers. */
  tableNumbers?: ReadonlyMap<string, number>;
}

/** Split at top-level `sep` characters (not inside (), [] or quotes); empty parts dropped. */
function splitTop(s: string, seps: string): string[] {
  const space = seps.includes(' ');
  if (s.indexOf('(') < 0 && s.indexOf('[') < 0 && s.indexOf('"') < 0) return splitFlat(s, space);
  return splitNested(s, space);
}

/** Split with no nesting possible: indexOf scanning, separators `,` (and spaces when `space`). */
function splitFlat(s: string, space: boolean): string[] {
  const out: string[] = [];
  const n = s.length;
  let start = 0;
  while (start < n) {
    let end = s.indexOf(',', start);
    if (end < 0) end = n;
    if (space) {
      const sp = s.indexOf(' ', start);
      if (sp >= 0 && sp < end) end = sp;
    }
    if (end > start) {
      const part = space ? s.slice(start, end) : s.slice(start, end).trim();
      if (part !== '') out.push(part);
    }
    start = end + 1;
  }
  return out;
}

function splitNested(s: string, space: boolean): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i === s.length ? 44 : s.charCodeAt(i);
    if (c === 34 /* " */) quoted = !quoted;
    else if (quoted && i < s.length) continue;
    else if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) depth--;
    else if ((depth === 0 || i === s.length) && (c === 44 || (c === 32 && space))) {
      if (i > start) {
        const part = s.slice(start, i).trim();
        if (part !== '') out.push(part);
      }
      start = i + 1;
    }
  }
  return out;
}

/** Decimal or 0x-hex non-negative integer (up to 2^53); -1 if `s` is not one. */
function scanInt(s: string): number {
  const len = s.length;
  if (len === 0) return -1;
  let n = 0;
  if (len > 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) | 32) === 120) {
    for (let i = 2; i < len; i++) {
      const c = s.charCodeAt(i) | 32;
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) return -1;
      n = n * 16 + d;
    }
    return n <= Number.MAX_SAFE_INTEGER ? n : -1;
  }
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n <= Number.MAX_SAFE_INTEGER ? n : -1;
}

class TextParser {
  constructor(
    readonly text: string,
    readonly opts: ParseOptions,
  ) {}
  fail(msg: string, token?: string): never {
    const col = token ? Math.max(0, this.text.indexOf(token)) : 0;
    throw new OfTextError(msg, this.text, col);
  }
  int(s: string, what: string): number {
    const n = scanInt(s);
    if (n < 0) this.fail(`bad ${what} "${s}"`, s);
    return n;
  }
  big(s: string, what: string): bigint {
    if (s === '0') return 0n;
    if (s.length < 14) {
      const n = scanInt(s);
      if (n >= 0) return BigInt(n);
    }
    if (!/^(0x[0-9a-f]+|\d+)$/i.test(s)) this.fail(`bad ${what} "${s}"`, s);
    return BigInt(s);
  }
  table(s: string): number {
    const unq = s.replace(/^"|"$/g, '');
    const n = this.opts.tableNumbers?.get(unq);
    return n ?? this.int(unq, 'table');
  }
  port(s: string): number {
    const unq = s.replace(/^"|"$/g, '');
    const reserved = ['IN_PORT', 'TABLE', 'NORMAL', 'FLOOD', 'ALL', 'CONTROLLER', 'LOCAL'];
    if (reserved.includes(unq.toUpperCase())) return portNumber(unq.toUpperCase() as ReservedPort);
    if (/^(0x[0-9a-f]+|\d+)$/i.test(unq)) return this.int(unq, 'port');
    const n = this.opts.portNumbers?.get(unq);
    if (n === undefined) this.fail(`unknown port name "${unq}"`, s);
    return n;
  }

  /** One value of a field (no mask). */
  value(f: FieldInfo, s: string): number | bigint | string {
    switch (f.kind) {
      case 'uint':
      case 'ctState':
        return this.int(s, f.name);
      case 'big':
        return this.big(s, f.name);
      case 'mac':
        if (!/^[0-9a-f]{1,2}(:[0-9a-f]{1,2}){5}$/i.test(s)) this.fail(`bad MAC "${s}"`, s);
        return s.toLowerCase().split(':').map((x) => x.padStart(2, '0')).join(':');
      case 'ipv4':
        if (!parseIpv4(s)) this.fail(`bad IPv4 address "${s}"`, s);
        return s;
      case 'ipv6': {
        const b = parseIpv6(s);
        if (!b) this.fail(`bad IPv6 address "${s}"`, s);
        return formatIpv6(b);
      }
    }
  }

  /** A field value with optional `/mask` or `/prefix`, canonicalised like OVS stores it. */
  masked(f: FieldInfo, s: string): Masked<number | bigint | string> {
    const slash = s.indexOf('/');
    if (slash < 0) return this.value(f, s);
    const v = s.slice(0, slash);
    const m = s.slice(slash + 1);
    let mask: number | bigint | string;
    if ((f.kind === 'ipv4' || f.kind === 'ipv6') && /^\d+$/.test(m)) {
      const bits = Number(m);
      const total = f.bytes * 8;
      if (bits > total) this.fail(`bad prefix length ${m}`, s);
      const mb = ((1n << BigInt(bits)) - 1n) << BigInt(total - bits);
      const bytes = bigToBytes(mb, f.bytes);
      mask = f.kind === 'ipv4' ? formatIpv4(bytes) : formatIpv6(bytes);
    } else mask = this.value(f, m);
    return canonicalMasked(f, this.value(f, v), mask);
  }

  subfield(s: string): FieldRef {
    const m = /^([A-Za-z0-9_]+)\[(?:(\d+)(?:\.\.(\d+))?)?\]$/.exec(s.trim());
    if (!m) this.fail(`bad field reference "${s}"`, s);
    const f = FIELD_BY_SYM.get(m[1]!.toLowerCase());
    if (!f || f.name === 'ctState') this.fail(`unknown field "${m[1]}"`, s);
    const ref: FieldRef = { field: f.name as ValueFieldName };
    if (m[2] !== undefined) {
      const width = m[1]!.toLowerCase() === 'nxm_of_in_port' ? 16 : f.bits;
      const start = Number(m[2]);
      const end = m[3] !== undefined ? Number(m[3]) : start;
      if (!(start === 0 && end === width - 1)) {
        ref.start = start;
        ref.end = end;
      }
    }
    return ref;
  }
}

/** Canonical masked value: full mask -> plain value, value bits outside the mask cleared. */
function canonicalMasked(f: FieldInfo, value: number | bigint | string, mask: number | bigint | string): Masked<number | bigint | string> {
  const vb = valueToBytes(f, value, f.name);
  const mb = valueToBytes(f, mask, f.name);
  const full = f.bits < f.bytes * 8 ? (1n << BigInt(f.bits)) - 1n : (1n << BigInt(f.bytes * 8)) - 1n;
  const mBig = bytesToBig(mb);
  const vBig = bytesToBig(vb) & mBig;
  const v = bytesToValue(f, bigToBytes(vBig, f.bytes));
  if ((mBig & full) === full) return v;
  return { value: v, mask: bytesToValue(f, mb) };
}

const SHORTHANDS: Record<string, [number, number?]> = {
  ip: [0x0800],
  ipv6: [0x86dd],
  arp: [0x0806],
  rarp: [0x8035],
  tcp: [0x0800, 6],
  udp: [0x0800, 17],
  sctp: [0x0800, 132],
  icmp: [0x0800, 1],
  tcp6: [0x86dd, 6],
  udp6: [0x86dd, 17],
  sctp6: [0x86dd, 132],
  icmp6: [0x86dd, 58],
};

const TCP_FLAG_NAMES = ['fin', 'syn', 'rst', 'psh', 'ack', 'urg', 'ece', 'cwr', 'ns'];

/** Match keys whose meaning depends on the protocol, resolved after the whole match is read. */
type Deferred = { key: string; value: string };

/** ovs-ofctl match names and meta-flow names -> field (contextual names are resolved separately). */
const MATCH_KEY: ReadonlyMap<string, FieldInfo> = (() => {
  const m = new Map<string, FieldInfo>();
  for (const f of FIELDS) {
    m.set(f.mf, f);
    if (!m.has(f.text)) m.set(f.text, f);
  }
  return m;
})();

const MATCH_ALIASES: Record<string, ValueFieldName> = {
  dl_src: 'ethSrc',
  dl_dst: 'ethDst',
  dl_type: 'ethType',
  nw_proto: 'ipProto',
  ip_proto: 'ipProto',
  nw_ecn: 'ipEcn',
  ip_ecn: 'ipEcn',
  nw_ttl: 'ipTtl',
  ip_dscp: 'ipDscp',
};

function parseMatchTerms(p: TextParser, terms: string[], match: Match): void {
  const deferred: Deferred[] = [];
  const m = match as Record<string, unknown>;
  for (const t of terms) {
    const eq = t.indexOf('=');
    const key = (eq < 0 ? t : t.slice(0, eq)).trim();
    const val = eq < 0 ? '' : t.slice(eq + 1).trim();
    if (eq < 0) {
      const sh = SHORTHANDS[key];
      if (!sh) p.fail(`unknown match keyword "${key}"`, key);
      match.ethType = sh[0];
      if (sh[1] !== undefined) match.ipProto = sh[1];
      continue;
    }
    switch (key) {
      case 'in_port':
        match.inPort = p.port(val);
        continue;
      case 'nw_tos':
        match.ipDscp = p.int(val, 'nw_tos') >> 2;
        continue;
      case 'dl_vlan':
        match.vlanVid = (p.int(val, 'dl_vlan') & 0xfff) | 0x1000;
        continue;
      case 'vlan_tci': {
        const f = FIELD_BY_NAME.get('vlanVid')!;
        const [v, mk] = val.split('/');
        const value = p.int(v!, 'vlan_tci') & 0x1fff;
        const mask = (mk === undefined ? 0xffff : p.int(mk, 'vlan_tci')) & 0x1fff;
        match.vlanVid = canonicalMasked(f, value, mask) as Masked<number>;
        continue;
      }
      case 'ct_state':
        match.ctState = parseCtState(p, val);
        continue;
      case 'tcp_flags':
        match.tcpFlags = parseTcpFlags(p, val);
        continue;
      case 'tp_src':
      case 'tp_dst':
      case 'icmp_type':
      case 'icmp_code':
      case 'nw_src':
      case 'nw_dst':
        deferred.push({ key, value: val });
        continue;
    }
    if (/^xxreg[0-3]$/.test(key)) {
      const f = FIELD_BY_NAME.get(key as ValueFieldName)!;
      m[f.name] = p.masked(f, val);
      continue;
    }
    const alias = MATCH_ALIASES[key];
    const f = alias ? FIELD_BY_NAME.get(alias) : MATCH_KEY.get(key);
    if (!f) p.fail(`unknown match field "${key}"`, t);
    m[f.name] = p.masked(f, val);
  }
  for (const d of deferred) {
    const proto = match.ipProto;
    const v6 = match.ethType === 0x86dd;
    let name: ValueFieldName;
    if (d.key === 'tp_src' || d.key === 'tp_dst') {
      const pre = proto === 6 ? 'tcp' : proto === 17 ? 'udp' : proto === 132 ? 'sctp' : undefined;
      if (!pre) p.fail(`${d.key} needs tcp, udp or sctp`, d.key);
      name = `${pre}${d.key === 'tp_src' ? 'Src' : 'Dst'}` as ValueFieldName;
    } else if (d.key === 'icmp_type' || d.key === 'icmp_code') {
      name = (v6 ? (d.key === 'icmp_type' ? 'icmpv6Type' : 'icmpv6Code') : d.key === 'icmp_type' ? 'icmpType' : 'icmpCode') as ValueFieldName;
    } else {
      const arp = match.ethType === 0x0806 || match.ethType === 0x8035;
      name = (arp ? (d.key === 'nw_src' ? 'arpSpa' : 'arpTpa') : d.key === 'nw_src' ? 'ipv4Src' : 'ipv4Dst') as ValueFieldName;
    }
    m[name] = p.masked(FIELD_BY_NAME.get(name)!, d.value);
  }
}

function parseCtState(p: TextParser, s: string): CtState {
  const out: CtState = {};
  if (/^[+-]/.test(s)) {
    const re = /([+-])([a-z]+)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s))) {
      if (!(m[2]! in CT_STATE_BITS)) p.fail(`unknown ct_state flag "${m[2]}"`, s);
      out[m[2] as CtStateFlag] = m[1] === '+';
    }
    return out;
  }
  if (/^(0x[0-9a-f]+|\d+)(\/(0x[0-9a-f]+|\d+))?$/i.test(s)) {
    const [v, mk] = s.split('/');
    const value = p.int(v!, 'ct_state');
    const mask = mk === undefined ? 0xff : p.int(mk, 'ct_state');
    for (const k of CT_STATE_ORDER) if (mask & CT_STATE_BITS[k]) out[k] = (value & CT_STATE_BITS[k]) !== 0;
    return out;
  }
  // `a|b` form: exactly these flags set, every other known flag clear.
  const set = new Set(s.split('|'));
  for (const k of CT_STATE_ORDER) out[k] = set.has(k);
  for (const k of set) if (!(k in CT_STATE_BITS)) p.fail(`unknown ct_state flag "${k}"`, s);
  return out;
}

function parseTcpFlags(p: TextParser, s: string): Masked<number> {
  const bit = (name: string): number => {
    const i = TCP_FLAG_NAMES.indexOf(name);
    if (i >= 0) return 1 << i;
    const m = /^\[([0-9a-f]+)\]$/i.exec(name);
    if (m) return parseInt(m[1]!, 16);
    return p.fail(`unknown tcp flag "${name}"`, s);
  };
  if (/^[+-]/.test(s)) {
    let value = 0;
    let mask = 0;
    const re = /([+-])([a-z]+|\[[0-9a-f]+\])/gi;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s))) {
      const b = bit(m[2]!);
      mask |= b;
      if (m[1] === '+') value |= b;
    }
    return mask === 0xfff ? value : { value, mask };
  }
  if (/^(0x[0-9a-f]+|\d+)(\/(0x[0-9a-f]+|\d+))?$/i.test(s)) {
    return canonicalMasked(FIELD_BY_NAME.get('tcpFlags')!, p.int(s.split('/')[0]!, 'tcp_flags'), s.includes('/') ? p.int(s.split('/')[1]!, 'tcp_flags') : 0xfff) as Masked<number>;
  }
  let value = 0;
  for (const n of s.split('|')) value |= bit(n);
  return value;
}

/** Parse `set_field`/`load` values into a SetFieldAction. */
function parseLoad(p: TextParser, valueText: string, dst: string, isLoad: boolean): SetFieldAction {
  if (isLoad) {
    const ref = p.subfield(dst);
    const f = FIELD_BY_NAME.get(ref.field)!;
    const v = p.big(valueText, 'load value');
    const ofs = ref.start ?? 0;
    const nBits = ref.end !== undefined ? ref.end - ofs + 1 : f.bits;
    const mask = ((1n << BigInt(nBits)) - 1n) << BigInt(ofs);
    const value = bytesToValue(f, bigToBytes((v << BigInt(ofs)) & mask, f.bytes));
    const full = (1n << BigInt(f.bits)) - 1n;
    if (mask === full) return { type: 'setField', field: f.name, value } as SetFieldAction;
    return { type: 'setField', field: f.name, value: { value, mask: bytesToValue(f, bigToBytes(mask, f.bytes)) } } as SetFieldAction;
  }
  const f = FIELD_BY_SYM.get(dst.toLowerCase()) ?? FIELD_BY_SYM.get(dst === 'in_port_oxm' ? 'in_port' : dst);
  if (!f || f.name === 'ctState') p.fail(`unknown set_field destination "${dst}"`, dst);
  return { type: 'setField', field: f.name, value: p.masked(f, valueText) } as SetFieldAction;
}

function parseNat(p: TextParser, inner: string | undefined): NatSpec {
  const nat: NatSpec = {};
  if (inner === undefined) return nat;
  for (const part of splitTop(inner, ',')) {
    if (part === 'persistent') nat.persistent = true;
    else if (part === 'hash') nat.hash = true;
    else if (part === 'random') nat.random = true;
    else if (part === 'src' || part === 'dst') nat.kind = part;
    else if (part.startsWith('src=') || part.startsWith('dst=')) {
      nat.kind = part.slice(0, 3) as 'src' | 'dst';
      let rest = part.slice(4);
      let ports: string | undefined;
      const br = /^\[([^\]]+)\](?:-\[([^\]]+)\])?(?::(.*))?$/.exec(rest);
      let ipMin: string;
      let ipMax: string | undefined;
      if (br) {
        ipMin = br[1]!;
        ipMax = br[2];
        ports = br[3];
      } else if (rest.includes('.') || !rest.includes('::')) {
        const c = rest.indexOf(':');
        if (c >= 0 && rest.includes('.')) {
          ports = rest.slice(c + 1);
          rest = rest.slice(0, c);
        }
        [ipMin, ipMax] = rest.split('-') as [string, string | undefined];
      } else {
        [ipMin, ipMax] = rest.split('-') as [string, string | undefined];
      }
      const norm = (a: string): string => (a.includes(':') ? formatIpv6(parseIpv6(a) ?? p.fail(`bad address ${a}`, a)) : a);
      nat.ipMin = norm(ipMin);
      if (ipMax !== undefined) nat.ipMax = norm(ipMax);
      if (ports !== undefined) {
        const [a, b] = ports.split('-');
        nat.portMin = p.int(a!, 'port');
        if (b !== undefined) nat.portMax = p.int(b, 'port');
      }
    } else p.fail(`bad nat argument "${part}"`, part);
  }
  return nat;
}

function parseLearn(p: TextParser, inner: string): LearnAction {
  const a: LearnAction = { type: 'learn', table: 1, specs: [] };
  for (const part of splitTop(inner, ',')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const val = eq < 0 ? '' : part.slice(eq + 1);
    if (key === 'table') a.table = p.int(val, 'table');
    else if (key === 'idle_timeout') a.idleTimeout = p.int(val, 'idle_timeout');
    else if (key === 'hard_timeout') a.hardTimeout = p.int(val, 'hard_timeout');
    else if (key === 'fin_idle_timeout') a.finIdleTimeout = p.int(val, 'fin_idle_timeout');
    else if (key === 'fin_hard_timeout') a.finHardTimeout = p.int(val, 'fin_hard_timeout');
    else if (key === 'priority') a.priority = p.int(val, 'priority');
    else if (key === 'cookie') a.cookie = p.big(val, 'cookie');
    else if (part === 'delete_learned') a.deleteLearned = true;
    else if (part.startsWith('output:')) a.specs.push({ kind: 'output', src: p.subfield(part.slice(7)) });
    else if (part.startsWith('load:')) {
      const [src, dstText] = part.slice(5).split('->') as [string, string];
      const dst = p.subfield(dstText);
      a.specs.push({ kind: 'load', dst, src: learnSrc(p, src, dst) });
    } else if (eq < 0) {
      const ref = p.subfield(part);
      a.specs.push({ kind: 'match', dst: ref, src: ref });
    } else if (key.includes('[')) {
      const dst = p.subfield(key);
      a.specs.push({ kind: 'match', dst, src: learnSrc(p, val, dst) });
    } else {
      const f = FIELD_BY_SYM.get(key) ?? FIELDS.find((x) => x.text === key);
      if (!f) p.fail(`unknown learn field "${key}"`, part);
      a.specs.push({ kind: 'match', dst: { field: f.name as ValueFieldName }, src: { value: p.value(f, val) } });
    }
  }
  return a;
}

function learnSrc(p: TextParser, s: string, dst: FieldRef): LearnSpec['kind'] extends string ? FieldRef | { value: number | bigint | string } : never {
  if (s.includes('[')) return p.subfield(s);
  const f = FIELD_BY_NAME.get(dst.field)!;
  const shifted = p.big(s, 'immediate') << BigInt(dst.start ?? 0);
  return { value: bytesToValue(f, bigToBytes(shifted, f.bytes)) };
}

function parseController(p: TextParser, inner: string | undefined): Action {
  const a: Extract<Action, { type: 'controller' }> = { type: 'controller' };
  for (const part of inner ? splitTop(inner, ',') : []) {
    const [k, v] = part.split('=') as [string, string | undefined];
    if (k === 'reason') {
      if (!REASONS.includes(v as PacketInReason)) p.fail(`bad reason "${v}"`, part);
      if (v !== 'action') a.reason = v as PacketInReason;
    } else if (k === 'max_len') a.maxLen = p.int(v ?? '', 'max_len');
    else if (k === 'id') a.id = p.int(v ?? '', 'id');
    else if (k === 'userdata') a.userdata = fromHex(v ?? '');
    else if (k === 'pause') a.pause = true;
    else if (k === 'meter_id') a.meterId = p.int(v ?? '', 'meter_id');
    else p.fail(`bad controller argument "${part}"`, part);
  }
  return a;
}

function parseCt(p: TextParser, inner: string): CtAction {
  const a: CtAction = { type: 'ct' };
  for (const part of splitTop(inner, ',')) {
    if (part === 'commit') a.commit = true;
    else if (part === 'force') a.force = true;
    else if (part.startsWith('table=')) a.table = p.int(part.slice(6), 'table');
    else if (part.startsWith('zone=')) {
      const z = part.slice(5);
      a.zone = z.includes('[') ? p.subfield(z) : p.int(z, 'zone');
    } else if (part.startsWith('alg=')) {
      const alg = part.slice(4);
      a.alg = alg === 'ftp' || alg === 'tftp' ? alg : p.int(alg, 'alg');
    } else if (part === 'nat' || part.startsWith('nat(')) a.nat = parseNat(p, part === 'nat' ? undefined : part.slice(4, -1));
    else if (part.startsWith('exec(')) a.exec = parseActionList(p, part.slice(5, -1));
    else p.fail(`bad ct argument "${part}"`, part);
  }
  return a;
}

function parseAction(p: TextParser, t: string): Action {
  const open = t.indexOf('(');
  const colon = t.indexOf(':');
  // name(args) when the name comes first (before any ':') and the term ends with ')'.
  const paren = open > 0 && (colon < 0 || open < colon) && t.charCodeAt(t.length - 1) === 41;
  const rawName = paren ? t.slice(0, open) : colon >= 0 ? t.slice(0, colon) : t;
  const name = /[A-Z]/.test(rawName) ? rawName.toLowerCase() : rawName;
  const arg = paren ? t.slice(open + 1, -1) : colon >= 0 ? t.slice(colon + 1) : undefined;
  switch (name) {
    case 'output':
      if (arg === undefined) return p.fail('output needs a port', t);
      if (arg.includes('[')) return { type: 'output', port: p.subfield(arg) };
      return outputTo(p.port(arg));
    case 'in_port':
    case 'local':
    case 'normal':
    case 'flood':
    case 'all':
    case 'table':
      return outputTo(p.port(name));
    case 'controller':
      if (paren) return parseController(p, arg);
      if (arg !== undefined) return { type: 'output', port: 'CONTROLLER', maxLen: p.int(arg, 'max_len') };
      return { type: 'output', port: 'CONTROLLER', maxLen: 65535 };
    case 'set_field':
    case 'load': {
      const i = arg?.lastIndexOf('->') ?? -1;
      if (arg === undefined || i < 0) return p.fail(`${name} needs value->field`, t);
      return parseLoad(p, arg.slice(0, i), arg.slice(i + 2), name === 'load');
    }
    case 'move': {
      const i = arg?.indexOf('->') ?? -1;
      if (arg === undefined || i < 0) return p.fail('move needs src->dst', t);
      return { type: 'copyField', src: p.subfield(arg.slice(0, i)), dst: p.subfield(arg.slice(i + 2)) };
    }
    case 'resubmit': {
      if (!paren) return { type: 'resubmit', port: portOrInPort(p.port(arg ?? '')) };
      const [portText, tableText, ct] = (arg ?? '').split(',').map((x) => x.trim());
      const a: Action = { type: 'resubmit' };
      if (portText) a.port = portOrInPort(p.port(portText));
      if (tableText) a.table = p.table(tableText);
      if (ct === 'ct') a.ct = true;
      return a;
    }
    case 'conjunction': {
      const m = /^\s*(\d+)\s*,\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(arg ?? '');
      if (!m) return p.fail('bad conjunction', t);
      return { type: 'conjunction', id: Number(m[1]), clause: Number(m[2]), nClauses: Number(m[3]) };
    }
    case 'ct':
      return parseCt(p, arg ?? '');
    case 'ct_clear':
      return { type: 'ctClear' };
    case 'learn':
      return parseLearn(p, arg ?? '');
    case 'note':
      return { type: 'note', data: fromHex(arg ?? '') };
    case 'dec_ttl':
      return { type: 'decTtl' };
    case 'group':
      return { type: 'group', id: p.int(arg ?? '', 'group') };
    case 'meter':
      return { type: 'meter', id: p.int(arg ?? '', 'meter') };
    case 'push_vlan':
      return { type: 'pushVlan', ethType: p.int(arg ?? '', 'ethertype') };
    case 'pop_vlan':
    case 'strip_vlan':
      return { type: 'popVlan' };
    case 'goto_table':
      return { type: 'gotoTable', table: p.table(arg ?? '') };
    case 'write_actions':
      return { type: 'writeActions', actions: parseActionList(p, arg ?? '') };
    case 'clear_actions':
      return { type: 'clearActions' };
    default:
      if (/^\d+$/.test(t)) return outputTo(Number(t));
      return p.fail(`unknown action "${name}"`, t);
  }
}

function portOrInPort(n: number): number | 'IN_PORT' {
  return n === 0xfffffff8 ? 'IN_PORT' : n;
}
function outputTo(port: number): Action {
  const p = portFromNumber(port);
  return p === 'CONTROLLER' ? { type: 'output', port: p, maxLen: 65535 } : { type: 'output', port: p };
}

function parseActionList(p: TextParser, s: string): Action[] {
  if (s.trim() === 'drop' || s.trim() === '') return [];
  return splitTop(s, ',').map((t) => parseAction(p, t));
}

/** Parse an action list in ovs-ofctl syntax. */
export function parseActions(text: string, opts: ParseOptions = {}): Action[] {
  return parseActionList(new TextParser(text, opts), text);
}

/** Parse a match in ovs-ofctl syntax (`tcp,nw_src=10.0.0.0/24,tp_dst=80`). */
export function parseMatch(text: string, opts: ParseOptions = {}): Match {
  const p = new TextParser(text, opts);
  const match: Match = {};
  parseMatchTerms(p, splitTop(text, ', '), match);
  return match;
}

/**
 * Parse one flow: an `ovs-ofctl dump-flows` line (with cookie, duration, table, n_packets,
 * n_bytes, ages, priority) or an add-flow line. Stats fields fill `flow.stats`.
 */
export function parseFlow(line: string, opts: ParseOptions = {}): Flow {
  const p = new TextParser(line, opts);
  const idx = findActions(line);
  if (idx < 0) p.fail('no actions=', line);
  const actionsText = line.slice(idx + 'actions='.length).trim();
  const flow: Flow = { table: 0, priority: 0x8000, match: {}, actions: [] };
  const acc: HeadAcc = { flags: [] };
  let matchTerms: string[];
  // Fast path for the fixed prefix every dump-flows line has; anything else takes the generic path.
  const m = DUMP_PREFIX.exec(line);
  if (m && m.index + m[0].length <= idx) {
    headTerm(p, flow, acc, 'cookie', m[1]!);
    acc.duration = Number(m[2]);
    flow.table = p.int(m[3]!, 'table');
    acc.packets = p.big(m[4]!, 'n_packets');
    acc.bytes = p.big(m[5]!, 'n_bytes');
    const extra = m[6]!;
    const rest: string[] = [];
    if (extra !== '') for (const t of splitTop(extra, ', ')) headToken(p, flow, acc, t, rest);
    flow.priority = p.int(m[7]!, 'priority');
    matchTerms = splitTop(line.slice(m.index + m[0].length, idx), ',');
    if (rest.length) matchTerms.push(...rest);
  } else {
    matchTerms = [];
    for (const raw of splitTop(line.slice(0, idx), ', ')) headToken(p, flow, acc, raw, matchTerms);
  }
  parseMatchTerms(p, matchTerms, flow.match);
  flow.actions = parseActionList(p, actionsText);
  if (acc.flags.length) flow.flags = acc.flags;
  if (acc.duration !== undefined || acc.packets !== undefined || acc.bytes !== undefined || acc.idleAge !== undefined) {
    const st: Flow['stats'] = { duration: acc.duration ?? 0, packets: acc.packets ?? 0n, bytes: acc.bytes ?? 0n };
    if (acc.idleAge !== undefined) st.idleAge = acc.idleAge;
    if (acc.hardAge !== undefined) st.hardAge = acc.hardAge;
    flow.stats = st;
  }
  return flow;
}

/** ` cookie=0x5, duration=1.2s, table=3, n_packets=0, n_bytes=0, <extras>priority=100,` */
const DUMP_PREFIX = /^\s*cookie=(0x[0-9a-fA-F]+), duration=([0-9.]+)s, table=(\d+), n_packets=(\d+), n_bytes=(\d+), ([^]*?)priority=(\d+),?/;

interface HeadAcc {
  flags: FlowFlag[];
  duration?: number;
  packets?: bigint;
  bytes?: bigint;
  idleAge?: number;
  hardAge?: number;
}

/** One term before `actions=`: a flow attribute or stat, else pushed to `matchTerms`. */
function headToken(p: TextParser, flow: Flow, acc: HeadAcc, raw: string, matchTerms: string[]): void {
  const t = raw.indexOf('=') < 0 && raw.indexOf(':') > 0 ? ofpPrintTerm(raw) : raw;
  const eq = t.indexOf('=');
  const key = eq < 0 ? t : t.slice(0, eq);
  const val = eq < 0 ? '' : t.slice(eq + 1);
  if (!headTerm(p, flow, acc, key, val)) matchTerms.push(t);
}

function headTerm(p: TextParser, flow: Flow, acc: HeadAcc, key: string, val: string): boolean {
  switch (key) {
    case 'cookie': {
      const slash = val.indexOf('/');
      const c = slash < 0 ? val : val.slice(0, slash);
      // cookie 0 is the same as no cookie (dump-flows always prints one).
      const cookie = p.big(c, 'cookie');
      if (cookie !== 0n) flow.cookie = cookie;
      if (slash >= 0) flow.cookieMask = p.big(val.slice(slash + 1), 'cookie mask');
      return true;
    }
    case 'table':
      flow.table = p.table(val);
      return true;
    case 'priority':
      flow.priority = p.int(val, 'priority');
      return true;
    case 'idle_timeout':
      flow.idleTimeout = p.int(val, 'idle_timeout');
      return true;
    case 'hard_timeout':
      flow.hardTimeout = p.int(val, 'hard_timeout');
      return true;
    case 'importance':
      flow.importance = p.int(val, 'importance');
      return true;
    case 'duration':
      acc.duration = Number(val.endsWith('s') ? val.slice(0, -1) : val);
      return true;
    case 'n_packets':
      acc.packets = p.big(val, 'n_packets');
      return true;
    case 'n_bytes':
      acc.bytes = p.big(val, 'n_bytes');
      return true;
    case 'idle_age':
      acc.idleAge = p.int(val, 'idle_age');
      return true;
    case 'hard_age':
      acc.hardAge = p.int(val, 'hard_age');
      return true;
    case 'send_flow_rem':
    case 'check_overlap':
    case 'reset_counts':
    case 'no_packet_counts':
    case 'no_byte_counts':
      acc.flags.push(key);
      return true;
    default:
      return false;
  }
}

/** ofp-print writes `table:3`, `cookie:0x5`, `idle:10`, `hard:20`, `importance:2`. */
function ofpPrintTerm(t: string): string {
  const c = t.indexOf(':');
  const k = t.slice(0, c);
  const v = t.slice(c + 1);
  if (k === 'idle') return `idle_timeout=${v}`;
  if (k === 'hard') return `hard_timeout=${v}`;
  if (k === 'table' || k === 'cookie' || k === 'importance') return `${k}=${v}`;
  return t;
}

function findActions(line: string): number {
  let i = line.indexOf('actions=');
  while (i > 0) {
    const c = line.charCodeAt(i - 1);
    if (c === 32 || c === 44 || c === 9) return i;
    i = line.indexOf('actions=', i + 1);
  }
  return i;
}

/**
 * Parse the output of `ovs-ofctl dump-flows`: one flow per line; header lines
 * (`OFPST_FLOW reply ...`, `NXST_FLOW reply`) and blank lines are skipped.
 */
export function parseDumpFlows(text: string, opts: ParseOptions = {}): Flow[] {
  const out: Flow[] = [];
  for (const line of text.split('\n')) {
    if (line.indexOf('actions=') < 0) continue;
    const l = line.trim();
    if (l.startsWith('OFPST_FLOW reply') || l.startsWith('NXST_FLOW reply')) continue;
    out.push(parseFlow(l, opts));
  }
  return out;
}

export { toHex };
