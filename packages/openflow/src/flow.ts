/** The Flow model: the one representation of a flow shared by the codec, the text format and the pipeline. */

/**
 * A value with an optional bit mask. A plain value matches exactly; `{ value, mask }` matches the
 * bits set in `mask`. Canonical form (what decoders and parsers return): an all-ones mask is
 * written as the plain value, and value bits outside the mask are zero (OVS stores it that way).
 */
export type Masked<T> = T | { value: T; mask: T };

/** Connection-tracking state flags, as in `ct_state=+trk+new-est`. */
export type CtStateFlag = 'new' | 'est' | 'rel' | 'rpl' | 'inv' | 'trk' | 'snat' | 'dnat';

/**
 * ct_state match: each named flag is required set (`true`, `+flag`) or clear (`false`, `-flag`);
 * flags not named are wildcarded.
 */
export type CtState = Partial<Record<CtStateFlag, boolean>>;

/**
 * The match of a flow: named fields, all optional (absent = wildcard). Addresses are strings
 * (MAC `aa:bb:cc:dd:ee:ff` lower case, IPv4 dotted quad, IPv6 in RFC 5952 compressed form),
 * fields up to 32 bits are numbers, 64- and 128-bit fields are bigints.
 *
 * Prerequisites are the caller's business, as with ovs-ofctl: a match on `ipv4Src` needs
 * `ethType: 0x0800`, `tcpDst` needs `ipProto: 6`, and so on.
 */
export interface Match {
  /** Ingress OpenFlow port number (see {@link OFPP} for reserved ports). */
  inPort?: number;
  ethSrc?: Masked<string>;
  ethDst?: Masked<string>;
  ethType?: number;
  /** OXM VLAN_VID: the 12-bit VID ORed with OFPVID_PRESENT (0x1000); 0 = no VLAN header. */
  vlanVid?: Masked<number>;
  arpOp?: number;
  arpSpa?: Masked<string>;
  arpTpa?: Masked<string>;
  arpSha?: Masked<string>;
  arpTha?: Masked<string>;
  ipv4Src?: Masked<string>;
  ipv4Dst?: Masked<string>;
  ipv6Src?: Masked<string>;
  ipv6Dst?: Masked<string>;
  ipProto?: number;
  /** DSCP, 0..63 (ovs-ofctl shows it as `nw_tos` = dscp << 2). */
  ipDscp?: number;
  ipEcn?: number;
  ipTtl?: number;
  tcpSrc?: Masked<number>;
  tcpDst?: Masked<number>;
  udpSrc?: Masked<number>;
  udpDst?: Masked<number>;
  sctpSrc?: Masked<number>;
  sctpDst?: Masked<number>;
  /** TCP flag bits (FIN=0x001 ... NS=0x100), with mask for `+syn-ack` style matches. */
  tcpFlags?: Masked<number>;
  icmpType?: number;
  icmpCode?: number;
  icmpv6Type?: number;
  icmpv6Code?: number;
  ndTarget?: Masked<string>;
  /** ND source link-layer address option of a Neighbor Solicitation (icmpv6Type 135); 00:00:00:00:00:00 when absent. */
  ndSll?: Masked<string>;
  /** ND target link-layer address option of a Neighbor Advertisement (icmpv6Type 136); 00:00:00:00:00:00 when absent. */
  ndTll?: Masked<string>;
  reg0?: Masked<number>;
  reg1?: Masked<number>;
  reg2?: Masked<number>;
  reg3?: Masked<number>;
  reg4?: Masked<number>;
  reg5?: Masked<number>;
  reg6?: Masked<number>;
  reg7?: Masked<number>;
  reg8?: Masked<number>;
  reg9?: Masked<number>;
  reg10?: Masked<number>;
  reg11?: Masked<number>;
  reg12?: Masked<number>;
  reg13?: Masked<number>;
  reg14?: Masked<number>;
  reg15?: Masked<number>;
  /** 128-bit registers; xxreg0 overlays reg0..reg3 (reg0 most significant). */
  xxreg0?: Masked<bigint>;
  xxreg1?: Masked<bigint>;
  xxreg2?: Masked<bigint>;
  xxreg3?: Masked<bigint>;
  tunId?: Masked<bigint>;
  tunIpv4Src?: Masked<string>;
  tunIpv4Dst?: Masked<string>;
  tunIpv6Src?: Masked<string>;
  tunIpv6Dst?: Masked<string>;
  ctState?: CtState;
  ctZone?: number;
  ctMark?: Masked<number>;
  ctLabel?: Masked<bigint>;
  ctNwSrc?: Masked<string>;
  ctNwDst?: Masked<string>;
  ctIpv6Src?: Masked<string>;
  ctIpv6Dst?: Masked<string>;
  ctTpSrc?: Masked<number>;
  ctTpDst?: Masked<number>;
  ctNwProto?: number;
  conjId?: number;
  pktMark?: Masked<number>;
  metadata?: Masked<bigint>;
}

