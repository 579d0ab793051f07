// Antrea-native policy semantics re-created from Antrea's e2e suite (test/e2e/antreapolicy_test.go)
// on the x/y/z model: each case names the behaviour and carries its expected matrix.
import type { AntreaNetworkPolicySpec, ClusterGroup, ClusterNetworkPolicy, AntreaNetworkPolicy, GroupSpec, Rule, Service, Tier, LabelSelector } from '@switchyard/apis';
import { namespace, pod, podIp, type Case, type Expect } from './model';

const NS = 'kubernetes.io/metadata.name';
export function acnp(name: string, spec: Partial<AntreaNetworkPolicySpec> & { priority: number }): ClusterNetworkPolicy {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name }, spec: spec as AntreaNetworkPolicySpec };
}
export function annp(name: string, ns: string, spec: Partial<AntreaNetworkPolicySpec> & { priority: number }): AntreaNetworkPolicy {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec: spec as AntreaNetworkPolicySpec };
}
export function tier(name: string, priority: number): Tier {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier', metadata: { name }, spec: { priority } };
}
export function cg(name: string, spec: GroupSpec): ClusterGroup {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterGroup', metadata: { name }, spec };
}
const nsSel = (n: string): LabelSelector => ({ matchLabels: { [NS]: n } });
const podIn = (n: string, p: string) => ({ namespaceSelector: nsSel(n), podSelector: { matchLabels: { pod: p } } });
const xa = [podIn('x', 'a')];
const fromNs = (n: string): NonNullable<Rule['from']> => [{ namespaceSelector: nsSel(n) }];
const deny = (from: string, to: string): Expect => ({ from, to, allowed: false });
const allow = (from: string, to: string): Expect => ({ from, to, allowed: true });
const tcp = (port: number, expect: Expect[], srcPort?: number) => ({ protocol: 'TCP' as const, port, expect, ...(srcPort !== undefined ? { srcPort } : {}) });
const k8sAllowFrom = (ns: string, target: LabelSelector, from: object[]) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `k8s-allow-${ns}`, namespace: ns }, spec: { podSelector: target, policyTypes: ['Ingress'], ingress: [{ from }] } });

