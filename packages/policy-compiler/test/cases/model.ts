// The upstream netpol e2e model as plain data: namespaces x, y, z; pods a, b, c; ports 80/81 on TCP/UDP/SCTP.
import type { Namespace, Node, Pod } from '@switchyard/apis';

export const NAMESPACES = ['x', 'y', 'z'] as const;
export const PODS = ['a', 'b', 'c'] as const;
export const NODES = ['node-1', 'node-2'] as const;

/** `ns/pod` strings of the model, in matrix order. */
export const ALL_PODS: string[] = NAMESPACES.flatMap((ns) => PODS.map((p) => `${ns}/${p}`));

/** Pod IP of the model: 10.0.<ns index + 1>.<pod index + 1>. */
export function podIp(ref: string): string {
  const [ns, pod] = ref.split('/') as [string, string];
  return `10.0.${NAMESPACES.indexOf(ns as never) + 1}.${PODS.indexOf(pod as never) + 1}`;
}

export function namespace(name: string, labels: Record<string, string> = {}): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ns: name, ...labels } } };
}

export function pod(ref: string, labels?: Record<string, string>, extra: { serviceAccountName?: string } = {}): Pod {
  const [ns, name] = ref.split('/') as [string, string];
  const ports = [80, 81].flatMap((port) => (['TCP', 'UDP', 'SCTP'] as const).map((protocol) => ({ name: `serve-${port}-${protocol.toLowerCase()}`, containerPort: port, protocol })));
  const idx = ALL_PODS.indexOf(ref);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: labels ?? { pod: name } },
    spec: { nodeName: NODES[idx % NODES.length] as string, containers: [{ name: 'c', ports }], ...extra },
    status: { phase: 'Running', podIP: podIp(ref), podIPs: [{ ip: podIp(ref) }] },
  };
}

export function node(name: string, labels: Record<string, string> = {}, ip = `192.168.0.${NODES.indexOf(name as never) + 1}`): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, status: { addresses: [{ type: 'InternalIP', address: ip }] } };
}

/** The whole model: 3 Namespaces, 9 Pods, 2 Nodes. */
export function baseModel(): (Namespace | Pod | Node)[] {
  return [...NAMESPACES.map((n) => namespace(n)), ...ALL_PODS.map((p) => pod(p)), ...NODES.map((n) => node(n))];
}

/** Overrides of the default (allowed) reachability, applied in order; `*` matches any ns or pod. */
export interface Expect {
  from: string;
  to: string;
  allowed: boolean;
}

/** One probe of a step: protocol/port and the expected matrix as overrides. */
export interface Probe {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  port: number;
  /** Source port of the probe connection (for sourcePort rules). */
  srcPort?: number;
  expect: Expect[];
}

/** One step: objects to create or replace, objects to delete (by kind/ns/name), then probes. */
export interface Step {
  apply?: object[];
  delete?: object[];
  probes: Probe[];
}

/** A named case: steps in order (state accumulates). */
export interface Case {
  name: string;
  steps: Step[];
}

function matchRef(pattern: string, ref: string): boolean {
  const [pn, pp] = pattern === '*' ? ['*', '*'] : (pattern.split('/') as [string, string]);
  const [n, p] = ref.split('/') as [string, string];
  return (pn === '*' || pn === n) && (pp === '*' || pp === p);
}

/** Expected matrix (`from -> to -> allowed`) from overrides. */
export function expectedMatrix(expect: Expect[], pods: string[] = ALL_PODS): Map<string, Map<string, boolean>> {
  const m = new Map<string, Map<string, boolean>>();
  for (const f of pods) {
    const row = new Map<string, boolean>();
    for (const t of pods) {
      let v = true;
      for (const e of expect) if (matchRef(e.from, f) && matchRef(e.to, t)) v = e.allowed;
      row.set(t, v);
    }
    m.set(f, row);
  }
  return m;
}
