/**
 * Probe scenarios, pure: parsing the multi-document YAML, REST paths of the kinds it may hold,
 * `{{podIP ns/name}}` placeholders, expectations and the cyclonus-style truth table.
 */
import YAML from 'yaml';

/** apiVersion of the lab's own scenario documents (`Probe`). */
export const LAB_API_VERSION = 'lab.switchyard.io/v1alpha1';

/** Error in a scenario file or in what a probe run found. */
export class ScenarioError extends Error {
  constructor(
    readonly code: 'INVALID_SCENARIO' | 'UNKNOWN_KIND' | 'UNKNOWN_POD' | 'INVALID_PLACEHOLDER' | 'NOT_READY' | 'NOT_REALIZED',
    message: string,
    readonly value?: unknown,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/** A Kubernetes object as a scenario holds it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

/** A reference to an object the step deletes. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** An expectation override: `from`/`to` are `ns/pod`, a `*` for the namespace or the pod part, or `*` alone; later entries win; the default is allowed. */
export interface Expect {
  from: string;
  to: string;
  allowed: boolean;
}

/** One probe of a step: every ordered pod pair on this protocol/port. */
export interface ProbeSpec {
  protocol: Protocol;
  port: number;
  /** Source port of the probing connection (for sourcePort rules). */
  sourcePort?: number;
  /** Expected matrix as overrides of "allowed"; absent: nothing is expected. */
  expect?: Expect[];
}

/** One step: objects to create or replace, objects to delete, then probes. */
export interface Step {
  apply: KubeObject[];
  delete: ObjectRef[];
  /** From the step's `Probe` document; absent: the command line's (or the default) probes. */
  probes?: ProbeSpec[];
}

export interface Scenario {
  steps: Step[];
}

/** REST coordinates of a kind. */
export interface KindInfo {
  group: string;
  plural: string;
  namespaced: boolean;
  /** Deletion order: higher first (policies before the groups, tiers, pods and namespaces they use). */
  deleteRank: number;
}

const KINDS: Record<string, KindInfo> = {
  'v1/Namespace': { group: '', plural: 'namespaces', namespaced: false, deleteRank: 0 },
  'v1/Pod': { group: '', plural: 'pods', namespaced: true, deleteRank: 1 },
  'v1/Service': { group: '', plural: 'services', namespaced: true, deleteRank: 2 },
  'v1/ServiceAccount': { group: '', plural: 'serviceaccounts', namespaced: true, deleteRank: 2 },
  'networking.k8s.io/v1/NetworkPolicy': { group: 'networking.k8s.io', plural: 'networkpolicies', namespaced: true, deleteRank: 5 },
  'crd.antrea.io/v1beta1/ClusterNetworkPolicy': { group: 'crd.antrea.io', plural: 'clusternetworkpolicies', namespaced: false, deleteRank: 5 },
  'crd.antrea.io/v1beta1/NetworkPolicy': { group: 'crd.antrea.io', plural: 'networkpolicies', namespaced: true, deleteRank: 5 },
  'crd.antrea.io/v1beta1/Tier': { group: 'crd.antrea.io', plural: 'tiers', namespaced: false, deleteRank: 3 },
  'crd.antrea.io/v1beta1/ClusterGroup': { group: 'crd.antrea.io', plural: 'clustergroups', namespaced: false, deleteRank: 4 },
  'crd.antrea.io/v1beta1/Group': { group: 'crd.antrea.io', plural: 'groups', namespaced: true, deleteRank: 4 },
  'policy.networking.k8s.io/v1alpha1/AdminNetworkPolicy': { group: 'policy.networking.k8s.io', plural: 'adminnetworkpolicies', namespaced: false, deleteRank: 5 },
  'policy.networking.k8s.io/v1alpha1/BaselineAdminNetworkPolicy': { group: 'policy.networking.k8s.io', plural: 'baselineadminnetworkpolicies', namespaced: false, deleteRank: 5 },
};

/** Whether a kind is a policy (the agents must report it realized). */
export function isPolicyKind(o: { apiVersion: string; kind: string }): boolean {
  return (KINDS[`${o.apiVersion}/${o.kind}`]?.deleteRank ?? 0) === 5;
}

/** REST coordinates of `apiVersion`/`kind`; throws UNKNOWN_KIND for kinds a scenario may not hold. */
export function kindInfo(apiVersion: string, kind: string, path = 'kind'): KindInfo {
  const k = KINDS[`${apiVersion}/${kind}`];
  if (!k) throw new ScenarioError('UNKNOWN_KIND', `${apiVersion} ${kind} is not a kind a scenario may hold (known: ${Object.keys(KINDS).join(', ')})`, `${apiVersion}/${kind}`, path);
  return k;
}

/** Collection path of a reference: `/api/v1/namespaces/x/pods`. */
export function collectionPathOf(ref: ObjectRef): string {
  const k = kindInfo(ref.apiVersion, ref.kind);
  const base = k.group === '' ? `/api/${ref.apiVersion}` : `/apis/${ref.apiVersion}`;
  return `${base}${k.namespaced ? `/namespaces/${ref.namespace ?? 'default'}` : ''}/${k.plural}`;
}

/** Object path of a reference. */
export function objectPathOf(ref: ObjectRef): string {
  return `${collectionPathOf(ref)}/${ref.name}`;
}

/** The reference of an object (namespace defaulted for namespaced kinds). */
export function refOf(o: KubeObject): ObjectRef {
  const k = kindInfo(o.apiVersion, o.kind);
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, ...(k.namespaced ? { namespace: o.metadata.namespace ?? 'default' } : {}) };
}

/** `kind/ns/name` key of a reference. */
export function refKey(r: ObjectRef): string {
  return `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`;
}

const STEP_SEPARATOR = /^---[ \t]*#[ \t]*step\b.*$/m;
const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

function parseProbe(raw: unknown, path: string): ProbeSpec {
  const p = raw as Partial<ProbeSpec> | null;
  if (typeof p !== 'object' || p === null) throw new ScenarioError('INVALID_SCENARIO', `${path} must be an object`, raw, path);
  const protocol = String(p.protocol ?? 'TCP').toUpperCase() as Protocol;
  if (!PROTOCOLS.includes(protocol)) throw new ScenarioError('INVALID_SCENARIO', `${path}.protocol must be TCP, UDP or SCTP`, p.protocol, `${path}.protocol`);
  if (!Number.isInteger(p.port) || (p.port as number) < 1 || (p.port as number) > 65535) throw new ScenarioError('INVALID_SCENARIO', `${path}.port must be a port number`, p.port, `${path}.port`);
  const out: ProbeSpec = { protocol, port: p.port as number };
  if (p.sourcePort !== undefined) {
    if (!Number.isInteger(p.sourcePort) || p.sourcePort < 1 || p.sourcePort > 65535) throw new ScenarioError('INVALID_SCENARIO', `${path}.sourcePort must be a port number`, p.sourcePort, `${path}.sourcePort`);
    out.sourcePort = p.sourcePort;
  }
  if (p.expect !== undefined) {
    if (!Array.isArray(p.expect)) throw new ScenarioError('INVALID_SCENARIO', `${path}.expect must be a list`, p.expect, `${path}.expect`);
    out.expect = p.expect.map((e: Partial<Expect>, i) => {
      if (typeof e?.from !== 'string' || typeof e.to !== 'string' || typeof e.allowed !== 'boolean')
        throw new ScenarioError('INVALID_SCENARIO', `${path}.expect[${i}] needs from, to (strings) and allowed (boolean)`, e, `${path}.expect[${i}]`);
      return { from: e.from, to: e.to, allowed: e.allowed };
    });
  }
  return out;
}

/**
 * Parses a scenario: YAML documents; a `---` line containing `# step` starts the next step.
 * A document with `$delete: true` deletes the object it names; a `lab.switchyard.io/v1alpha1`
 * `Probe` document (`probes: [{protocol, port, sourcePort?, expect?}]`) sets the step's probes.
 */
export function parseScenario(text: string, file = 'scenario'): Scenario {
  const chunks = text.split(STEP_SEPARATOR);
  const steps: Step[] = [];
  chunks.forEach((chunk, s) => {
    const step: Step = { apply: [], delete: [] };
    const docs = YAML.parseAllDocuments(chunk);
    docs.forEach((doc, d) => {
      const path = `${file}: step ${s + 1}, document ${d + 1}`;
      if (doc.errors.length > 0) throw new ScenarioError('INVALID_SCENARIO', `${path}: ${doc.errors[0]?.message ?? 'YAML error'}`, undefined, path);
      const o = doc.toJSON() as Record<string, unknown> | null;
      if (o === null || o === undefined) return; // an empty document (comments only)
      if (typeof o !== 'object' || typeof o.kind !== 'string' || typeof o.apiVersion !== 'string') throw new ScenarioError('INVALID_SCENARIO', `${path}: needs apiVersion and kind`, o, path);
      if (o.apiVersion === LAB_API_VERSION && o.kind === 'Probe') {
        if (!Array.isArray(o.probes)) throw new ScenarioError('INVALID_SCENARIO', `${path}: Probe needs a probes list`, o, `${path}.probes`);
        step.probes = [...(step.probes ?? []), ...o.probes.map((p, i) => parseProbe(p, `${path}.probes[${i}]`))];
        return;
      }
      const meta = o.metadata as { name?: unknown } | undefined;
      if (typeof meta?.name !== 'string' || meta.name === '') throw new ScenarioError('INVALID_SCENARIO', `${path}: metadata.name is required`, o, `${path}.metadata.name`);
      const obj = o as KubeObject;
      kindInfo(obj.apiVersion, obj.kind, `${path}.kind`);
      if (o.$delete === true) step.delete.push(refOf(obj));
      else step.apply.push(obj);
    });
    // A step separator right at the top of the file makes no empty first step.
    if (s === 0 && step.apply.length === 0 && step.delete.length === 0 && step.probes === undefined && chunks.length > 1) return;
    steps.push(step);
  });
  if (steps.every((st) => st.apply.length === 0 && st.delete.length === 0 && st.probes === undefined)) throw new ScenarioError('INVALID_SCENARIO', `${file}: no documents`, text, file);
  return { steps };
}

/** Writes a scenario back as YAML (the conformance generator's output), steps separated by `--- # step`. */
export function formatScenario(sc: Scenario, header = ''): string {
  const doc = (o: unknown): string => YAML.stringify(o, { lineWidth: 0 });
  return (
    header +
    sc.steps
      .map((st) => {
        const docs = [
          ...st.apply.map(doc),
          ...st.delete.map((r) => doc({ $delete: true, apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } })),
          ...(st.probes ? [doc({ apiVersion: LAB_API_VERSION, kind: 'Probe', probes: st.probes })] : []),
        ];
        return docs.join('---\n');
      })
      .join('--- # step\n')
  );
}

