/**
 * Registers, marks, ct_mark and ct_label layout, ct zones and well-known values: Antrea's layout
 * (pkg/agent/openflow/fields.go). Every bit range used by the pipeline is named here; feature
 * code never writes a raw `reg0[0..3]`.
 */
import type { Action, FieldRef, Match, Masked } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';

/** Register field names of the Flow model. */
export type RegName =
  | 'reg0' | 'reg1' | 'reg2' | 'reg3' | 'reg4' | 'reg5' | 'reg6' | 'reg7'
  | 'reg8' | 'reg9' | 'reg10' | 'reg11' | 'reg12' | 'reg13' | 'reg14' | 'reg15';

const bitsMask = (start: number, end: number): number => {
  const width = end - start + 1;
  return width >= 32 ? 0xffffffff : (((1 << width) >>> 0) - 1) * 2 ** start;
};

/** A named bit range of a 32-bit register. */
export class RegField {
  readonly reg: RegName;
  /** The bits of the field within the register (already shifted). */
  readonly mask: number;
  constructor(
    readonly name: string,
    regIndex: number,
    readonly start: number,
    readonly end: number,
  ) {
    if (regIndex < 0 || regIndex > 15 || start < 0 || end > 31 || start > end) {
      throw new PipelineError('FIELD_RANGE', `bad register range reg${regIndex}[${start}..${end}]`, { regIndex, start, end }, name);
    }
    this.reg = `reg${regIndex}` as RegName;
    this.mask = bitsMask(start, end) >>> 0;
  }
  get width(): number {
    return this.end - this.start + 1;
  }
  /** The field as a FieldRef for move/output/learn actions. */
  ref(): FieldRef {
    return this.width === 32 ? { field: this.reg } : { field: this.reg, start: this.start, end: this.end };
  }
  /** The register bits holding `value` in this field. */
  shift(value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > 2 ** this.width - 1) {
      throw new PipelineError('VALUE_OUT_OF_RANGE', `value ${value} does not fit ${this.width} bits`, value, this.name);
    }
    return (value * 2 ** this.start) >>> 0;
  }
  /** This field's value in a register's value (a packet-in's metadata carries the registers). */
  read(register: number | undefined): number {
    return register === undefined ? 0 : ((register >>> 0) & this.mask) / 2 ** this.start;
  }
  /** A mark of this field with the given value. */
  mark(value: number, name = `${this.name}=${value}`): RegMark {
    return new RegMark(name, this, value);
  }
}

/** A value of a register field (Antrea's RegMark). */
export class RegMark {
  constructor(
    readonly name: string,
    readonly field: RegField,
    readonly value: number,
  ) {
    field.shift(value);
  }
}

/** Builds the masked match (or set value) of several marks, merged per register. */
function mergeMarks(marks: readonly RegMark[]): Map<RegName, { value: number; mask: number }> {
  const out = new Map<RegName, { value: number; mask: number }>();
  for (const m of marks) {
    const cur = out.get(m.field.reg) ?? { value: 0, mask: 0 };
    cur.value = (cur.value | m.field.shift(m.value)) >>> 0;
    cur.mask = (cur.mask | m.field.mask) >>> 0;
    out.set(m.field.reg, cur);
  }
  return out;
}

const masked = (value: number, mask: number): Masked<number> => (mask === 0xffffffff ? value : { value, mask });

/** Match entries for marks (`reg0=0x202/0x20f`); marks on one register merge into one masked match. */
export function matchMarks(...marks: RegMark[]): Partial<Match> {
  const m: Partial<Record<RegName, Masked<number>>> = {};
  for (const [reg, v] of mergeMarks(marks)) m[reg] = masked(v.value, v.mask);
  return m as Partial<Match>;
}

/** Match a field against an exact value (`reg1=0x25`). */
export function matchField(field: RegField, value: number): Partial<Match> {
  return { [field.reg]: masked(field.shift(value), field.mask) } as Partial<Match>;
}

/** set_field actions loading marks, one per mark in order (Antrea loads them one by one). */
export function loadMarks(...marks: RegMark[]): Action[] {
  return marks.map((m) => loadField(m.field, m.value));
}

/** set_field action loading `value` into a register field. */
export function loadField(field: RegField, value: number): Action {
  return { type: 'setField', field: field.reg, value: masked(field.shift(value), field.mask) } as Action;
}

// Packet source / destination values (PktSourceField / PktDestinationField).
export const TUNNEL_VAL = 1;
export const GATEWAY_VAL = 2;
export const LOCAL_VAL = 3;
export const UPLINK_VAL = 4;
export const BRIDGE_VAL = 5;
export const TC_RETURN_VAL = 6;