export const antreaNativeCases: Case[] = [
  {
    name: 'priority override: a lower priority number wins within a tier',
    steps: [{ apply: [acnp('allow-xb', { priority: 1, appliedTo: xa, ingress: [{ action: 'Allow', from: [podIn('x', 'b')] }] }), acnp('drop-x', { priority: 2, appliedTo: xa, ingress: [{ action: 'Drop', from: fromNs('x') }] })], probes: [tcp(80, [deny('x/*', 'x/a'), allow('x/b', 'x/a')])] }],
  },
  {
    name: 'tier override: securityops Drop beats application Allow',
    steps: [{ apply: [acnp('drop-y', { tier: 'securityops', priority: 10, appliedTo: xa, ingress: [{ action: 'Drop', from: fromNs('y') }] }), acnp('allow-y', { priority: 1, appliedTo: xa, ingress: [{ action: 'Allow', from: fromNs('y') }] })], probes: [tcp(80, [deny('y/*', 'x/a')])] }],
  },
  {
    name: 'custom tiers: tier 15 evaluated before tier 110',
    steps: [{ apply: [tier('high', 15), tier('low', 110), acnp('allow-z', { tier: 'low', priority: 1, appliedTo: xa, ingress: [{ action: 'Allow', from: fromNs('z') }] }), acnp('drop-z', { tier: 'high', priority: 50, appliedTo: xa, ingress: [{ action: 'Drop', from: fromNs('z') }] })], probes: [tcp(80, [deny('z/*', 'x/a')])] }],
  },
  {
    name: 'baseline tier vs K8s NetworkPolicy: K8s allow and isolation win over baseline',
    steps: [{ apply: [acnp('baseline-drop-x-to-y', { tier: 'baseline', priority: 1, appliedTo: [{ namespaceSelector: nsSel('y') }], ingress: [{ action: 'Drop', from: fromNs('x') }] }), k8sAllowFrom('y', { matchLabels: { pod: 'a' } }, [{ namespaceSelector: nsSel('x') }])], probes: [tcp(80, [deny('x/*', 'y/*'), deny('*', 'y/a'), allow('x/*', 'y/a')])] }],
  },
  {
    name: 'Pass: skips the remaining tiers to K8s NetworkPolicy',
    steps: [
      {
        apply: [acnp('pass-z', { tier: 'securityops', priority: 1, appliedTo: [{ namespaceSelector: nsSel('x') }], ingress: [{ action: 'Pass', from: fromNs('z') }] }), acnp('drop-z', { priority: 1, appliedTo: [{ namespaceSelector: nsSel('x') }], ingress: [{ action: 'Drop', from: fromNs('z') }] })],
        probes: [tcp(80, [])],
      },
      { apply: [k8sAllowFrom('x', {}, [{ namespaceSelector: nsSel('z'), podSelector: { matchLabels: { pod: 'a' } } }])], probes: [tcp(80, [deny('*', 'x/*'), allow('z/a', 'x/*')])] },
    ],
  },
  {
    name: 'Reject: the flow is refused',
    steps: [{ apply: [acnp('reject-x-to-ya', { priority: 1, appliedTo: [podIn('y', 'a')], ingress: [{ action: 'Reject', from: fromNs('x') }] })], probes: [tcp(80, [deny('x/*', 'y/a')])] }],
  },
  {
    name: 'Drop egress: x/a may not reach z',
    steps: [{ apply: [acnp('drop-egress-xa-z', { priority: 1, appliedTo: xa, egress: [{ action: 'Drop', to: fromNs('z') }] })], probes: [tcp(80, [deny('x/a', 'z/*')])] }],
  },
  {
    name: 'ipBlock with except',
    steps: [{ apply: [acnp('drop-y-but-b', { priority: 1, appliedTo: xa, egress: [{ action: 'Drop', to: [{ ipBlock: { cidr: '10.0.2.0/24', except: [`${podIp('y/b')}/32`] } as never }] }] })], probes: [tcp(80, [deny('x/a', 'y/*'), allow('x/a', 'y/b')])] }],
  },
  {
    name: 'port ranges: endPort covers 80-81',
    steps: [{ apply: [acnp('drop-range', { priority: 1, appliedTo: xa, ingress: [{ action: 'Drop', from: fromNs('y'), ports: [{ protocol: 'TCP', port: 80, endPort: 81 }] }] })], probes: [tcp(80, [deny('y/*', 'x/a')]), tcp(81, [deny('y/*', 'x/a')])] }],
  },
  {
    name: 'source ports: sourcePort..sourceEndPort',
    steps: [{ apply: [acnp('drop-src-range', { priority: 1, appliedTo: xa, ingress: [{ action: 'Drop', from: fromNs('y'), ports: [{ protocol: 'TCP', sourcePort: 10000, sourceEndPort: 20000 }] }] })], probes: [tcp(80, [deny('y/*', 'x/a')], 12345), tcp(80, [], 30000)] }],
  },
  {
    name: 'namespaces match Self: only same-Namespace traffic',
    steps: [
      {
        apply: [acnp('self', { priority: 1, appliedTo: [{ namespaceSelector: {} }], ingress: [{ action: 'Allow', from: [{ namespaces: { match: 'Self' } }] }, { action: 'Drop', from: [{ namespaceSelector: {} }] }] })],
        probes: [tcp(80, [deny('*', '*'), allow('x/*', 'x/*'), allow('y/*', 'y/*'), allow('z/*', 'z/*')])],
      },
    ],
  },
  {
    name: 'namespaces sameLabels: Namespaces sharing org talk',
    steps: [
      {
        apply: [namespace('x', { org: 'a' }), namespace('y', { org: 'a' }), namespace('z', { org: 'b' }), acnp('same-org', { priority: 1, appliedTo: [{ namespaceSelector: {} }], ingress: [{ action: 'Allow', from: [{ namespaces: { sameLabels: ['org'] } }] }, { action: 'Drop', from: [{ namespaceSelector: {} }] }] })],
        probes: [tcp(80, [deny('*', '*'), allow('x/*', 'x/*'), allow('x/*', 'y/*'), allow('y/*', 'x/*'), allow('y/*', 'y/*'), allow('z/*', 'z/*')])],
      },
      { apply: [namespace('z', { org: 'a' })], probes: [tcp(80, [])] },
    ],
  },
  {
    name: 'ClusterGroup nesting: childGroups with selectors and ipBlocks',
    steps: [
      {
        apply: [cg('child-xb', { namespaceSelector: nsSel('x'), podSelector: { matchLabels: { pod: 'b' } } }), cg('child-zc', { ipBlocks: [{ cidr: `${podIp('z/c')}/32` }] }), cg('parent', { childGroups: ['child-xb', 'child-zc'] }), acnp('drop-parent', { priority: 1, appliedTo: xa, ingress: [{ action: 'Drop', from: [{ group: 'parent' }] }] })],
        probes: [tcp(80, [deny('x/b', 'x/a'), deny('z/c', 'x/a')])],
      },
      { apply: [cg('child-xb', { namespaceSelector: nsSel('x'), podSelector: { matchLabels: { pod: 'c' } } })], probes: [tcp(80, [deny('x/c', 'x/a'), deny('z/c', 'x/a')])] },
    ],
  },
  {
    name: 'ClusterGroup ipBlocks as egress peer and as appliedTo',
    steps: [{ apply: [cg('net-y', { ipBlocks: [{ cidr: '10.0.2.0/24' }] }), cg('pods-xa', { namespaceSelector: nsSel('x'), podSelector: { matchLabels: { pod: 'a' } } }), acnp('drop-to-y', { priority: 1, appliedTo: [{ group: 'pods-xa' }], egress: [{ action: 'Drop', to: [{ group: 'net-y' }] }] })], probes: [tcp(80, [deny('x/a', 'y/*')])] }],
  },
  {
    name: 'toServices: egress Drop to a Service',
    steps: [
      {
        apply: [
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-ya', namespace: 'y' }, spec: { selector: { pod: 'a' }, clusterIP: '10.96.0.10', ports: [{ port: 80 }] } } as Service,
          acnp('drop-svc', { priority: 1, appliedTo: [{ namespaceSelector: nsSel('x') }], egress: [{ action: 'Drop', toServices: [{ name: 'svc-ya', namespace: 'y' }] }] }),
        ],
        probes: [tcp(80, [deny('x/*', 'y/a')])],
      },
    ],
  },
  {
    name: 'serviceAccount: appliedTo pods running as a ServiceAccount',
    steps: [{ apply: [pod('x/a', undefined, { serviceAccountName: 'sa-a' }), pod('z/c', undefined, { serviceAccountName: 'sa-a' }), acnp('drop-sa', { priority: 1, appliedTo: [{ serviceAccount: { name: 'sa-a', namespace: 'x' } }], ingress: [{ action: 'Drop', from: fromNs('y') }] })], probes: [tcp(80, [deny('y/*', 'x/a')])] }],
  },
  {
    name: 'Antrea NetworkPolicy: namespaced podSelector peers stay in the policy Namespace',
    steps: [{ apply: [annp('drop-b', 'x', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] })], probes: [tcp(80, [deny('x/b', 'x/*')])] }],
  },
  {
    name: 'rule-level appliedTo',
    steps: [{ apply: [acnp('per-rule', { priority: 1, ingress: [{ action: 'Drop', from: fromNs('y'), appliedTo: xa }, { action: 'Drop', from: fromNs('z'), appliedTo: [podIn('y', 'a')] }] })], probes: [tcp(80, [deny('y/*', 'x/a'), deny('z/*', 'y/a')])] }],
  },
];
