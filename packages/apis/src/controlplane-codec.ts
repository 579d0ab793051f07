/**
 * Conversion between the TS controlplane model (controlplane.ts) and the generated protobuf
 * messages (gen/controlplane.js), plus encode/decode to bytes. Decoding validates everything the
 * TS types promise (enums set, IPs of 4/16 bytes, required sub-messages present), so garbage
 * input fails with a ControlplaneCodecError instead of yielding a half-filled object.
 */
import { switchyard } from './gen/controlplane';
import type * as cp from './controlplane';
import { ControlplaneCodecError } from './errors';
import { bytesToIp, ipToBytes } from './ip';

const pb = switchyard.controlplane.v1;
/** Instance type of a generated message class. */
type P<T extends keyof typeof pb> = (typeof pb)[T] extends abstract new (...args: never[]) => infer I ? I : never;

/** A two-way string-union <-> enum-number table; index 0 is the "unspecified" value. */
class EnumMap<S extends string> {
  private readonly toNum = new Map<string, number>();
  private readonly toStr = new Map<number, S>();
  constructor(
    private readonly name: string,
    pairs: readonly (readonly [S, number])[],
  ) {
    for (const [s, n] of pairs) {
      this.toNum.set(s, n);
      this.toStr.set(n, s);
    }
  }
  num(value: S, path: string): number {
    const n = this.toNum.get(value);
    if (n === undefined) throw new ControlplaneCodecError('INVALID_ENUM', `not a ${this.name}`, path, value);
    return n;
  }
  str(value: number | null | undefined, path: string): S {
    const s = value == null ? undefined : this.toStr.get(value);
    if (s === undefined) throw new ControlplaneCodecError('INVALID_ENUM', `unknown ${this.name} value`, path, value);
    return s;
  }
  optStr(value: number | null | undefined, path: string): S | undefined {
    return value == null || value === 0 ? undefined : this.str(value, path);
  }
}

const policyType = new EnumMap<cp.NetworkPolicyType>('NetworkPolicyType', [
  ['K8sNetworkPolicy', pb.NetworkPolicyType.K8S_NETWORK_POLICY],
  ['AntreaClusterNetworkPolicy', pb.NetworkPolicyType.ANTREA_CLUSTER_NETWORK_POLICY],
  ['AntreaNetworkPolicy', pb.NetworkPolicyType.ANTREA_NETWORK_POLICY],
  ['AdminNetworkPolicy', pb.NetworkPolicyType.ADMIN_NETWORK_POLICY],
  ['BaselineAdminNetworkPolicy', pb.NetworkPolicyType.BASELINE_ADMIN_NETWORK_POLICY],
]);
const policyTypeEnum = new EnumMap<cp.PolicyType>('PolicyType', [
  ['Ingress', pb.PolicyType.POLICY_TYPE_INGRESS],
  ['Egress', pb.PolicyType.POLICY_TYPE_EGRESS],
]);
const direction = new EnumMap<cp.Direction>('Direction', [
  ['In', pb.Direction.DIRECTION_IN],
  ['Out', pb.Direction.DIRECTION_OUT],
]);
const ruleAction = new EnumMap<cp.RuleAction>('RuleAction', [
  ['Allow', pb.RuleAction.RULE_ACTION_ALLOW],
  ['Drop', pb.RuleAction.RULE_ACTION_DROP],
  ['Reject', pb.RuleAction.RULE_ACTION_REJECT],
  ['Pass', pb.RuleAction.RULE_ACTION_PASS],
]);
const protocol = new EnumMap<cp.ServiceProtocol>('Protocol', [
  ['TCP', pb.Protocol.PROTOCOL_TCP],
  ['UDP', pb.Protocol.PROTOCOL_UDP],
  ['SCTP', pb.Protocol.PROTOCOL_SCTP],
  ['ICMP', pb.Protocol.PROTOCOL_ICMP],
  ['IGMP', pb.Protocol.PROTOCOL_IGMP],
]);
const scope = new EnumMap<'Cluster' | 'ClusterSet'>('ServiceScope', [
  ['Cluster', pb.ServiceScope.SERVICE_SCOPE_CLUSTER],
  ['ClusterSet', pb.ServiceScope.SERVICE_SCOPE_CLUSTER_SET],
]);
const eventType = new EnumMap<cp.WatchEventType>('EventType', [
  ['ADDED', pb.EventType.ADDED],
  ['MODIFIED', pb.EventType.MODIFIED],
  ['DELETED', pb.EventType.DELETED],
  ['BOOKMARK', pb.EventType.BOOKMARK],
  ['ERROR', pb.EventType.ERROR],
]);
const conditionStatus = new EnumMap<cp.AgentCondition['status']>('ConditionStatus', [
  ['True', pb.ConditionStatus.CONDITION_STATUS_TRUE],
  ['False', pb.ConditionStatus.CONDITION_STATUS_FALSE],
  ['Unknown', pb.ConditionStatus.CONDITION_STATUS_UNKNOWN],
]);
const agentConditionTypes: ReadonlySet<string> = new Set<cp.AgentCondition['type']>([
  'AgentHealthy',
  'ControllerConnectionUp',
  'OVSDBConnectionUp',
  'OpenflowConnectionUp',
]);