/** Every Pod of a scenario (`ns/name`, last definition wins), in first-seen order. */
export function scenarioPods(sc: Scenario): Map<string, KubeObject> {
  const pods = new Map<string, KubeObject>();
  for (const st of sc.steps) for (const o of st.apply) if (o.apiVersion === 'v1' && o.kind === 'Pod') pods.set(`${o.metadata.namespace ?? 'default'}/${o.metadata.name}`, o);
  return pods;
}

/** An IP family a lab probes (Kubernetes' names). */
export type IpFamily = 'IPv4' | 'IPv6';

/**
 * `{{podIP ns/name}}` (the pod's address), `{{podCIDR ns/name}}` (that address as a host prefix,
 * /32 or /128) and `{{cidr <IPv4 CIDR> <IPv6 CIDR>}}` (the one of the family).
 */
const PLACEHOLDER = /\{\{\s*(podIP|podCIDR|cidr)\s+([^\s}]+)(?:\s+([^\s}]+))?\s*\}\}/g;
const HAS_PLACEHOLDER = /\{\{\s*(podIP|podCIDR|cidr)\s/;

const familyOfIp = (ip: string): IpFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');

/**
 * Whether `o` itself holds a placeholder: in a string of it, of its objects or of its string
 * lists, not deeper inside a list of objects (whose elements are copied on their own). So of an
 * egress rule `{to: [{ipBlock: ...}]}` it is the peer that is copied per family, not the rule.
 */
function ownsPlaceholder(o: unknown): boolean {
  if (typeof o === 'string') return HAS_PLACEHOLDER.test(o);
  if (Array.isArray(o)) return o.every((v) => typeof v === 'string') && o.some(ownsPlaceholder);
  if (typeof o === 'object' && o !== null) return Object.values(o).some(ownsPlaceholder);
  return false;
}

/**
 * Resolves the placeholders in every string of `o` (UNKNOWN_POD for a pod with no address of the
 * family, INVALID_PLACEHOLDER for a malformed one). `ipOf(ref, family)` gives a pod's address of
 * `family`, or its primary one when `family` is undefined.
 *
 * `families` are the IP families the lab probes. With more than one (a dual-stack lab), an array
 * element holding a placeholder (an ipBlock peer, an ANP `networks` entry, a ClusterGroup's
 * ipBlock; the innermost such element, see `ownsPlaceholder`) becomes one element per family,
 * each resolved in its family: so `{cidr:
 * "{{cidr 10.0.0.0/8 fd00::/8}}", except: ["{{podCIDR x/b}}"]}` is an IPv4 block and an IPv6 block
 * with the same meaning, and a scenario's expectations hold for both families.
 */
export function substitutePodIPs<T>(o: T, ipOf: (ref: string, family?: IpFamily) => string | undefined, path = '', families: readonly IpFamily[] = []): T {
  return resolve(o, ipOf, path, families, families.length === 1 ? families[0] : undefined);
}

function resolve<T>(o: T, ipOf: (ref: string, family?: IpFamily) => string | undefined, path: string, families: readonly IpFamily[], family: IpFamily | undefined): T {
  if (typeof o === 'string')
    return o.replace(PLACEHOLDER, (m, kind: string, a: string, b: string | undefined) => {
      if (kind === 'cidr') {
        if (b === undefined || familyOfIp(a) !== 'IPv4' || familyOfIp(b) !== 'IPv6')
          throw new ScenarioError('INVALID_PLACEHOLDER', `${path || 'value'}: ${m} must name an IPv4 CIDR, then an IPv6 one`, m, path);
        return (family ?? 'IPv4') === 'IPv6' ? b : a;
      }
      if (b !== undefined) throw new ScenarioError('INVALID_PLACEHOLDER', `${path || 'value'}: ${m} takes one pod (ns/name)`, m, path);
      const ip = ipOf(a, family);
      if (!ip) throw new ScenarioError('UNKNOWN_POD', `${path || 'value'}: {{${kind} ${a}}} names no pod with an${family ? ` ${family}` : ''} address`, a, path);
      return kind === 'podIP' ? ip : `${ip}/${familyOfIp(ip) === 'IPv6' ? 128 : 32}`;
    }) as T;
  if (Array.isArray(o)) {
    const out: unknown[] = [];
    o.forEach((v, i) => {
      const at = `${path}[${i}]`;
      if (family === undefined && families.length > 1 && ownsPlaceholder(v)) for (const f of families) out.push(resolve(v, ipOf, at, families, f));
      else out.push(resolve(v, ipOf, at, families, family));
    });
    return out as T;
  }
  if (typeof o === 'object' && o !== null) return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolve(v, ipOf, path ? `${path}.${k}` : k, families, family)])) as T;
  return o;
}

