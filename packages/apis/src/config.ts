/**
 * antrea-agent.conf / antrea-controller.conf / Multi-cluster controller_manager_config.yaml:
 * types with Antrea's keys, and parsers that apply Antrea's defaults and report unknown keys.
 * Input is the YAML-parsed object (this package does no YAML or file I/O). The files are described
 * as JSON Schema with TypeBox and checked and defaulted by ajv (the comparison with zod that chose
 * them is in docs/apis.md); the interfaces below are checked against the schemas at compile time.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ConfigError } from './errors';
import type { ConfigWarning, ParsedConfig, AgentConfig, ControllerConfig, MultiClusterConfig } from './config-types';

export type { ConfigWarning, ParsedConfig, TrafficEncapMode, TunnelType, TrafficEncryptionMode, PolicyBypassRule, AgentConfig, ControllerConfig, MultiClusterConfig } from './config-types';

/** Feature gates and their defaults (Antrea's current release). Unknown gates are kept and warned about. */
export const AGENT_FEATURE_GATES: Readonly<Record<string, boolean>> = {
  AntreaPolicy: true,
  AntreaProxy: true,
  Egress: true,
  EndpointSlice: true,
  TopologyAwareHints: true,
  Traceflow: true,
  NodePortLocal: true,
  NetworkPolicyStats: true,
  FlowExporter: false,
  AntreaIPAM: false,
  Multicast: true,
  Multicluster: false,
  SecondaryNetwork: false,
  ServiceExternalIP: false,
  TrafficControl: false,
  IPsecCertAuth: false,
  ExternalNode: false,
  SupportBundleCollection: false,
  L7NetworkPolicy: false,
  AdminNetworkPolicy: false,
  EgressTrafficShaping: false,
  EgressSeparateSubnet: false,
  NodeNetworkPolicy: false,
  L7FlowExporter: false,
  BGPPolicy: false,
  NodeLatencyMonitor: false,
  PacketCapture: false,
  CleanupStaleUDPSvcConntrack: true,
  LoadBalancerModeDSR: false,
};

/** Controller feature gates and their defaults. */
export const CONTROLLER_FEATURE_GATES: Readonly<Record<string, boolean>> = {
  AntreaPolicy: true,
  Egress: true,
  Traceflow: true,
  NetworkPolicyStats: true,
  NodeIPAM: true,
  AntreaIPAM: false,
  Multicast: true,
  Multicluster: false,
  ServiceExternalIP: false,
  IPsecCertAuth: false,
  ExternalNode: false,
  SupportBundleCollection: false,
  L7NetworkPolicy: false,
  AdminNetworkPolicy: false,
  EgressSeparateSubnet: false,
  NodeNetworkPolicy: false,
  BGPPolicy: false,
  PacketCapture: false,
};

// ---- schemas --------------------------------------------------------------------------------

/** A map of unknown keys is reported, never silently dropped; `{}` default lets nested defaults apply. */
const obj = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false, default: {} });
const root = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const str = (d: string) => Type.String({ default: d });
/** A string from a fixed set: one `enum` keyword (ajv reports it as one error, with the allowed values). */
const oneOf = <T extends string>(values: readonly T[], d?: T) => Type.Unsafe<T>({ type: 'string', enum: values, ...(d === undefined ? {} : { default: d }) });
const bool = (d: boolean) => Type.Boolean({ default: d });
const int = (d: number, minimum?: number, maximum?: number) =>
  Type.Integer({ default: d, ...(minimum === undefined ? {} : { minimum }), ...(maximum === undefined ? {} : { maximum }) });
const port = (d: number) => int(d, 0, 65535);
const strings = (d: readonly string[] = []) => Type.Array(Type.String(), { default: d });
const list = <T extends TSchema>(item: T) => Type.Array(item, { default: [] });
/** Feature gates: any name; unknown names are kept and warned about, defaults merged after validation. */
const gates = () => Type.Record(Type.String(), Type.Boolean(), { default: {} });