// reg0
export const PktSourceField = new RegField('PktSourceField', 0, 0, 3);
export const FromTunnelRegMark = PktSourceField.mark(TUNNEL_VAL, 'FromTunnelRegMark');
export const FromGatewayRegMark = PktSourceField.mark(GATEWAY_VAL, 'FromGatewayRegMark');
export const FromPodRegMark = PktSourceField.mark(LOCAL_VAL, 'FromPodRegMark');
export const FromUplinkRegMark = PktSourceField.mark(UPLINK_VAL, 'FromUplinkRegMark');
export const FromBridgeRegMark = PktSourceField.mark(BRIDGE_VAL, 'FromBridgeRegMark');
export const FromTCReturnRegMark = PktSourceField.mark(TC_RETURN_VAL, 'FromTCReturnRegMark');
export const PktDestinationField = new RegField('PktDestinationField', 0, 4, 7);
export const ToTunnelRegMark = PktDestinationField.mark(TUNNEL_VAL, 'ToTunnelRegMark');
export const ToGatewayRegMark = PktDestinationField.mark(GATEWAY_VAL, 'ToGatewayRegMark');
export const ToLocalRegMark = PktDestinationField.mark(LOCAL_VAL, 'ToLocalRegMark');
export const ToUplinkRegMark = PktDestinationField.mark(UPLINK_VAL, 'ToUplinkRegMark');
const RewriteMACField = new RegField('RewriteMACField', 0, 9, 9);
export const RewriteMACRegMark = RewriteMACField.mark(1, 'RewriteMACRegMark');
export const NotRewriteMACRegMark = RewriteMACField.mark(0, 'NotRewriteMACRegMark');
export const APDenyRegMark = new RegField('APDenyField', 0, 10, 10).mark(1, 'APDenyRegMark');
export const APDispositionField = new RegField('APDispositionField', 0, 11, 12);
export const DISPOSITION_ALLOW = 0b00;
export const DISPOSITION_DROP = 0b01;
export const DISPOSITION_REJECT = 0b10;
export const DISPOSITION_PASS = 0b11;
export const DispositionAllowRegMark = APDispositionField.mark(DISPOSITION_ALLOW, 'DispositionAllowRegMark');
export const DispositionDropRegMark = APDispositionField.mark(DISPOSITION_DROP, 'DispositionDropRegMark');
export const DispositionRejectRegMark = APDispositionField.mark(DISPOSITION_REJECT, 'DispositionRejectRegMark');
export const DispositionPassRegMark = APDispositionField.mark(DISPOSITION_PASS, 'DispositionPassRegMark');
export const GeneratedRejectPacketOutRegMark = new RegField('GeneratedRejectPacketOutField', 0, 13, 13).mark(1, 'GeneratedRejectPacketOutRegMark');
export const SvcNoEpRegMark = new RegField('SvcNoEpField', 0, 14, 14).mark(1, 'SvcNoEpRegMark');
export const OutputRegField = new RegField('OutputRegField', 0, 21, 22);
export const OutputToOFPortRegMark = OutputRegField.mark(1, 'OutputToOFPortRegMark');
export const OutputToControllerRegMark = OutputRegField.mark(2, 'OutputToControllerRegMark');
/** Antrea declares reg0[25..32]; a register has 32 bits, so the usable range is 25..31 (mask 0xfe000000). */
export const PacketInOperationField = new RegField('PacketInOperationField', 0, 25, 31);
export const PACKETIN_NP_LOGGING_OPERATION = 0b1;
export const PACKETIN_NP_STORE_DENY_OPERATION = 0b10;
export const PACKETIN_NP_REJECT_OPERATION = 0b100;

