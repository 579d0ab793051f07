/**
 * Writes the conformance scenarios (tools/lab/conformance/<suite>/*.yaml) from the policy
 * compiler's case data (packages/policy-compiler/test/cases): the upstream Kubernetes netpol e2e
 * cases, the AdminNetworkPolicy cases and the Antrea tier/priority/baseline cases, each over the
 * x/y/z x a/b/c model. Run `npm run generate:conformance` after the case data changes; a unit test
 * fails while the files are stale.
 *
 * Lab translation of the model: nodes `node-1`/`node-2` become `node1`/`node2`; the model's pod
 * host prefixes (10.0.<ns>.<pod>/32) become `{{podCIDR ns/pod}}` placeholders (the pod's address
 * as /32 or /128 in the family probed); a model namespace subnet (10.0.<ns>.0/24, which holds
 * exactly that namespace's pods) becomes one such placeholder per pod of the namespace (minus
 * `except`ed pods), since lab pod IPs come from node subnets; 10.0.0.0/8, which holds every lab
 * pod, becomes `{{cidr 10.0.0.0/8 fd00::/8}}` (the lab's IPv6 pod subnets are in fd00::/8), so a
 * dual-stack lab probes the same meaning in both families; every pod also
 * serves TCP 8080-8083 (unnamed) for the port-range cases; Services get their ClusterIP from the
 * lab's API server.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { k8sNetpolCases } from '../../../packages/policy-compiler/test/cases/k8s-netpol';
import { adminNetworkPolicyCases } from '../../../packages/policy-compiler/test/cases/admin-network-policy';
import { antreaNativeCases } from '../../../packages/policy-compiler/test/cases/antrea-native';
import { ALL_PODS, NAMESPACES, PODS, baseModel, type Case } from '../../../packages/policy-compiler/test/cases/model';
import { formatScenario, type KubeObject, type Scenario, type Step } from '../src/scenario';

/** The suites and their case lists. */
export const SUITES: Record<string, Case[]> = {
  'k8s-netpol': k8sNetpolCases,
  'admin-network-policy': adminNetworkPolicyCases,
  'antrea-native': antreaNativeCases,
};

/** Extra TCP ports every pod serves (the Antrea port-range case probes 8080-8083). */
export const EXTRA_TCP_PORTS = [8080, 8081, 8082, 8083];

const MODEL_POD_IP = /^10\.0\.(\d+)\.(\d+)$/;
const MODEL_NS_NET = /^10\.0\.(\d+)\.0\/24$/;

function podOfModelIp(ip: string): string | undefined {
  const m = MODEL_POD_IP.exec(ip);
  if (!m) return undefined;
  const ns = NAMESPACES[Number(m[1]) - 1];
  const pod = PODS[Number(m[2]) - 1];
  return ns && pod ? `${ns}/${pod}` : undefined;
}

function nsOfModelNet(cidr: string): string | undefined {
  const m = MODEL_NS_NET.exec(cidr);
  return m ? NAMESPACES[Number(m[1]) - 1] : undefined;
}

/** Every lab pod, in each family: IPv4 pods are in 10.0.0.0/8, IPv6 ones in fd00::/8. */
const ALL_LAB_PODS = '{{cidr 10.0.0.0/8 fd00::/8}}';

/** `10.0.2.2/32` -> `{{podCIDR y/b}}`; `10.0.0.0/8` -> both families' networks of every lab pod. */
function placeholder(cidr: string): string {
  if (cidr === '10.0.0.0/8') return ALL_LAB_PODS;
  const [ip, len] = cidr.split('/') as [string, string | undefined];
  const ref = len === '32' ? podOfModelIp(ip) : undefined;
  return ref ? `{{podCIDR ${ref}}}` : cidr;
}

/** The /32 placeholders of a model namespace subnet, minus the `except`ed model IPs. */
function expandNet(ns: string, except: string[] = []): string[] {
  const skip = new Set(except.map((e) => podOfModelIp(e.split('/')[0] ?? '')));
  return PODS.map((p) => `${ns}/${p}`)
    .filter((ref) => !skip.has(ref))
    .map((ref) => `{{podCIDR ${ref}}}`);
}

