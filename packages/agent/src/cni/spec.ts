/**
 * CNI spec pieces shared by the `switchyard-cni` plugin and the agent's CNI server: versions,
 * error codes, network configuration checks and result conversion. No imports on purpose: the
 * plugin bundles this file and must stay a single dependency-free script.
 */

/** Versions whose configurations this plugin accepts and whose results it can produce. */
export const SUPPORTED_CNI_VERSIONS: readonly string[] = ['0.3.0', '0.3.1', '0.4.0', '1.0.0'];
/** The newest supported version (used for errors when the request's version is unusable). */
export const CURRENT_CNI_VERSION = '1.0.0';

/** Error codes of the CNI spec (section "Error"), plus this plugin's own (>= 100). */
export const CniErrorCode = {
  IncompatibleVersion: 1,
  UnsupportedField: 2,
  UnknownContainer: 3,
  InvalidEnvironment: 4,
  IoFailure: 5,
  DecodeFailure: 6,
  InvalidNetworkConfig: 7,
  TryAgainLater: 11,
  /** Plugin-specific: the agent failed to set up or tear down the interface. */
  InternalError: 100,
  /** Plugin-specific: CHECK found the interface not as prevResult describes it. */
  CheckFailed: 101,
} as const;
export type CniErrorCode = (typeof CniErrorCode)[keyof typeof CniErrorCode];

/** A CNI error as the spec prints it: `{ cniVersion, code, msg, details }`. */
export class CniError extends Error {
  /** Stable code for the error family, as the other Switchyard error classes have. */
  readonly errorCode = 'CNI_ERROR';
  constructor(
    readonly code: number,
    readonly msg: string,
    readonly details = '',
  ) {
    super(details ? `${msg}: ${details}` : msg);
    this.name = 'CniError';
  }

  /** The error JSON the spec prescribes. */
  toJSON(cniVersion: string = CURRENT_CNI_VERSION): { cniVersion: string; code: number; msg: string; details?: string } {
    return { cniVersion, code: this.code, msg: this.msg, ...(this.details ? { details: this.details } : {}) };
  }
}

/** CNI commands the agent serves (VERSION is answered by the plugin itself). */
export type CniCommand = 'ADD' | 'DEL' | 'CHECK';

/** One plugin invocation as forwarded to the agent: the CNI environment plus the stdin bytes. */
export interface CniRequest {
  command: CniCommand;
  containerId: string;
  /** CNI_NETNS (may be empty for DEL). */
  netns: string;
  ifname: string;
  /** CNI_ARGS, unparsed (`K=V;K=V`). */
  args: string;
  /** CNI_PATH. */
  path: string;
  /** The network configuration exactly as read from stdin. */
  stdin: string;
}

/** The agent's reply: a result JSON for ADD/CHECK (empty for DEL), or a spec error. */
export interface CniReply {
  result?: string;
  error?: { code: number; msg: string; details?: string };
}

/** A network configuration after the checks every command needs. */
export interface NetConf {
  cniVersion: string;
  name: string;
  type: string;
  prevResult?: unknown;
  /** The whole object, for plugin-specific keys. */
  raw: Record<string, unknown>;
}

/** Numeric comparison of dotted versions. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Parses and checks a network configuration: JSON (code 6), an object with `cniVersion`, `name`
 * and `type` (code 7), a supported version (code 1).
 */
export function parseNetConf(stdin: string): NetConf {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch (e) {
    throw new CniError(CniErrorCode.DecodeFailure, 'failed to decode network configuration', e instanceof Error ? e.message : String(e));
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CniError(CniErrorCode.InvalidNetworkConfig, 'network configuration must be a JSON object');
  }
  const o = raw as Record<string, unknown>;
  for (const key of ['cniVersion', 'name', 'type'] as const) {
    if (typeof o[key] !== 'string' || o[key] === '') {
      throw new CniError(CniErrorCode.InvalidNetworkConfig, `network configuration: "${key}" must be a non-empty string`, `got ${JSON.stringify(o[key])}`);
    }
  }
  const cniVersion = o.cniVersion as string;
  if (!SUPPORTED_CNI_VERSIONS.includes(cniVersion)) {
    throw new CniError(CniErrorCode.IncompatibleVersion, `incompatible CNI version ${cniVersion}`, `supported versions: ${SUPPORTED_CNI_VERSIONS.join(', ')}`);
  }
  const conf: NetConf = { cniVersion, name: o.name as string, type: o.type as string, raw: o };
  if (o.prevResult !== undefined) conf.prevResult = o.prevResult;
  return conf;
}