// ---- scalar helpers -------------------------------------------------------------------------

function int(value: number, path: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ControlplaneCodecError('OUT_OF_RANGE', `expected an integer in [${min}, ${max}]`, path, value);
  }
  return value;
}
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const int32 = (v: number, path: string): number => int(v, path, INT32_MIN, INT32_MAX);
const uint32 = (v: number, path: string): number => int(v, path, 0, 0xffffffff);
const int64 = (v: number, path: string): number => int(v, path, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

/** int64 fields decode to Long (when the `long` module is present) or number. */
function fromInt64(value: unknown, path: string): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'toNumber' in value && typeof value.toNumber === 'function') {
    const n = (value as { toNumber(): number }).toNumber();
    return int64(n, path);
  }
  if (value == null) return 0;
  throw new ControlplaneCodecError('MALFORMED_MESSAGE', 'expected an int64', path, value);
}

function ipBytes(text: string, path: string): Uint8Array {
  const b = ipToBytes(text);
  if (!b) throw new ControlplaneCodecError('INVALID_IP', 'not an IPv4 or IPv6 address', path, text);
  return b;
}

function ipText(bytes: Uint8Array | null | undefined, path: string): string {
  const s = bytes ? bytesToIp(bytes) : undefined;
  if (s === undefined) throw new ControlplaneCodecError('INVALID_IP', 'IP must be 4 or 16 bytes', path, bytes);
  return s;
}

function cidrToPb(text: string, path: string): P<'IPNet'> {
  const slash = text.indexOf('/');
  const ipPart = slash < 0 ? text : text.slice(0, slash);
  const bytes = ipToBytes(ipPart);
  if (!bytes) throw new ControlplaneCodecError('INVALID_CIDR', 'not a CIDR', path, text);
  const bits = bytes.length * 8;
  const lenText = slash < 0 ? String(bits) : text.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(lenText) || Number(lenText) > bits) {
    throw new ControlplaneCodecError('INVALID_CIDR', `prefix length must be 0..${bits}`, path, text);
  }
  return new pb.IPNet({ ip: bytes, prefixLength: Number(lenText) });
}

function cidrFromPb(net: switchyard.controlplane.v1.IPNet.$Properties | null | undefined, path: string): string {
  if (!net) throw new ControlplaneCodecError('MISSING_FIELD', 'CIDR missing', path, net);
  const ip = ipText(net.ip, `${path}.ip`);
  const bits = (net.ip?.length ?? 0) * 8;
  const len = net.prefixLength ?? 0;
  if (len < 0 || len > bits) throw new ControlplaneCodecError('INVALID_CIDR', `prefix length must be 0..${bits}`, path, len);
  return `${ip}/${len}`;
}

function required<T>(value: T | null | undefined, path: string): T {
  if (value == null) throw new ControlplaneCodecError('MISSING_FIELD', 'required field missing', path, value);
  return value;
}

/** Copy `value` into `out[key]` only when present (exactOptionalPropertyTypes: no undefined keys). */
function setOpt<T extends object, K extends keyof T>(out: T, key: K, value: T[K] | null | undefined): void {
  if (value != null) out[key] = value;
}

const strs = (xs: readonly string[] | null | undefined): string[] => (xs ? [...xs] : []);

// ---- messages: TS -> protobuf ---------------------------------------------------------------