/** Name of a match field; the same names are used by set_field, move and field references. */
export type FieldName = keyof Match;

/** Fields whose value is a plain (masked) value, i.e. every field but ct_state. */
export type ValueFieldName = Exclude<FieldName, 'ctState'>;

/** The value type of a field, without the mask wrapper. */
export type FieldValue<K extends ValueFieldName> = NonNullable<Match[K]> extends Masked<infer T> ? T : never;

/**
 * A bit range of a field, as in `NXM_NX_REG0[0..3]`. `start`/`end` are inclusive bit offsets
 * counted from the least significant bit; omitted = the whole field.
 */
export interface FieldRef {
  field: ValueFieldName;
  start?: number;
  end?: number;
}

/** Reserved OpenFlow port numbers (OF1.1+ 32-bit). */
export const OFPP = {
  MAX: 0xffffff00,
  UNSET: 0xfffffff7,
  IN_PORT: 0xfffffff8,
  TABLE: 0xfffffff9,
  NORMAL: 0xfffffffa,
  FLOOD: 0xfffffffb,
  ALL: 0xfffffffc,
  CONTROLLER: 0xfffffffd,
  LOCAL: 0xfffffffe,
  ANY: 0xffffffff,
} as const;

/** Reserved port names usable as an output target. */
export type ReservedPort = 'IN_PORT' | 'TABLE' | 'NORMAL' | 'FLOOD' | 'ALL' | 'CONTROLLER' | 'LOCAL';

/** Output to a port number, a reserved port, or the port number held in a field (NXAST_OUTPUT_REG2). */
export interface OutputAction {
  type: 'output';
  port: number | ReservedPort | FieldRef;
  /** Bytes to send to the controller (CONTROLLER) or the truncation for a field output; default 65535. */
  maxLen?: number;
}

/** set_field, also the masked form (OVS `load:`/reg_load2): writes `value` into the bits of `mask`. */
export type SetFieldAction = {
  [K in ValueFieldName]: { type: 'setField'; field: K; value: Masked<FieldValue<K>> };
}[ValueFieldName];

/** copy_field (NX move): copy `src` bits into `dst` bits of the same width. */
export interface CopyFieldAction {
  type: 'copyField';
  src: FieldRef;
  dst: FieldRef;
}

/** resubmit([port],[table]) and resubmit(...,ct): re-search a table as if the packet came in on `port`. */
export interface ResubmitAction {
  type: 'resubmit';
  /** Default: the packet's current in_port. */
  port?: number | 'IN_PORT';
  /** Default: the current table. */
  table?: number;
  /** Use the conntrack original-direction tuple (resubmit(,,ct)). */
  ct?: boolean;
}

/** conjunction(id, clause/nClauses); `clause` is 1-based here and in text, 0-based on the wire. */
export interface ConjunctionAction {
  type: 'conjunction';
  id: number;
  clause: number;
  nClauses: number;
}

/** NAT inside ct(). */
export interface NatSpec {
  /** Omitted: the "nat" form that only un-NATs established connections. */
  kind?: 'src' | 'dst';
  /** Address range (IPv4 or IPv6); `ipMax` omitted = single address. */
  ipMin?: string;
  ipMax?: string;
  portMin?: number;
  portMax?: number;
  persistent?: boolean;
  /** Port/address selection; `hash` and `random` are mutually exclusive. */
  hash?: boolean;
  random?: boolean;
}

