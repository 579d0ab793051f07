// The zod 4 candidate for antrea-agent.conf parsing, kept for the comparison in bench/config.ts
// (the package uses TypeBox + ajv, src/config.ts). Same contract: defaults, ConfigError with key
// paths, unknown keys as warnings.
import { z } from 'zod';
import { AGENT_FEATURE_GATES, ConfigError, type AgentConfig, type ConfigWarning, type ParsedConfig } from '../src/index';

const obj = <S extends z.core.$ZodLooseShape>(shape: S) => z.object(shape).prefault({} as never);
const str = (d: string) => z.string().default(d);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, d: T[number]) => z.enum(values).default(d as never);
const bool = (d: boolean) => z.boolean().default(d);
const int = (d: number, min?: number, max?: number) => {
  let s = z.number().int();
  if (min !== undefined) s = s.min(min);
  if (max !== undefined) s = s.max(max);
  return s.default(d);
};
const port = (d: number) => int(d, 0, 65535);
const strings = (d: string[] = []) => z.array(z.string()).default(d);

const policyBypassRule = z
  .object({ direction: z.enum(['ingress', 'egress']), protocol: z.enum(['tcp', 'udp', 'icmp', 'ip']), cidr: z.string(), port: z.number().int().min(1).max(65535).exactOptional() })
  .refine((r) => (r.protocol !== 'tcp' && r.protocol !== 'udp') || r.port !== undefined, { message: 'tcp and udp need a port', path: ['port'] });

const agentSchema = z.object({
  featureGates: z.record(z.string(), z.boolean()).default({}),
  nodeType: oneOf(['k8sNode', 'externalNode'], 'k8sNode'),
  cniSocket: str('/var/run/antrea/cni.sock'),
  clientConnection: obj({ kubeconfig: str('') }),
  antreaClientConnection: obj({ kubeconfig: str('') }),
  ovsBridge: str('br-int'),
  ovsDatapathType: oneOf(['system', 'netdev'], 'system'),
  ovsRunDir: str('/var/run/openvswitch'),
  hostGateway: str('antrea-gw0'),
  trafficEncapMode: oneOf(['encap', 'noEncap', 'hybrid', 'networkPolicyOnly'], 'encap'),
  noSNAT: bool(false),
  tunnelType: oneOf(['geneve', 'vxlan', 'gre', 'stt'], 'geneve'),
  tunnelPort: port(0),
  tunnelCsum: bool(false),
  trafficEncryptionMode: oneOf(['none', 'ipsec', 'wireGuard'], 'none'),
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
  ipsec: obj({ authenticationMode: oneOf(['psk', 'cert'], 'psk') }),
  egress: obj({ exceptCIDRs: strings(), maxEgressIPsPerNode: int(255, 1, 255), snatFullyRandomPorts: bool(false) }),
  nodePortLocal: obj({ enable: bool(true), portRange: str('61000-62000') }),
  antreaProxy: obj({
    enable: bool(true),
    proxyAll: bool(false),
    nodePortAddresses: strings(),
    skipServices: strings(),
    proxyLoadBalancerIPs: bool(true),
    serviceProxyName: str(''),
    defaultLoadBalancerMode: oneOf(['nat', 'dsr'], 'nat'),
  }),
  flowExporter: obj({
    enable: bool(false),
    flowCollectorAddr: str('flow-aggregator/flow-aggregator:4739:tls'),
    flowPollInterval: str('5s'),
    activeFlowExportTimeout: str('5s'),
    idleFlowExportTimeout: str('15s'),
  }),
  multicast: obj({ igmpQueryVersions: strings(['1', '2', '3']), igmpQueryInterval: str('125s') }),
  externalNode: obj({ externalNodeNamespace: str('default'), policyBypassRules: z.array(policyBypassRule).default([]) }),
  multicluster: obj({
    enableGateway: bool(false),
    namespace: str(''),
    enableStretchedNetworkPolicy: bool(false),
    enablePodToPodConnectivity: bool(false),
    trafficEncryptionMode: oneOf(['none', 'wireGuard'], 'none'),
    wireGuard: obj({ port: port(51821) }),
  }),
  secondaryNetwork: obj({ ovsBridges: z.array(z.object({ bridgeName: z.string(), physicalInterfaces: strings() })).default([]) }),
  auditLogging: obj({ maxSize: int(500, 0), maxBackups: int(3, 0), maxAge: int(28, 0), compress: bool(true) }),
});

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const keyPath = (p: readonly PropertyKey[]): string => p.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '');

/** zod strips unknown keys silently: find them by walking the input along the schema. */
function unknownKeys(schema: z.core.$ZodType, input: unknown, path: PropertyKey[], out: ConfigWarning[]): void {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType; element?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType>; in?: z.core.$ZodType };
  if (def.innerType) return unknownKeys(def.innerType, input, path, out);
  if (def.type === 'pipe' && def.in) return unknownKeys(def.in, input, path, out);
  if (def.type === 'array' && def.element && Array.isArray(input)) input.forEach((x, i) => unknownKeys(def.element as z.core.$ZodType, x, [...path, i], out));
  if (def.type === 'object' && def.shape && isMap(input)) {
    for (const [k, v] of Object.entries(input)) {
      const field = def.shape[k];
      if (field) unknownKeys(field, v, [...path, k], out);
      else out.push({ code: 'UNKNOWN_KEY', path: keyPath([...path, k]), message: `unknown key ${k}` });
    }
  }
}

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isMap(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x != null).map(([k, x]) => [k, dropNulls(x)]));
}

export function parseAgentConfigZod(input: unknown): ParsedConfig<AgentConfig> {
  if (input != null && !isMap(input)) throw new ConfigError('NOT_AN_OBJECT', 'configuration must be a map', '', input);
  const data = dropNulls(input ?? {}) as Record<string, unknown>;
  for (const key of ['externalNodeNamespace', 'policyBypassRules']) {
    if (!(key in data)) continue;
    data['externalNode'] = { ...(isMap(data['externalNode']) ? data['externalNode'] : {}), [key]: data[key] };
    delete data[key];
  }
  const r = agentSchema.safeParse(data, { reportInput: true });
  if (!r.success) {
    const e = r.error.issues[0] as z.core.$ZodIssue;
    throw new ConfigError(e.code === 'invalid_type' ? 'INVALID_TYPE' : 'INVALID_VALUE', e.message, keyPath(e.path), e.input);
  }
  const warnings: ConfigWarning[] = [];
  unknownKeys(agentSchema, data, [], warnings);
  for (const k of Object.keys(r.data.featureGates)) if (!(k in AGENT_FEATURE_GATES)) warnings.push({ code: 'UNKNOWN_FEATURE_GATE', path: `featureGates.${k}`, message: `unknown feature gate ${k}` });
  warnings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const config: AgentConfig = { ...r.data, featureGates: { ...AGENT_FEATURE_GATES, ...r.data.featureGates } };
  return { config, warnings };
}
