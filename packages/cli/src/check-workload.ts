// The test workload of `yardctl check installation`: its namespace, a client pod, an echo pod per
// node and two ClusterIP Services, as manifests; and which nodes it can use. Pure.

/** agnhost: `pause` for the client, `netexec` for the echo servers, `connect` for the probes (as Antrea's check). */
export const DEFAULT_TEST_IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.52';
export const ECHO_PORT = 80;
const LABELS = { 'app.kubernetes.io/name': 'yardctl-check', 'app.kubernetes.io/component': 'installation-checker' };
const CONTROL_PLANE_TAINTS = new Set(['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master']);

export interface NodeView {
  metadata: { name: string };
  spec?: { unschedulable?: boolean; taints?: { key: string; effect: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Nodes a test pod can run on: Ready, schedulable, no taint but the control plane's; sorted by name. */
export function usableNodes(nodes: readonly NodeView[]): string[] {
  return nodes
    .filter((n) => !n.spec?.unschedulable)
    .filter((n) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'))
    .filter((n) => (n.spec?.taints ?? []).every((t) => t.effect === 'PreferNoSchedule' || CONTROL_PLANE_TAINTS.has(t.key)))
    .map((n) => n.metadata.name)
    .sort();
}

/** One pod of the workload. */
export interface TestPod {
  name: string;
  node: string;
  role: 'client' | 'echo';
}

/** The workload's plan: the client on the first node, an echo server on every node. */
export interface WorkloadPlan {
  client: TestPod;
  /** The echo on the client's node. */
  sameNode: TestPod;
  /** Echoes on the other nodes (empty on a one-node cluster). */
  otherNodes: TestPod[];
}

export function planWorkload(nodes: readonly string[]): WorkloadPlan {
  const first = nodes[0];
  if (first === undefined) throw new Error('no node to run test pods on');
  const echo = (node: string, i: number): TestPod => ({ name: `echo-${i}`, node, role: 'echo' });
  return { client: { name: 'client', node: first, role: 'client' }, sameNode: echo(first, 0), otherNodes: nodes.slice(1).map((n, i) => echo(n, i + 1)) };
}

export function namespaceManifest(name: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: LABELS } };
}

export function podManifest(p: TestPod, image: string): Record<string, unknown> {
  const container = p.role === 'client'
    ? { name: 'client', image, command: ['/agnhost', 'pause'] }
    : { name: 'echo', image, command: ['/agnhost', 'netexec', `--http-port=${ECHO_PORT}`], ports: [{ name: 'http', containerPort: ECHO_PORT, protocol: 'TCP' }] };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, labels: { ...LABELS, 'yardctl-check/role': p.role, 'yardctl-check/pod': p.name } },
    spec: {
      nodeName: p.node,
      containers: [container],
      terminationGracePeriodSeconds: 0,
      tolerations: [...CONTROL_PLANE_TAINTS].map((key) => ({ key, operator: 'Exists', effect: 'NoSchedule' })),
    },
  };
}

/** A ClusterIP Service on port 80 in front of one echo pod. */
export function serviceManifest(name: string, echo: TestPod): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: LABELS },
    spec: { type: 'ClusterIP', selector: { 'yardctl-check/pod': echo.name }, ports: [{ name: 'http', port: ECHO_PORT, protocol: 'TCP', targetPort: 'http' }] },
  };
}

export const DENY_ALL_POLICY = 'ingress-deny-all';

/** A NetworkPolicy isolating every echo pod for ingress with no rule: nothing may connect to them. */
export function denyAllIngressManifest(): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: DENY_ALL_POLICY, labels: LABELS },
    spec: { podSelector: { matchLabels: { 'yardctl-check/role': 'echo' } }, policyTypes: ['Ingress'] },
  };
}

/** A random test namespace name, `yardctl-check-xxxxx`. */
export function generatedNamespace(random: () => number = Math.random): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return `yardctl-check-${Array.from({ length: 5 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')}`;
}