/** ct(): send to the connection tracker. */
export interface CtAction {
  type: 'ct';
  commit?: boolean;
  force?: boolean;
  /** Zone, immediate or from a 16-bit field range. */
  zone?: number | FieldRef;
  /** Table to recirculate to after tracking. */
  table?: number;
  /** Application-layer gateway: `ftp` (21) or `tftp` (69), or a port number. */
  alg?: 'ftp' | 'tftp' | number;
  nat?: NatSpec;
  /** Actions applied to the connection entry: setField on ctMark/ctLabel, copyField into them. */
  exec?: Action[];
}

/** One spec of a learn() action. */
export type LearnSpec =
  /** The learned flow matches `dst` against `src` (a field of this packet or an immediate). */
  | { kind: 'match'; dst: FieldRef; src: FieldRef | { value: number | bigint | string } }
  /** The learned flow loads `src` into `dst`. */
  | { kind: 'load'; dst: FieldRef; src: FieldRef | { value: number | bigint | string } }
  /** The learned flow outputs to the port held in `src`. */
  | { kind: 'output'; src: FieldRef };

/** learn(): add a flow from the packet (the subset session affinity needs). */
export interface LearnAction {
  type: 'learn';
  table: number;
  priority?: number;
  idleTimeout?: number;
  hardTimeout?: number;
  finIdleTimeout?: number;
  finHardTimeout?: number;
  cookie?: bigint;
  /** Delete the learned flows when this flow is removed. */
  deleteLearned?: boolean;
  specs: LearnSpec[];
}

/** Packet-in reasons (OFPR_*). */
export type PacketInReason =
  | 'no_match'
  | 'action'
  | 'invalid_ttl'
  | 'action_set'
  | 'group'
  | 'packet_out';

/** controller(...) (NXAST_CONTROLLER2): send to the controller with userdata, optionally paused. */
export interface ControllerAction {
  type: 'controller';
  reason?: PacketInReason;
  /** Controller connection id (NXT_SET_CONTROLLER_ID). */
  id?: number;
  userdata?: Uint8Array;
  /** Pause the pipeline; the packet-in carries a continuation to resume it. */
  pause?: boolean;
  maxLen?: number;
  meterId?: number;
}

/** The action/instruction union. Instructions (gotoTable, writeActions, clearActions) sit in the
 * same list, in OVS order: apply actions, then clearActions, writeActions, gotoTable. */
export type Action =
  | OutputAction
  | SetFieldAction
  | CopyFieldAction
  | ResubmitAction
  | ConjunctionAction
  | CtAction
  | { type: 'ctClear' }
  | LearnAction
  | ControllerAction
  | { type: 'note'; data: Uint8Array }
  | { type: 'decTtl' }
  | { type: 'group'; id: number }
  | { type: 'meter'; id: number }
  | { type: 'pushVlan'; ethType?: number }
  | { type: 'popVlan' }
  | { type: 'gotoTable'; table: number }
  | { type: 'writeActions'; actions: Action[] }
  | { type: 'clearActions' };

/** The `type` tags of {@link Action}. */
export type ActionType = Action['type'];

/** Flow-mod flags (OFPFF_*). */
export type FlowFlag = 'send_flow_rem' | 'check_overlap' | 'reset_counts' | 'no_packet_counts' | 'no_byte_counts';

/** Counters of an installed flow (from flow stats or dump-flows). */
export interface FlowStats {
  /** Seconds since install, with sub-second precision. */
  duration: number;
  packets: bigint;
  bytes: bigint;
  idleAge?: number;
  hardAge?: number;
}

/** A flow: table, priority, match and actions, with the optional flow-mod attributes. */
export interface Flow {
  table: number;
  priority: number;
  cookie?: bigint;
  /** For modify/delete by cookie: which cookie bits must match. */
  cookieMask?: bigint;
  idleTimeout?: number;
  hardTimeout?: number;
  importance?: number;
  flags?: FlowFlag[];
  match: Match;
  /** Empty list = drop. */
  actions: Action[];
  /** Present on flows read back from a switch. */
  stats?: FlowStats;
}

/** Default priority of OpenFlow (OFP_DEFAULT_PRIORITY). */
export const DEFAULT_PRIORITY = 0x8000;