function matchRef(pattern: string, ref: string): boolean {
  if (pattern === '*') return true;
  const [pn, pp] = pattern.split('/') as [string, string | undefined];
  const [n, p] = ref.split('/') as [string, string];
  return (pn === '*' || pn === n) && (pp === undefined || pp === '*' || pp === p);
}

/** Whether `from -> to` is expected allowed under the overrides (default allowed, later entries win). */
export function expectedAllowed(expect: readonly Expect[], from: string, to: string): boolean {
  let v = true;
  for (const e of expect) if (matchRef(e.from, from) && matchRef(e.to, to)) v = e.allowed;
  return v;
}

/**
 * One cell. `allowed` is the dataplane verdict: from a probe (a real connection), or with
 * `via: 'trace'` from `ovs-appctl ofproto/trace` on the node bridges (no packet sent; SCTP, which
 * this kernel cannot carry). `allowed` is null when neither could judge the cell (`unavailable`
 * says why).
 */
export interface ProbeResult {
  from: string;
  to: string;
  port: number;
  protocol: Protocol;
  sourcePort?: number;
  /** The family probed, on a lab with IPv6 (dual-stack: each cell once per family); absent on an IPv4 lab. */
  ipFamily?: IpFamily;
  allowed: boolean | null;
  /** Set when the verdict comes from ofproto/trace, not from a probe. */
  via?: 'trace';
  unavailable?: string;
  /** Why a probe failed (`timeout`, `ECONNREFUSED`, `closed without answer`, ...). */
  error?: string;
}

/**
 * Cyclonus-style truth table of one probe: rows from, columns to; probed cells `.` allowed, `X`
 * blocked; cells judged by ofproto/trace `o` allowed, `x` blocked; `?` unavailable.
 */
export function formatTruthTable(results: readonly ProbeResult[], pods: readonly string[], sources: readonly string[] = pods): string {
  const cell = new Map(results.map((r) => [`${r.from}>${r.to}`, r]));
  const w = Math.max(...[...pods, ...sources].map((p) => p.length), 1);
  const lines = [`${''.padEnd(w)} ${pods.map((p) => p.padEnd(w)).join(' ')}`];
  for (const f of sources) {
    const row = pods.map((t) => {
      const r = cell.get(`${f}>${t}`);
      const c = r === undefined ? '-' : r.allowed === null ? '?' : r.via === 'trace' ? (r.allowed ? 'o' : 'x') : r.allowed ? '.' : 'X';
      return c.padEnd(w);
    });
    lines.push(`${f.padEnd(w)} ${row.join(' ')}`);
  }
  return lines.join('\n');
}