// reg1..reg9
export const TargetOFPortField = new RegField('TargetOFPortField', 1, 0, 31);
export const SwapField = new RegField('SwapField', 2, 0, 31);
export const PacketInTableField = new RegField('PacketInTableField', 2, 0, 7);
export const EndpointIPField = new RegField('EndpointIPField', 3, 0, 31);
export const APConjIDField = new RegField('APConjIDField', 3, 0, 31);
export const EndpointPortField = new RegField('EndpointPortField', 4, 0, 15);
export const ServiceEPStateField = new RegField('ServiceEPStateField', 4, 16, 18);
export const EpToSelectRegMark = ServiceEPStateField.mark(0b001, 'EpToSelectRegMark');
export const EpSelectedRegMark = ServiceEPStateField.mark(0b010, 'EpSelectedRegMark');
export const EpToLearnRegMark = ServiceEPStateField.mark(0b011, 'EpToLearnRegMark');
export const EpUnionField = new RegField('EpUnionField', 4, 0, 18);
export const ToNodePortAddressRegMark = new RegField('ToNodePortAddressField', 4, 19, 19).mark(1, 'ToNodePortAddressRegMark');
const AntreaFlexibleIPAMField = new RegField('AntreaFlexibleIPAMField', 4, 20, 20);
export const AntreaFlexibleIPAMRegMark = AntreaFlexibleIPAMField.mark(1, 'AntreaFlexibleIPAMRegMark');
export const NotAntreaFlexibleIPAMRegMark = AntreaFlexibleIPAMField.mark(0, 'NotAntreaFlexibleIPAMRegMark');
export const ToExternalAddressRegMark = new RegField('ToExternalAddressField', 4, 21, 21).mark(1, 'ToExternalAddressRegMark');
/** reg4[22..23]: what TrafficControl does with the packet (Antrea's TrafficControlActionField). */
export const TrafficControlActionField = new RegField('TrafficControlActionField', 4, 22, 23);
export const TrafficControlMirrorRegMark = TrafficControlActionField.mark(0b01, 'TrafficControlMirrorRegMark');
export const TrafficControlRedirectRegMark = TrafficControlActionField.mark(0b10, 'TrafficControlRedirectRegMark');
export const RemoteEndpointRegMark = new RegField('RemoteEndpointField', 4, 26, 26).mark(1, 'RemoteEndpointRegMark');
export const FromExternalRegMark = new RegField('FromExternalField', 4, 27, 27).mark(1, 'FromExternalRegMark');
export const FromLocalRegMark = new RegField('FromLocalField', 4, 28, 28).mark(1, 'FromLocalRegMark');
export const TFEgressConjIDField = new RegField('TFEgressConjIDField', 5, 0, 31);
export const TFIngressConjIDField = new RegField('TFIngressConjIDField', 6, 0, 31);
export const ServiceGroupIDField = new RegField('ServiceGroupIDField', 7, 0, 31);
export const VLANIDField = new RegField('VLANIDField', 8, 0, 11);
export const CtZoneTypeField = new RegField('CtZoneTypeField', 8, 12, 15);
export const IPCtZoneTypeRegMark = CtZoneTypeField.mark(0b0001, 'IPCtZoneTypeRegMark');
export const CtZoneField = new RegField('CtZoneField', 8, 0, 15);
export const TrafficControlTargetOFPortField = new RegField('TrafficControlTargetOFPortField', 9, 0, 31);
/**
 * The Egress a packet leaves by, on the node owning its IP (1..255). Antrea carries it in pkt_mark
 * (SNATIPMarkField) for the host's iptables SNAT; here OVS SNATs itself, so a register is enough.
 */
export const EgressMarkField = new RegField('EgressMarkField', 10, 0, 7);

/** A whole 128-bit register (xxreg0..xxreg3, each over four 32-bit ones: xxreg3 is reg12..reg15). */
export class Xxreg128Field {
  readonly reg: 'xxreg0' | 'xxreg1' | 'xxreg2' | 'xxreg3';
  constructor(
    readonly name: string,
    index: 0 | 1 | 2 | 3,
  ) {
    this.reg = `xxreg${index}`;
  }
  ref(): FieldRef {
    return { field: this.reg };
  }
  /**
   * Match the register against `value` exactly, in the codec's canonical form: the four 32-bit
   * registers it overlays, most significant first (what the switch reports back for an xxreg match).
   */
  match(value: bigint): Partial<Match> {
    const first = Number(this.reg.slice(5)) * 4;
    const out: Record<string, number> = {};
    for (let i = 0; i < 4; i++) out[`reg${first + i}`] = Number((value >> BigInt(96 - 32 * i)) & 0xffffffffn);
    return out as Partial<Match>;
  }
  /** set_field action loading `value`. */
  load(value: bigint): Action {
    return { type: 'setField', field: this.reg, value } as Action;
  }
}

/** The endpoint an IPv6 Service connection was sent to (Antrea's EndpointIP6Field, NXM_NX_XXREG3). */
export const EndpointIP6Field = new Xxreg128Field('EndpointIP6Field', 3);

/** A named bit range of ct_mark (32 bits). */
export class CtMarkField {
  readonly mask: number;
  constructor(
    readonly name: string,
    readonly start: number,
    readonly end: number,
  ) {
    this.mask = bitsMask(start, end) >>> 0;
  }
  ref(): FieldRef {
    return { field: 'ctMark', start: this.start, end: this.end };
  }
  mark(value: number, name: string): CtMark {
    return new CtMark(name, this, value);
  }
}