/** Rewrites model addresses into lab placeholders (see the file header). */
export function labAddresses(v: unknown): unknown {
  if (typeof v === 'string') return placeholder(v);
  if (Array.isArray(v))
    return v.flatMap((e: unknown) => {
      if (typeof e === 'string' && nsOfModelNet(e)) return expandNet(nsOfModelNet(e)!);
      const o = e as { ipBlock?: { cidr?: string; except?: string[] }; cidr?: string; except?: string[] } | null;
      const peerNs = typeof o?.ipBlock?.cidr === 'string' ? nsOfModelNet(o.ipBlock.cidr) : undefined;
      if (peerNs) return expandNet(peerNs, o!.ipBlock!.except).map((cidr) => ({ ipBlock: { cidr } }));
      const blockNs = typeof o?.cidr === 'string' && Object.keys(o).every((k) => k === 'cidr' || k === 'except') ? nsOfModelNet(o.cidr) : undefined;
      if (blockNs) return expandNet(blockNs, o!.except).map((cidr) => ({ cidr }));
      return [labAddresses(e)];
    });
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, labAddresses(x)]));
  return v;
}

/** A model Pod as the lab runs it: node1/node2, no status, the extra ports. */
function labPod(p: KubeObject): KubeObject {
  const spec = p.spec as { nodeName?: string; containers: { name: string; ports?: object[] }[]; serviceAccountName?: string };
  const nodeName = spec.nodeName?.replace(/^node-(\d+)$/, 'node$1');
  const containers = spec.containers.map((c, i) => (i === 0 ? { ...c, image: 'pod-server', ports: [...(c.ports ?? []), ...EXTRA_TCP_PORTS.map((containerPort) => ({ containerPort, protocol: 'TCP' }))] } : c));
  const { status: _status, ...rest } = p as KubeObject & { status?: unknown };
  return { ...rest, spec: { ...spec, ...(nodeName ? { nodeName } : {}), containers } };
}

function labObject(o: object): KubeObject {
  const k = o as KubeObject;
  if (k.kind === 'Pod') return labPod(k);
  if (k.kind === 'Service') {
    // The lab's API server allocates ClusterIPs (the model's may be taken, e.g. by kube-system's Services).
    const { clusterIP: _ip, clusterIPs: _ips, ...spec } = (k.spec ?? {}) as Record<string, unknown>;
    return { ...k, spec };
  }
  if (k.kind === 'Node') throw new Error('cases may not create Nodes (the lab makes them)');
  const out = labAddresses(k) as KubeObject;
  // 10.0.0.0/8 (the except cases) holds the lab's pods too; anything inside 10.0.<ns>.* would not.
  if (/"10\.0\.[1-9]/.test(JSON.stringify(out))) throw new Error(`${k.kind} ${k.metadata.name}: a model address the lab cannot translate: ${JSON.stringify(k)}`);
  return out;
}

/** The lab scenario of one case: the model (namespaces and pods) in step 1, then the case's steps. */
export function caseScenario(c: Case): Scenario {
  const model = baseModel().filter((o) => o.kind !== 'Node').map((o) => labObject(o));
  const steps: Step[] = c.steps.map((st, i) => ({
    apply: [...(i === 0 ? model : []), ...(st.apply ?? []).map(labObject)],
    delete: (st.delete ?? []).map((o) => {
      const k = o as KubeObject;
      return { apiVersion: k.apiVersion, kind: k.kind, name: k.metadata.name, ...(k.metadata.namespace ? { namespace: k.metadata.namespace } : {}) };
    }),
    probes: st.probes.map((p) => ({ protocol: p.protocol, port: p.port, ...(p.srcPort !== undefined ? { sourcePort: p.srcPort } : {}), expect: p.expect })),
  }));
  return { steps };
}

/** File name of a case: `NN-slug.yaml`. */
export function caseFile(index: number, c: Case): string {
  const slug = c.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 72)
    .replace(/-$/, '');
  return `${String(index + 1).padStart(2, '0')}-${slug}.yaml`;
}

/** Every conformance file: path under conformance/ -> content. */
export function generateConformance(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [suite, cases] of Object.entries(SUITES))
    cases.forEach((c, i) => {
      const header = `# ${c.name}\n# Generated by tools/lab/conformance/generate.ts from packages/policy-compiler/test/cases (suite ${suite}); do not edit.\n# Model: namespaces x, y, z; pods a, b, c (${ALL_PODS.length} pods); run: switchyard-lab probe -f <this file>\n`;
      out.set(`${suite}/${caseFile(i, c)}`, formatScenario(caseScenario(c), header));
    });
  return out;
}

function main(): void {
  const root = join(process.cwd(), 'conformance');
  for (const suite of Object.keys(SUITES)) {
    const dir = join(root, suite);
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir)) if (f.endsWith('.yaml')) rmSync(join(dir, f));
  }
  const files = generateConformance();
  for (const [rel, text] of files) writeFileSync(join(root, rel), text);
  process.stdout.write(`wrote ${files.size} scenarios under ${root}\n`);
}

if (process.argv[1]?.endsWith('generate.ts')) main();