function serviceToPb(s: cp.Service, path: string): P<'Service'> {
  const m = new pb.Service({ protocol: protocol.num(s.protocol, `${path}.protocol`) });
  if (typeof s.port === 'number') m.portNumber = int32(s.port, `${path}.port`);
  else if (typeof s.port === 'string') m.portName = s.port;
  if (s.endPort !== undefined) m.endPort = int32(s.endPort, `${path}.endPort`);
  if (s.srcPort !== undefined) m.srcPort = int32(s.srcPort, `${path}.srcPort`);
  if (s.srcEndPort !== undefined) m.srcEndPort = int32(s.srcEndPort, `${path}.srcEndPort`);
  if (s.icmpType !== undefined) m.icmpType = int32(s.icmpType, `${path}.icmpType`);
  if (s.icmpCode !== undefined) m.icmpCode = int32(s.icmpCode, `${path}.icmpCode`);
  if (s.igmpType !== undefined) m.igmpType = int32(s.igmpType, `${path}.igmpType`);
  if (s.groupAddress !== undefined) m.groupAddress = ipBytes(s.groupAddress, `${path}.groupAddress`);
  return m;
}

function peerToPb(p: cp.NetworkPolicyPeer, path: string): P<'NetworkPolicyPeer'> {
  const m = new pb.NetworkPolicyPeer({
    addressGroups: [...p.addressGroups],
    ipBlocks: p.ipBlocks.map(
      (b, i) =>
        new pb.IPBlock({
          cidr: cidrToPb(b.cidr, `${path}.ipBlocks[${i}].cidr`),
          except: b.except.map((e, j) => cidrToPb(e, `${path}.ipBlocks[${i}].except[${j}]`)),
        }),
    ),
  });
  if (p.fqdns) {
    m.fqdns = [...p.fqdns];
    m.hasFqdns = true;
  }
  if (p.toServices) {
    m.toServices = p.toServices.map((s) => {
      const r = new pb.ServiceReference({ name: s.name, namespace: s.namespace });
      if (s.scope !== undefined) r.scope = scope.num(s.scope, `${path}.toServices.scope`);
      return r;
    });
    m.hasToServices = true;
  }
  if (p.labelIdentities) {
    m.labelIdentities = p.labelIdentities.map((x, i) => uint32(x, `${path}.labelIdentities[${i}]`));
    m.hasLabelIdentities = true;
  }
  return m;
}

function ruleToPb(r: cp.NetworkPolicyRule, path: string): P<'NetworkPolicyRule'> {
  const m = new pb.NetworkPolicyRule({
    direction: direction.num(r.direction, `${path}.direction`),
    from: peerToPb(r.from, `${path}.from`),
    to: peerToPb(r.to, `${path}.to`),
    services: r.services.map((s, i) => serviceToPb(s, `${path}.services[${i}]`)),
    priority: int32(r.priority, `${path}.priority`),
    enableLogging: r.enableLogging,
  });
  if (r.action !== undefined) m.action = ruleAction.num(r.action, `${path}.action`);
  if (r.logLabel !== undefined) m.logLabel = r.logLabel;
  if (r.appliedToGroups) {
    m.appliedToGroups = [...r.appliedToGroups];
    m.hasAppliedToGroups = true;
  }
  if (r.name !== undefined) m.name = r.name;
  return m;
}

/** TS NetworkPolicy to its generated message. Throws ControlplaneCodecError on invalid values. */
export function networkPolicyToProto(p: cp.NetworkPolicy, path = ''): P<'NetworkPolicy'> {
  const at = (f: string): string => (path ? `${path}.${f}` : f);
  const m = new pb.NetworkPolicy({
    uid: p.uid,
    name: p.name,
    namespace: p.namespace,
    sourceRef: new pb.NetworkPolicyReference({
      type: policyType.num(p.sourceRef.type, at('sourceRef.type')),
      namespace: p.sourceRef.namespace,
      name: p.sourceRef.name,
      uid: p.sourceRef.uid,
    }),
    rules: p.rules.map((r, i) => ruleToPb(r, at(`rules[${i}]`))),
    appliedToGroups: [...p.appliedToGroups],
    generation: int64(p.generation, at('generation')),
  });
  if (p.priority !== undefined) {
    if (!Number.isFinite(p.priority)) throw new ControlplaneCodecError('OUT_OF_RANGE', 'priority must be finite', at('priority'), p.priority);
    m.priority = p.priority;
  }
  if (p.tierPriority !== undefined) m.tierPriority = int32(p.tierPriority, at('tierPriority'));
  if (p.appliedToPerRule !== undefined) m.appliedToPerRule = p.appliedToPerRule;
  if (p.policyTypes) {
    m.policyTypes = p.policyTypes.map((t, i) => policyTypeEnum.num(t, at(`policyTypes[${i}]`)));
    m.hasPolicyTypes = true;
  }
  return m;
}