const policyBypassRule = Type.Object(
  {
    direction: oneOf(['ingress', 'egress'] as const),
    protocol: oneOf(['tcp', 'udp', 'icmp', 'ip'] as const),
    cidr: Type.String(),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  },
  // tcp and udp need a port.
  { additionalProperties: false, if: { required: ['protocol'], properties: { protocol: { enum: ['tcp', 'udp'] } } }, then: { required: ['port'] } },
);

/** JSON Schema of antrea-agent.conf (keys, types, defaults). */
export const AGENT_CONFIG_SCHEMA = root({
  featureGates: gates(),
  nodeType: oneOf(['k8sNode', 'externalNode'] as const, 'k8sNode'),
  cniSocket: str('/var/run/antrea/cni.sock'),
  clientConnection: obj({ kubeconfig: str('') }),
  antreaClientConnection: obj({ kubeconfig: str('') }),
  ovsBridge: str('br-int'),
  ovsDatapathType: oneOf(['system', 'netdev'] as const, 'system'),
  ovsRunDir: str('/var/run/openvswitch'),
  hostGateway: str('antrea-gw0'),
  trafficEncapMode: oneOf(['encap', 'noEncap', 'hybrid', 'networkPolicyOnly'] as const, 'encap'),
  noSNAT: bool(false),
  tunnelType: oneOf(['geneve', 'vxlan', 'gre', 'stt'] as const, 'geneve'),
  tunnelPort: port(0),
  tunnelCsum: bool(false),
  trafficEncryptionMode: oneOf(['none', 'ipsec', 'wireGuard'] as const, 'none'),
  enableBridgingMode: bool(false),
  disableTXChecksumOffload: bool(false),
  defaultMTU: int(0, 0, 65535),
  packetInRate: int(500, 1),
  serviceCIDR: str(''),
  serviceCIDRv6: str(''),
  transportInterface: str(''),
  transportInterfaceCIDRs: strings(),
  multicastInterfaces: strings(),
  kubeAPIServerOverride: str(''),
  dnsServerOverride: str(''),
  enablePrometheusMetrics: bool(true),
  apiPort: port(10350),
  clusterMembershipPort: port(10351),
  tlsCipherSuites: str(''),
  tlsMinVersion: str(''),
  fqdnCacheMinTTL: int(0, 0),
  wireGuard: obj({ port: port(51820) }),
  ipsec: obj({ authenticationMode: oneOf(['psk', 'cert'] as const, 'psk') }),
  egress: obj({ exceptCIDRs: strings(), maxEgressIPsPerNode: int(255, 1, 255), snatFullyRandomPorts: bool(false) }),
  nodePortLocal: obj({ enable: bool(true), portRange: str('61000-62000') }),
  antreaProxy: obj({
    enable: bool(true),
    proxyAll: bool(false),
    nodePortAddresses: strings(),
    skipServices: strings(),
    proxyLoadBalancerIPs: bool(true),
    serviceProxyName: str(''),
    defaultLoadBalancerMode: oneOf(['nat', 'dsr'] as const, 'nat'),
  }),
  flowExporter: obj({
    enable: bool(false),
    flowCollectorAddr: str('flow-aggregator/flow-aggregator:4739:tls'),
    flowPollInterval: str('5s'),
    activeFlowExportTimeout: str('5s'),
    idleFlowExportTimeout: str('15s'),
  }),
  multicast: obj({ igmpQueryVersions: strings(['1', '2', '3']), igmpQueryInterval: str('125s') }),
  externalNode: obj({ externalNodeNamespace: str('default'), policyBypassRules: list(policyBypassRule) }),
  multicluster: obj({
    enableGateway: bool(false),
    namespace: str(''),
    enableStretchedNetworkPolicy: bool(false),
    enablePodToPodConnectivity: bool(false),
    trafficEncryptionMode: oneOf(['none', 'wireGuard'] as const, 'none'),
    wireGuard: obj({ port: port(51821) }),
  }),
  secondaryNetwork: obj({ ovsBridges: list(Type.Object({ bridgeName: Type.String(), physicalInterfaces: strings() }, { additionalProperties: false })) }),
  auditLogging: obj({ maxSize: int(500, 0), maxBackups: int(3, 0), maxAge: int(28, 0), compress: bool(true) }),
});