/** CNI_ARGS (`K8S_POD_NAME=a;K8S_POD_NAMESPACE=b;IgnoreUnknown=1`) as a map. */
export function parseCniArgs(args: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of args.split(';')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new CniError(CniErrorCode.InvalidEnvironment, 'invalid CNI_ARGS', `"${part}" is not KEY=VALUE`);
    out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

/** An interface in a result. */
export interface CniInterface {
  name: string;
  mac?: string;
  mtu?: number;
  sandbox?: string;
}
/** An address in a result (1.0.0 form; 0.3.x/0.4.0 add `version`). */
export interface CniIpConfig {
  address: string;
  gateway?: string;
  interface?: number;
}
export interface CniRoute {
  dst: string;
  gw?: string;
}
/** A result in the 1.0.0 layout. */
export interface CniResult {
  cniVersion: string;
  interfaces?: CniInterface[];
  ips?: CniIpConfig[];
  routes?: CniRoute[];
  dns?: { nameservers?: string[]; domain?: string; search?: string[]; options?: string[] };
}

/**
 * The result as the requested version writes it: 0.3.x/0.4.0 carry `version` ("4"/"6") in each
 * IP entry, 1.0.0 does not.
 */
export function formatResult(result: CniResult, cniVersion: string): Record<string, unknown> {
  const ips = (result.ips ?? []).map((ip) =>
    compareVersions(cniVersion, '1.0.0') < 0 ? { version: ip.address.includes(':') ? '6' : '4', ...ip } : { ...ip },
  );
  return { ...result, cniVersion, ips, dns: result.dns ?? {} };
}

/** Reads a prevResult of any supported version into the 1.0.0 layout (code 7 when malformed). */
export function parsePrevResult(prev: unknown): CniResult {
  if (prev === null || typeof prev !== 'object' || Array.isArray(prev)) {
    throw new CniError(CniErrorCode.InvalidNetworkConfig, 'prevResult must be an object');
  }
  const p = prev as Record<string, unknown>;
  const ips = Array.isArray(p.ips) ? p.ips : [];
  const out: CniResult = { cniVersion: typeof p.cniVersion === 'string' ? p.cniVersion : CURRENT_CNI_VERSION };
  out.ips = ips.map((ip, i) => {
    const o = ip as Record<string, unknown>;
    if (typeof o?.address !== 'string') throw new CniError(CniErrorCode.InvalidNetworkConfig, `prevResult.ips[${i}].address must be a string`);
    const c: CniIpConfig = { address: o.address };
    if (typeof o.gateway === 'string') c.gateway = o.gateway;
    if (typeof o.interface === 'number') c.interface = o.interface;
    return c;
  });
  out.interfaces = (Array.isArray(p.interfaces) ? p.interfaces : []).map((x, i) => {
    const o = x as Record<string, unknown>;
    if (typeof o?.name !== 'string') throw new CniError(CniErrorCode.InvalidNetworkConfig, `prevResult.interfaces[${i}].name must be a string`);
    const c: CniInterface = { name: o.name };
    if (typeof o.mac === 'string') c.mac = o.mac;
    if (typeof o.sandbox === 'string') c.sandbox = o.sandbox;
    return c;
  });
  return out;
}

/** gRPC service of the agent's CNI server (JSON messages, see ./grpc-client and ../server). */
export const CNI_SERVICE = 'switchyard.cni.v1.Cni';
export const CNI_METHODS: Record<CniCommand, string> = { ADD: 'CmdAdd', DEL: 'CmdDel', CHECK: 'CmdCheck' };