function memberToPb(g: cp.GroupMember, path: string): P<'GroupMember'> {
  const m = new pb.GroupMember({ ips: g.ips.map((ip, i) => ipBytes(ip, `${path}.ips[${i}]`)) });
  if (g.pod) m.pod = new pb.PodReference({ name: g.pod.name, namespace: g.pod.namespace });
  if (g.externalEntity) m.externalEntity = new pb.ExternalEntityReference({ name: g.externalEntity.name, namespace: g.externalEntity.namespace });
  if (g.node) m.node = new pb.NodeReference({ name: g.node.name });
  if (g.ports) {
    m.ports = g.ports.map(
      (p, i) =>
        new pb.NamedPort({
          name: p.name,
          port: int32(p.port, `${path}.ports[${i}].port`),
          protocol: protocol.num(p.protocol, `${path}.ports[${i}].protocol`),
        }),
    );
    m.hasPorts = true;
  }
  return m;
}

const membersToPb = (ms: readonly cp.GroupMember[], path: string): P<'GroupMember'>[] =>
  ms.map((g, i) => memberToPb(g, `${path}[${i}]`));

export function addressGroupToProto(g: cp.AddressGroup): P<'AddressGroup'> {
  return new pb.AddressGroup({ name: g.name, groupMembers: membersToPb(g.groupMembers, 'groupMembers') });
}
export function appliedToGroupToProto(g: cp.AppliedToGroup): P<'AppliedToGroup'> {
  return new pb.AppliedToGroup({ name: g.name, groupMembers: membersToPb(g.groupMembers, 'groupMembers') });
}
export function addressGroupPatchToProto(g: cp.AddressGroupPatch): P<'AddressGroupPatch'> {
  return new pb.AddressGroupPatch({
    name: g.name,
    addedGroupMembers: membersToPb(g.addedGroupMembers, 'addedGroupMembers'),
    removedGroupMembers: membersToPb(g.removedGroupMembers, 'removedGroupMembers'),
  });
}
export function appliedToGroupPatchToProto(g: cp.AppliedToGroupPatch): P<'AppliedToGroupPatch'> {
  return new pb.AppliedToGroupPatch({
    name: g.name,
    addedGroupMembers: membersToPb(g.addedGroupMembers, 'addedGroupMembers'),
    removedGroupMembers: membersToPb(g.removedGroupMembers, 'removedGroupMembers'),
  });
}

export function networkPolicyStatusToProto(s: cp.NetworkPolicyStatus): P<'NetworkPolicyStatus'> {
  return new pb.NetworkPolicyStatus({
    name: s.name,
    nodes: s.nodes.map((n, i) => {
      const m = new pb.NetworkPolicyNodeStatus({ nodeName: n.nodeName, generation: int64(n.generation, `nodes[${i}].generation`) });
      if (n.realizationFailure !== undefined) m.realizationFailure = n.realizationFailure;
      if (n.message !== undefined) m.message = n.message;
      return m;
    }),
  });
}