/** JSON Schema of antrea-controller.conf. */
export const CONTROLLER_CONFIG_SCHEMA = root({
  featureGates: gates(),
  clientConnection: obj({ kubeconfig: str('') }),
  selfSignedCert: bool(true),
  apiPort: port(10349),
  enablePrometheusMetrics: bool(true),
  tlsCipherSuites: str(''),
  tlsMinVersion: str(''),
  nodeIPAM: obj({
    enableNodeIPAM: bool(false),
    clusterCIDRs: strings(),
    serviceCIDR: str(''),
    serviceCIDRv6: str(''),
    nodeCIDRMaskSizeIPv4: int(24, 16, 30),
    nodeCIDRMaskSizeIPv6: int(64, 64, 126),
  }),
  ipsecCSRSigner: obj({ autoApprove: bool(true), selfSignedCA: bool(true) }),
  multicluster: obj({ enableStretchedNetworkPolicy: bool(false) }),
});

/** JSON Schema of the Multi-cluster controller_manager_config.yaml. */
export const MULTICLUSTER_CONFIG_SCHEMA = root({
  apiVersion: str('multicluster.crd.antrea.io/v1alpha1'),
  kind: oneOf<string>(['MultiClusterConfig'], 'MultiClusterConfig'),
  health: obj({ healthProbeBindAddress: str(':8080') }),
  metrics: obj({ bindAddress: str('0') }),
  webhook: obj({ port: port(9443) }),
  leaderElection: obj({ leaderElect: bool(false), resourceName: str('6536456a.crd.antrea.io') }),
  serviceCIDR: str(''),
  podCIDRs: strings(),
  gatewayIPPrecedence: oneOf(['private', 'public', 'internal', 'external'] as const, 'private'),
  endpointIPType: oneOf(['ClusterIP', 'PodIP'] as const, 'ClusterIP'),
  enableStretchedNetworkPolicy: bool(false),
});

// The documented interfaces and the schemas describe the same shape (checked both ways).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: [Same<Static<typeof AGENT_CONFIG_SCHEMA>, AgentConfig>, Same<Static<typeof CONTROLLER_CONFIG_SCHEMA>, ControllerConfig>, Same<Static<typeof MULTICLUSTER_CONFIG_SCHEMA>, MultiClusterConfig>] = [true, true, true];
void sameShape;

// ---- parsing --------------------------------------------------------------------------------

/** The ExternalNode guide writes these two at the top level; Antrea nests them under `externalNode`. */
const AGENT_ALIASES: Readonly<Record<string, readonly [string, string]>> = {
  externalNodeNamespace: ['externalNode', 'externalNodeNamespace'],
  policyBypassRules: ['externalNode', 'policyBypassRules'],
};

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy without null-valued keys: YAML `key:` with nothing after it means "absent" (the default applies). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isMap(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
  return out;
}

/** `/externalNode/policyBypassRules/0` -> `externalNode.policyBypassRules[0]`. */
function keyPath(pointer: string, extra?: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return extra === undefined ? out : out ? `${out}.${extra}` : extra;
}