/** A value of a ct_mark field. */
export class CtMark {
  constructor(
    readonly name: string,
    readonly field: CtMarkField,
    readonly value: number,
  ) {}
  get bits(): number {
    return (this.value * 2 ** this.field.start) >>> 0;
  }
}

/** ct_mark match for marks (merged into one masked value). */
export function matchCtMarks(...marks: CtMark[]): Partial<Match> {
  let value = 0;
  let mask = 0;
  for (const m of marks) {
    value = (value | m.bits) >>> 0;
    mask = (mask | m.field.mask) >>> 0;
  }
  return { ctMark: masked(value, mask) };
}

/** set_field on ct_mark, for ct(exec(...)). */
export function loadCtMark(m: CtMark): Action {
  return { type: 'setField', field: 'ctMark', value: masked(m.bits, m.field.mask) };
}

export const ConnSourceCTMarkField = new CtMarkField('ConnSourceCTMarkField', 0, 3);
export const FromTunnelCTMark = ConnSourceCTMarkField.mark(TUNNEL_VAL, 'FromTunnelCTMark');
export const FromGatewayCTMark = ConnSourceCTMarkField.mark(GATEWAY_VAL, 'FromGatewayCTMark');
export const FromBridgeCTMark = ConnSourceCTMarkField.mark(BRIDGE_VAL, 'FromBridgeCTMark');
const ServiceCTMarkField = new CtMarkField('ServiceCTMarkField', 4, 4);
export const ServiceCTMark = ServiceCTMarkField.mark(1, 'ServiceCTMark');
export const NotServiceCTMark = ServiceCTMarkField.mark(0, 'NotServiceCTMark');
const ConnSNATCTMarkField = new CtMarkField('ConnSNATCTMarkField', 5, 5);
export const ConnSNATCTMark = ConnSNATCTMarkField.mark(1, 'ConnSNATCTMark');
export const NotConnSNATCTMark = ConnSNATCTMarkField.mark(0, 'NotConnSNATCTMark');
export const HairpinCTMark = new CtMarkField('HairpinCTMarkField', 6, 6).mark(1, 'HairpinCTMark');
export const L7NPRedirectCTMark = new CtMarkField('L7NPRedirectCTMarkField', 7, 7).mark(1, 'L7NPRedirectCTMark');

/** A named bit range of the 128-bit ct_label. */
export class CtLabelField {
  readonly mask: bigint;
  private readonly shift: bigint;
  constructor(
    readonly name: string,
    readonly start: number,
    readonly end: number,
  ) {
    this.shift = BigInt(start);
    this.mask = ((1n << BigInt(end - start + 1)) - 1n) << this.shift;
  }
  /** Match the field against a value. */
  match(value: number | bigint): Partial<Match> {
    return { ctLabel: { value: BigInt(value) << this.shift, mask: this.mask } };
  }
  /** The bit range as a FieldRef, for a copy_field into it in ct(exec(...)). */
  ref(): FieldRef {
    return { field: 'ctLabel', start: this.start, end: this.end };
  }
  /** set_field on ct_label, for ct(exec(...)). */
  load(value: number | bigint): Action {
    return { type: 'setField', field: 'ctLabel', value: { value: BigInt(value) << this.shift, mask: this.mask } };
  }
}

export const IngressRuleCTLabel = new CtLabelField('IngressRuleCTLabel', 0, 31);
export const EgressRuleCTLabel = new CtLabelField('EgressRuleCTLabel', 32, 63);
export const L7NPRuleVlanIDCTLabel = new CtLabelField('L7NPRuleVlanIDCTLabel', 64, 75);
/**
 * The Service group id EndpointDNAT chose for the connection (a copy of ServiceGroupIDField at
 * commit). A later packet of a connection not yet established (a retransmitted SYN) is already
 * NATed by ct(nat), skips ServiceLB and so leaves the register empty: toServices rules match this
 * label too. Switchyard's own: Antrea keeps no such label.
 */
export const ServiceGroupIDCTLabel = new CtLabelField('ServiceGroupIDCTLabel', 96, 127);

/** Conntrack zones (Antrea's CtZone, SNATCtZone and their IPv6 twins). */
export const CT_ZONE = 0xfff0;
export const SNAT_CT_ZONE = 0xfff1;
export const CT_ZONE_V6 = 0xffe6;
export const SNAT_CT_ZONE_V6 = 0xffe7;

/** The MAC every tunnelled or routed packet is addressed to. */
export const GLOBAL_VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';