export function agentInfoToProto(a: cp.AgentInfo): P<'AgentInfo'> {
  const m = new pb.AgentInfo({
    nodeName: a.nodeName,
    version: a.version,
    nodeSubnets: a.nodeSubnets.map((c, i) => {
      cidrToPb(c, `nodeSubnets[${i}]`);
      return c;
    }),
    networkPolicyNum: int32(a.networkPolicyNum, 'networkPolicyNum'),
    addressGroupNum: int32(a.addressGroupNum, 'addressGroupNum'),
    appliedToGroupNum: int32(a.appliedToGroupNum, 'appliedToGroupNum'),
    localPodNum: int32(a.localPodNum, 'localPodNum'),
    conditions: a.conditions.map((c, i) => {
      if (!agentConditionTypes.has(c.type)) throw new ControlplaneCodecError('INVALID_ENUM', 'unknown agent condition type', `conditions[${i}].type`, c.type);
      const m = new pb.AgentCondition({ type: c.type, status: conditionStatus.num(c.status, `conditions[${i}].status`) });
      if (c.lastHeartbeatTime !== undefined) m.lastHeartbeatTime = c.lastHeartbeatTime;
      if (c.reason !== undefined) m.reason = c.reason;
      if (c.message !== undefined) m.message = c.message;
      return m;
    }),
  });
  if (a.podRef) m.podRef = new pb.PodReference({ name: a.podRef.name, namespace: a.podRef.namespace });
  if (a.ovsVersion !== undefined) m.ovsVersion = a.ovsVersion;
  if (a.bridgeName !== undefined) m.bridgeName = a.bridgeName;
  if (a.flowTable) {
    const ft: Record<string, number> = {};
    for (const [k, v] of Object.entries(a.flowTable)) ft[k] = int32(v, `flowTable.${k}`);
    m.flowTable = ft;
    m.hasFlowTable = true;
  }
  return m;
}

/** TS WatchEvent to its generated message. */
export function watchEventToProto(e: cp.WatchEvent): P<'WatchEvent'> {
  const m = new pb.WatchEvent({ type: eventType.num(e.type, 'type') });
  if (e.resourceVersion !== undefined) m.resourceVersion = e.resourceVersion;
  switch (e.kind) {
    case 'NetworkPolicy':
      m.networkPolicy = networkPolicyToProto(e.object, 'object');
      break;
    case 'AddressGroup':
      m.addressGroup = addressGroupToProto(e.object);
      break;
    case 'AddressGroupPatch':
      m.addressGroupPatch = addressGroupPatchToProto(e.object);
      break;
    case 'AppliedToGroup':
      m.appliedToGroup = appliedToGroupToProto(e.object);
      break;
    case 'AppliedToGroupPatch':
      m.appliedToGroupPatch = appliedToGroupPatchToProto(e.object);
      break;
    case 'NetworkPolicyStatus':
      m.networkPolicyStatus = networkPolicyStatusToProto(e.object);
      break;
    case 'Bookmark':
      m.bookmark = new pb.Bookmark({ resourceVersion: e.object.resourceVersion });
      break;
    case 'Status':
      m.status = new pb.Status({ code: int32(e.object.code, 'object.code'), reason: e.object.reason, message: e.object.message });
      break;
    default:
      throw new ControlplaneCodecError('INVALID_ENUM', 'unknown watch object kind', 'kind', (e as { kind: unknown }).kind);
  }
  return m;
}

// ---- messages: protobuf -> TS ---------------------------------------------------------------

function serviceFromPb(m: switchyard.controlplane.v1.Service.$Properties, path: string): cp.Service {
  const s: cp.Service = { protocol: protocol.str(m.protocol, `${path}.protocol`) };
  if (m.port === 'portNumber') setOpt(s, 'port', m.portNumber);
  else if (m.port === 'portName') setOpt(s, 'port', m.portName);
  setOpt(s, 'endPort', m.endPort);
  setOpt(s, 'srcPort', m.srcPort);
  setOpt(s, 'srcEndPort', m.srcEndPort);
  setOpt(s, 'icmpType', m.icmpType);
  setOpt(s, 'icmpCode', m.icmpCode);
  setOpt(s, 'igmpType', m.igmpType);
  if (m.groupAddress != null) s.groupAddress = ipText(m.groupAddress, `${path}.groupAddress`);
  return s;
}

function peerFromPb(m: switchyard.controlplane.v1.NetworkPolicyPeer.$Properties | null | undefined, path: string): cp.NetworkPolicyPeer {
  const pm = required(m, path);
  const p: cp.NetworkPolicyPeer = {
    addressGroups: strs(pm.addressGroups),
    ipBlocks: (pm.ipBlocks ?? []).map((b, i) => ({
      cidr: cidrFromPb(b.cidr, `${path}.ipBlocks[${i}].cidr`),
      except: (b.except ?? []).map((e, j) => cidrFromPb(e, `${path}.ipBlocks[${i}].except[${j}]`)),
    })),
  };
  if (pm.hasFqdns) p.fqdns = strs(pm.fqdns);
  if (pm.hasToServices) {
    p.toServices = (pm.toServices ?? []).map((r, i) => {
      const ref: cp.ServiceReference = { name: r.name ?? '', namespace: r.namespace ?? '' };
      setOpt(ref, 'scope', scope.optStr(r.scope, `${path}.toServices[${i}].scope`));
      return ref;
    });
  }
  if (pm.hasLabelIdentities) p.labelIdentities = [...(pm.labelIdentities ?? [])];
  return p;
}