function configError(e: ErrorObject): ConfigError {
  const p = e.params as { type?: string; allowedValues?: unknown[]; limit?: number; missingProperty?: string; comparison?: string };
  switch (e.keyword) {
    case 'type': {
      const expected = p.type === 'object' ? 'a map' : p.type === 'array' ? 'a list' : p.type === 'integer' ? 'an integer' : p.type === 'boolean' ? 'a boolean' : `a ${p.type}`;
      return new ConfigError('INVALID_TYPE', `expected ${expected}, got ${typeName(e.data)}`, keyPath(e.instancePath), e.data);
    }
    case 'enum':
      return new ConfigError('INVALID_VALUE', `must be one of ${(p.allowedValues ?? []).join(', ')}`, keyPath(e.instancePath), e.data);
    case 'minimum':
    case 'maximum':
      return new ConfigError('INVALID_VALUE', `must be ${p.comparison} ${p.limit}`, keyPath(e.instancePath), e.data);
    case 'required':
      return new ConfigError('INVALID_VALUE', `required${p.missingProperty === 'port' ? ' (tcp and udp need a port)' : ''}`, keyPath(e.instancePath, p.missingProperty), undefined);
    default:
      return new ConfigError('INVALID_VALUE', e.message ?? e.keyword, keyPath(e.instancePath), e.data);
  }
}

// Each process parses its file once: an unoptimized validator compiles in half the time (docs/apis.md).
const ajv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true, strictTypes: false, strictRequired: false, code: { optimize: false } });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Validate and default `input` against `schema`: unknown keys become warnings, anything else wrong a ConfigError. */
function parseRoot<T>(input: unknown, schema: TSchema, gateDefaults: Readonly<Record<string, boolean>> | undefined, aliases: Readonly<Record<string, readonly [string, string]>> = {}): ParsedConfig<T> {
  if (input !== null && input !== undefined && !isMap(input)) throw new ConfigError('NOT_AN_OBJECT', 'configuration must be a map', '', input);
  const data = dropNulls(input ?? {}) as Record<string, unknown>;
  for (const [key, [section, field]] of Object.entries(aliases)) {
    if (!(key in data)) continue;
    const into = isMap(data[section]) ? data[section] : {};
    data[section] = { ...into, [field]: data[key] };
    delete data[key];
  }
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  const warnings: ConfigWarning[] = [];
  if (!validate(data)) {
    const errors = validate.errors ?? [];
    const fatal = errors.find((e) => e.keyword !== 'additionalProperties' && e.keyword !== 'if');
    if (fatal) throw configError(fatal);
    for (const e of errors) {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      warnings.push({ code: 'UNKNOWN_KEY', path: keyPath(e.instancePath, key), message: `unknown key ${key}` });
      delete (e.data as Record<string, unknown>)[key];
    }
  }
  if (gateDefaults) {
    const given = data['featureGates'] as Record<string, boolean>;
    for (const k of Object.keys(given)) {
      if (!(k in gateDefaults)) warnings.push({ code: 'UNKNOWN_FEATURE_GATE', path: `featureGates.${k}`, message: `unknown feature gate ${k}` });
    }
    data['featureGates'] = { ...gateDefaults, ...given };
  }
  warnings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { config: data as T, warnings };
}

/**
 * Parse a YAML-parsed antrea-agent.conf: applies defaults, throws ConfigError on wrong types or
 * values, and returns unknown keys / feature gates as warnings (key paths), never dropping them silently.
 */
export function parseAgentConfig(input: unknown): ParsedConfig<AgentConfig> {
  return parseRoot<AgentConfig>(input, AGENT_CONFIG_SCHEMA, AGENT_FEATURE_GATES, AGENT_ALIASES);
}

/** Parse a YAML-parsed antrea-controller.conf (see {@link parseAgentConfig}). */
export function parseControllerConfig(input: unknown): ParsedConfig<ControllerConfig> {
  return parseRoot<ControllerConfig>(input, CONTROLLER_CONFIG_SCHEMA, CONTROLLER_FEATURE_GATES);
}

/** Parse a YAML-parsed Multi-cluster controller_manager_config.yaml (see {@link parseAgentConfig}). */
export function parseMultiClusterConfig(input: unknown): ParsedConfig<MultiClusterConfig> {
  return parseRoot<MultiClusterConfig>(input, MULTICLUSTER_CONFIG_SCHEMA, undefined);
}
