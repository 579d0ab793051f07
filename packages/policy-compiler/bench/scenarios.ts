// The controller-scale scenarios' objects, shared by bench/run.ts and bench/dual-stack.ts.
import { canonicalIp } from '@switchyard/apis/types';
import type { ClusterObject } from '../src/index';

export const ns = (name: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
/** A running pod on `node`; with `v6`, dual-stack (IPv4 primary, as a dual-stack cluster configured IPv4-first gives it). */
export const pod = (n: string, name: string, labels: Record<string, string>, node: string, ip: string, v6?: string): ClusterObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: n, labels },
  spec: { nodeName: node, containers: [{ name: 'c' }] },
  status: { podIP: ip, podIPs: v6 === undefined ? [{ ip }] : [{ ip }, { ip: v6 }] },
});
export const np = (n: string, name: string, sel: Record<string, string>, from: Record<string, string> | undefined): ClusterObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: n }, spec: { podSelector: { matchLabels: sel }, policyTypes: ['Ingress'], ingress: from ? [{ from: [{ podSelector: { matchLabels: from } }] }] : [] } });
export const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
/** The IPv6 address of pod number `i`, in RFC 5952 form as kubelet reports it (`fd00:10::5`, `fd00:10:1::`). */
export const ip6 = (i: number): string => canonicalIp(`fd00:10:${((i >> 16) & 0xffff).toString(16)}::${(i & 0xffff).toString(16)}`) as string;

/** Which pods get an IPv6 address too (by pod number): none for IPv4-only, every other one for half dual-stack. */
export type DualStack = (k: number) => boolean;
const IPV4_ONLY: DualStack = () => false;
const v6Of = (dual: DualStack, k: number): string | undefined => (dual(k) ? ip6(k) : undefined);

/** Scenario 1: 25k namespaces, 100k pods, 75k NPs (3 NPs + 4 pods per namespace, 1,000 nodes). */
export function scenario1(dual: DualStack = IPV4_ONLY): ClusterObject[] {
  const out: ClusterObject[] = [];
  let k = 0;
  for (let i = 0; i < 25_000; i++) {
    const n = `ns-${i}`;
    out.push(ns(n));
    for (let j = 0; j < 4; j++, k++) out.push(pod(n, `p${j}`, { app: `a${j % 2}`, tier: `t${j}` }, `node-${k % 1000}`, ip(k), v6Of(dual, k)));
    out.push(np(n, 'np0', { app: 'a0' }, { app: 'a1' }), np(n, 'np1', { app: 'a1' }, { tier: 't0' }), np(n, 'np2', { tier: 't3' }, undefined));
  }
  return out;
}

/** `n` pods in Namespace `big` on 100 nodes (scenarios 2, 3, 5, 6). */
export const podsOneNs = (n: number, dual: DualStack = IPV4_ONLY): ClusterObject[] => Array.from({ length: n }, (_, i) => pod('big', `p${i}`, { app: 'web', id: `i${i}` }, `node-${i % 100}`, ip(i), v6Of(dual, i)));

/** Scenario 2: 1 namespace, 10k pods, 10k NPs each selecting every pod. */
export function scenario2(dual: DualStack = IPV4_ONLY): ClusterObject[] {
  return [ns('big'), ...podsOneNs(10_000, dual), ...Array.from({ length: 10_000 }, (_, i) => np('big', `np${i}`, {}, undefined))];
}

/** Scenario 3: 1 namespace, 10k pods, one NP per pod (also the input of scenario 6). */
export function scenario3(dual: DualStack = IPV4_ONLY): ClusterObject[] {
  return [ns('big'), ...podsOneNs(10_000, dual), ...Array.from({ length: 10_000 }, (_, i) => np('big', `np${i}`, { id: `i${i}` }, { app: 'web' }))];
}

/** Scenario 4: 100 namespaces x (deny-all + 100 NPs, 1,000 pods). */
export function scenario4(dual: DualStack = IPV4_ONLY): ClusterObject[] {
  const out: ClusterObject[] = [];
  let c = 0;
  for (let i = 0; i < 100; i++) {
    const n = `n${i}`;
    out.push(ns(n));
    for (let j = 0; j < 1000; j++, c++) out.push(pod(n, `p${j}`, { app: `a${j % 100}` }, `node-${c % 100}`, ip(c), v6Of(dual, c)));
    out.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-all', namespace: n }, spec: { podSelector: {}, policyTypes: ['Ingress'] } });
    for (let j = 0; j < 100; j++) out.push(np(n, `np${j}`, { app: `a${j}` }, { app: `a${(j + 1) % 100}` }));
  }
  return out;
}