function ruleFromPb(m: switchyard.controlplane.v1.NetworkPolicyRule.$Properties, path: string): cp.NetworkPolicyRule {
  const r: cp.NetworkPolicyRule = {
    direction: direction.str(m.direction, `${path}.direction`),
    from: peerFromPb(m.from, `${path}.from`),
    to: peerFromPb(m.to, `${path}.to`),
    services: (m.services ?? []).map((s, i) => serviceFromPb(s, `${path}.services[${i}]`)),
    priority: m.priority ?? 0,
    enableLogging: m.enableLogging ?? false,
  };
  setOpt(r, 'action', ruleAction.optStr(m.action, `${path}.action`));
  setOpt(r, 'logLabel', m.logLabel);
  if (m.hasAppliedToGroups) r.appliedToGroups = strs(m.appliedToGroups);
  setOpt(r, 'name', m.name);
  return r;
}

/** Generated NetworkPolicy message to the TS model; validates enums and IPs. */
export function networkPolicyFromProto(m: switchyard.controlplane.v1.NetworkPolicy.$Properties, path = ''): cp.NetworkPolicy {
  const at = (f: string): string => (path ? `${path}.${f}` : f);
  const ref = required(m.sourceRef, at('sourceRef'));
  const p: cp.NetworkPolicy = {
    uid: m.uid ?? '',
    name: m.name ?? '',
    namespace: m.namespace ?? '',
    sourceRef: {
      type: policyType.str(ref.type, at('sourceRef.type')),
      namespace: ref.namespace ?? '',
      name: ref.name ?? '',
      uid: ref.uid ?? '',
    },
    rules: (m.rules ?? []).map((r, i) => ruleFromPb(r, at(`rules[${i}]`))),
    appliedToGroups: strs(m.appliedToGroups),
    generation: fromInt64(m.generation, at('generation')),
  };
  setOpt(p, 'priority', m.priority);
  setOpt(p, 'tierPriority', m.tierPriority);
  setOpt(p, 'appliedToPerRule', m.appliedToPerRule);
  if (m.hasPolicyTypes) p.policyTypes = (m.policyTypes ?? []).map((t, i) => policyTypeEnum.str(t, at(`policyTypes[${i}]`)));
  return p;
}

function memberFromPb(m: switchyard.controlplane.v1.GroupMember.$Properties, path: string): cp.GroupMember {
  const g: cp.GroupMember = { ips: (m.ips ?? []).map((b, i) => ipText(b, `${path}.ips[${i}]`)) };
  if (m.pod) g.pod = { name: m.pod.name ?? '', namespace: m.pod.namespace ?? '' };
  if (m.externalEntity) g.externalEntity = { name: m.externalEntity.name ?? '', namespace: m.externalEntity.namespace ?? '' };
  if (m.node) g.node = { name: m.node.name ?? '' };
  if (m.hasPorts) {
    g.ports = (m.ports ?? []).map((p, i) => {
      const proto = protocol.str(p.protocol, `${path}.ports[${i}].protocol`);
      if (proto !== 'TCP' && proto !== 'UDP' && proto !== 'SCTP') {
        throw new ControlplaneCodecError('INVALID_ENUM', 'named ports are TCP, UDP or SCTP', `${path}.ports[${i}].protocol`, proto);
      }
      return { name: p.name ?? '', port: p.port ?? 0, protocol: proto };
    });
  }
  return g;
}

const membersFromPb = (ms: readonly switchyard.controlplane.v1.GroupMember.$Properties[] | null | undefined, path: string): cp.GroupMember[] =>
  (ms ?? []).map((g, i) => memberFromPb(g, `${path}[${i}]`));