/** Ethernet types and IP protocol numbers used in matches. */
export const ETH_IP = 0x0800;
export const ETH_IPV6 = 0x86dd;
export const ETH_ARP = 0x0806;
export const PROTO_ICMP = 1;
export const PROTO_TCP = 6;
export const PROTO_UDP = 17;
export const PROTO_SCTP = 132;
export const PROTO_ICMPV6 = 58;
export const PROTO_IGMP = 2;

/** OpenFlow priorities shared by features (pipeline.go). */
export const PRIORITY = {
  high: 210,
  normal: 200,
  low: 190,
  miss: 0,
  topAntreaPolicy: 64990,
  dnsIntercept: 64991,
} as const;

/** Packet-in categories: the first userdata byte of controller() actions (Antrea's PacketInCategory*). */
export const PACKETIN_CATEGORY = { TF: 0, NP: 1, DNS: 2, IGMP: 3, SvcReject: 4 } as const;

/** Meter ids Antrea rate-limits packet-ins with. */
export const PACKETIN_METER_ID_NP = 256;
export const PACKETIN_METER_ID_TF = 257;
export const PACKETIN_METER_ID_DNS = 258;

/** The controller connection id Antrea's agent uses for packet-ins. */
export const CONTROLLER_ID = 62373;

/** Every register field and mark, for docs and introspection. */
export const REG_FIELDS: readonly RegField[] = [
  PktSourceField, PktDestinationField, APDispositionField, OutputRegField, PacketInOperationField,
  TargetOFPortField, SwapField, PacketInTableField, EndpointIPField, APConjIDField, EndpointPortField,
  ServiceEPStateField, EpUnionField, TFEgressConjIDField, TFIngressConjIDField, ServiceGroupIDField,
  VLANIDField, CtZoneTypeField, CtZoneField, TrafficControlTargetOFPortField, TrafficControlActionField,
];
export const REG_MARKS: readonly RegMark[] = [
  FromTunnelRegMark, FromGatewayRegMark, FromPodRegMark, FromUplinkRegMark, FromBridgeRegMark,
  ToTunnelRegMark, ToGatewayRegMark, ToLocalRegMark, ToUplinkRegMark, RewriteMACRegMark, NotRewriteMACRegMark,
  APDenyRegMark, DispositionAllowRegMark, DispositionDropRegMark, DispositionRejectRegMark, DispositionPassRegMark,
  GeneratedRejectPacketOutRegMark, SvcNoEpRegMark, OutputToOFPortRegMark, OutputToControllerRegMark,
  EpToSelectRegMark, EpSelectedRegMark, EpToLearnRegMark, ToNodePortAddressRegMark, AntreaFlexibleIPAMRegMark,
  NotAntreaFlexibleIPAMRegMark, ToExternalAddressRegMark, RemoteEndpointRegMark, FromExternalRegMark,
  FromLocalRegMark, IPCtZoneTypeRegMark, FromTCReturnRegMark, TrafficControlMirrorRegMark, TrafficControlRedirectRegMark,
];

/**
 * A named field of the packet's own headers rather than a register: it travels with the packet,
 * through tunnels to the next node. The match carries the IP prerequisite.
 */
export class IpHeaderField {
  constructor(
    readonly name: string,
    readonly field: 'ipDscp',
    readonly width: number,
  ) {}
  /** Checks that `value` fits the field. */
  check(value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > 2 ** this.width - 1) {
      throw new PipelineError('VALUE_OUT_OF_RANGE', `value ${value} does not fit ${this.width} bits`, value, this.name);
    }
    return value;
  }
  /** Match entries for `value` (with `dl_type=0x800`, or `0x86dd` for an IPv6 packet's traffic class). */
  match(value: number, ethType: typeof ETH_IP | typeof ETH_IPV6 = ETH_IP): Partial<Match> {
    return { ethType, [this.field]: this.check(value) };
  }
  /** set_field action writing `value` (the packet-out that injects a traced packet uses it). */
  load(value: number): Action {
    return { type: 'setField', field: this.field, value: this.check(value) } as Action;
  }
}

/**
 * Traceflow's data-plane tag: the DSCP bits of the traced packet's IP header (bits 2..7 of the
 * ToS byte, `nw_tos` = tag << 2), set by the packet-out that injects it, as in Antrea.
 */
export const TraceflowTagField = new IpHeaderField('TraceflowTagField', 'ipDscp', 6);

/** The tags the controller hands out to concurrent Traceflows (@switchyard/apis' list, re-exported). */
export { TRACEFLOW_TAGS } from '@switchyard/apis/types';