export function addressGroupFromProto(m: switchyard.controlplane.v1.AddressGroup.$Properties): cp.AddressGroup {
  return { name: m.name ?? '', groupMembers: membersFromPb(m.groupMembers, 'groupMembers') };
}
export function appliedToGroupFromProto(m: switchyard.controlplane.v1.AppliedToGroup.$Properties): cp.AppliedToGroup {
  return { name: m.name ?? '', groupMembers: membersFromPb(m.groupMembers, 'groupMembers') };
}
export function addressGroupPatchFromProto(m: switchyard.controlplane.v1.AddressGroupPatch.$Properties): cp.AddressGroupPatch {
  return {
    name: m.name ?? '',
    addedGroupMembers: membersFromPb(m.addedGroupMembers, 'addedGroupMembers'),
    removedGroupMembers: membersFromPb(m.removedGroupMembers, 'removedGroupMembers'),
  };
}
export function appliedToGroupPatchFromProto(m: switchyard.controlplane.v1.AppliedToGroupPatch.$Properties): cp.AppliedToGroupPatch {
  return {
    name: m.name ?? '',
    addedGroupMembers: membersFromPb(m.addedGroupMembers, 'addedGroupMembers'),
    removedGroupMembers: membersFromPb(m.removedGroupMembers, 'removedGroupMembers'),
  };
}

export function networkPolicyStatusFromProto(m: switchyard.controlplane.v1.NetworkPolicyStatus.$Properties): cp.NetworkPolicyStatus {
  return {
    name: m.name ?? '',
    nodes: (m.nodes ?? []).map((n, i) => {
      const s: cp.NetworkPolicyNodeStatus = { nodeName: n.nodeName ?? '', generation: fromInt64(n.generation, `nodes[${i}].generation`) };
      setOpt(s, 'realizationFailure', n.realizationFailure);
      setOpt(s, 'message', n.message);
      return s;
    }),
  };
}

export function agentInfoFromProto(m: switchyard.controlplane.v1.AgentInfo.$Properties): cp.AgentInfo {
  const a: cp.AgentInfo = {
    nodeName: m.nodeName ?? '',
    version: m.version ?? '',
    nodeSubnets: strs(m.nodeSubnets),
    networkPolicyNum: m.networkPolicyNum ?? 0,
    addressGroupNum: m.addressGroupNum ?? 0,
    appliedToGroupNum: m.appliedToGroupNum ?? 0,
    localPodNum: m.localPodNum ?? 0,
    conditions: (m.conditions ?? []).map((c, i) => {
      const type = c.type ?? '';
      if (!agentConditionTypes.has(type)) throw new ControlplaneCodecError('INVALID_ENUM', 'unknown agent condition type', `conditions[${i}].type`, type);
      const out: cp.AgentCondition = {
        type: type as cp.AgentCondition['type'],
        status: conditionStatus.str(c.status, `conditions[${i}].status`),
      };
      setOpt(out, 'lastHeartbeatTime', c.lastHeartbeatTime);
      setOpt(out, 'reason', c.reason);
      setOpt(out, 'message', c.message);
      return out;
    }),
  };
  if (m.podRef) a.podRef = { name: m.podRef.name ?? '', namespace: m.podRef.namespace ?? '' };
  setOpt(a, 'ovsVersion', m.ovsVersion);
  setOpt(a, 'bridgeName', m.bridgeName);
  if (m.hasFlowTable) a.flowTable = { ...(m.flowTable ?? {}) };
  return a;
}

/** Generated WatchEvent message to the TS model. */
export function watchEventFromProto(m: switchyard.controlplane.v1.WatchEvent.$Properties): cp.WatchEvent {
  const type = eventType.str(m.type, 'type');
  const base = m.resourceVersion != null ? { type, resourceVersion: m.resourceVersion } : { type };
  switch (m.object) {
    case 'networkPolicy':
      return { ...base, kind: 'NetworkPolicy', object: networkPolicyFromProto(required(m.networkPolicy, 'object'), 'object') };
    case 'addressGroup':
      return { ...base, kind: 'AddressGroup', object: addressGroupFromProto(required(m.addressGroup, 'object')) };
    case 'addressGroupPatch':
      return { ...base, kind: 'AddressGroupPatch', object: addressGroupPatchFromProto(required(m.addressGroupPatch, 'object')) };
    case 'appliedToGroup':
      return { ...base, kind: 'AppliedToGroup', object: appliedToGroupFromProto(required(m.appliedToGroup, 'object')) };
    case 'appliedToGroupPatch':
      return { ...base, kind: 'AppliedToGroupPatch', object: appliedToGroupPatchFromProto(required(m.appliedToGroupPatch, 'object')) };
    case 'networkPolicyStatus':
      return { ...base, kind: 'NetworkPolicyStatus', object: networkPolicyStatusFromProto(required(m.networkPolicyStatus, 'object')) };
    case 'bookmark':
      return { ...base, kind: 'Bookmark', object: { resourceVersion: required(m.bookmark, 'object').resourceVersion ?? '' } };
    case 'status': {
      const st = required(m.status, 'object');
      return { ...base, kind: 'Status', object: { code: st.code ?? 0, reason: st.reason ?? '', message: st.message ?? '' } };
    }
    default:
      throw new ControlplaneCodecError('MISSING_FIELD', 'watch event carries no object', 'object', m.object);
  }
}

// ---- bytes ----------------------------------------------------------------------------------

/** Run a generated decoder, turning its RangeError/Error into a typed MALFORMED_MESSAGE error. */
function safeDecode<T>(what: string, bytes: Uint8Array, decode: (b: Uint8Array) => T): T {
  try {
    return decode(bytes);
  } catch (err) {
    throw new ControlplaneCodecError('MALFORMED_MESSAGE', `cannot decode ${what}: ${(err as Error).message}`, '', bytes.length);
  }
}

/** Serialize a watch event (no framing). */
export function encodeWatchEvent(e: cp.WatchEvent): Uint8Array {
  return pb.WatchEvent.encode(watchEventToProto(e)).finish();
}

/** Parse a watch event (no framing). Throws ControlplaneCodecError on malformed or invalid input. */
export function decodeWatchEvent(bytes: Uint8Array): cp.WatchEvent {
  return watchEventFromProto(safeDecode('WatchEvent', bytes, (b) => pb.WatchEvent.decode(b)));
}

/** Serialize a NetworkPolicy. */
export function encodeNetworkPolicy(p: cp.NetworkPolicy): Uint8Array {
  return pb.NetworkPolicy.encode(networkPolicyToProto(p)).finish();
}

/** Parse a NetworkPolicy. */
export function decodeNetworkPolicy(bytes: Uint8Array): cp.NetworkPolicy {
  return networkPolicyFromProto(safeDecode('NetworkPolicy', bytes, (b) => pb.NetworkPolicy.decode(b)));
}

/** Serialize an AddressGroup. */
export function encodeAddressGroup(g: cp.AddressGroup): Uint8Array {
  return pb.AddressGroup.encode(addressGroupToProto(g)).finish();
}

/** Parse an AddressGroup. */
export function decodeAddressGroup(bytes: Uint8Array): cp.AddressGroup {
  return addressGroupFromProto(safeDecode('AddressGroup', bytes, (b) => pb.AddressGroup.decode(b)));
}

/** Serialize an AppliedToGroup. */
export function encodeAppliedToGroup(g: cp.AppliedToGroup): Uint8Array {
  return pb.AppliedToGroup.encode(appliedToGroupToProto(g)).finish();
}

/** Parse an AppliedToGroup. */
export function decodeAppliedToGroup(bytes: Uint8Array): cp.AppliedToGroup {
  return appliedToGroupFromProto(safeDecode('AppliedToGroup', bytes, (b) => pb.AppliedToGroup.decode(b)));
}

/** Serialize a NetworkPolicyStatus (agent -> controller). */
export function encodeNetworkPolicyStatus(s: cp.NetworkPolicyStatus): Uint8Array {
  return pb.NetworkPolicyStatus.encode(networkPolicyStatusToProto(s)).finish();
}

/** Parse a NetworkPolicyStatus. */
export function decodeNetworkPolicyStatus(bytes: Uint8Array): cp.NetworkPolicyStatus {
  return networkPolicyStatusFromProto(safeDecode('NetworkPolicyStatus', bytes, (b) => pb.NetworkPolicyStatus.decode(b)));
}

/** Serialize an AgentInfo. */
export function encodeAgentInfo(a: cp.AgentInfo): Uint8Array {
  return pb.AgentInfo.encode(agentInfoToProto(a)).finish();
}

/** Parse an AgentInfo. */
export function decodeAgentInfo(bytes: Uint8Array): cp.AgentInfo {
  return agentInfoFromProto(safeDecode('AgentInfo', bytes, (b) => pb.AgentInfo.decode(b)));
}
