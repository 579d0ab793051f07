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

// Building blocks of the priority/tier override cases (Antrea's builder1..3): x/a or x are applied-to,
// z (or z/b) the source, TCP 80.
const nsLabel = (n: string): LabelSelector => ({ matchLabels: { ns: n } });
const p80 = [{ protocol: 'TCP' as const, port: 80 }];
const xaByNs = [{ podSelector: { matchLabels: { pod: 'a' } }, namespaceSelector: nsLabel('x') }];
type Placement = { tier?: string; priority: number };
const prio1DropZb = (name: string, at: Placement) => acnp(name, { ...at, appliedTo: xaByNs, ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { pod: 'b' } }, namespaceSelector: nsLabel('z') }], ports: p80 }] });
const prio2AllowZ = (name: string, at: Placement) => acnp(name, { ...at, appliedTo: xaByNs, ingress: [{ action: 'Allow', from: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] });
const prio3Drop = (name: string, at: Placement) => acnp(name, { ...at, appliedTo: [{ namespaceSelector: nsLabel('x') }], ingress: [{ action: 'Drop', from: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] });
const zToXbc = [deny('z/*', 'x/b'), deny('z/*', 'x/c')];

export const antreaNativeCases: Case[] = [
  // The next cases transcribe Antrea's e2e tests of the same name (antreapolicy_test.go; its
  // Namespaces carry `ns: <name>` as ours do) with their reachability matrices; Antrea runs the
  // "Intermediate" and "All" variants as two cases, here they are two cumulative steps.
  {
    name: 'priority override (testACNPPriorityOverride): a lower priority number wins within a tier',
    steps: [
      { apply: [prio3Drop('acnp-priority3', { priority: 1.003 }), prio2AllowZ('acnp-priority2', { priority: 1.002 })], probes: [tcp(80, zToXbc)] },
      { apply: [prio1DropZb('acnp-priority1', { priority: 1.001 })], probes: [tcp(80, [...zToXbc, deny('z/b', 'x/a')])] },
    ],
  },
  {
    name: 'tier override (testACNPTierOverride): emergency, then securityops, then application',
    steps: [
      { apply: [prio3Drop('acnp-tier-application', { tier: 'application', priority: 1 }), prio2AllowZ('acnp-tier-securityops', { tier: 'securityops', priority: 10 })], probes: [tcp(80, zToXbc)] },
      { apply: [prio1DropZb('acnp-tier-emergency', { tier: 'emergency', priority: 100 })], probes: [tcp(80, [...zToXbc, deny('z/b', 'x/a')])] },
    ],
  },
  {
    name: 'custom tiers (testACNPCustomTiers): tier 245 is evaluated before tier 246',
    steps: [{ apply: [tier('high-priority', 245), tier('low-priority', 246), prio3Drop('acnp-tier-low', { tier: 'low-priority', priority: 1 }), prio2AllowZ('acnp-tier-high', { tier: 'high-priority', priority: 100 })], probes: [tcp(80, zToXbc)] }],
  },
  {
    name: 'conflicting rules (testACNPPriorityConflictingRule): the higher-priority policy prevails',
    steps: [
      {
        apply: [
          acnp('acnp-drop', { priority: 1, appliedTo: [{ namespaceSelector: nsLabel('x') }], ingress: [{ action: 'Drop', from: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] }),
          acnp('acnp-allow', { priority: 2, appliedTo: [{ namespaceSelector: nsLabel('x') }], ingress: [{ action: 'Allow', from: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] }),
        ],
        probes: [tcp(80, [deny('z/*', 'x/*')])],
      },
    ],
  },
  {
    name: 'rule priority (testACNPRulePriority): at equal policy priority, rule order decides across policies',
    steps: [
      {
        apply: [
          acnp('acnp-allow', { priority: 5, appliedTo: [{ namespaceSelector: nsLabel('x') }], egress: [{ action: 'Allow', to: [{ namespaceSelector: nsLabel('z') }], ports: p80 }, { action: 'Allow', to: [{ namespaceSelector: nsLabel('y') }], ports: p80 }] }),
          acnp('acnp-deny', { priority: 5, appliedTo: [{ namespaceSelector: nsLabel('x') }], egress: [{ action: 'Drop', to: [{ namespaceSelector: nsLabel('y') }], ports: p80 }, { action: 'Drop', to: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] }),
        ],
        probes: [tcp(80, [deny('x/*', 'y/*')])],
      },
    ],
  },
  {
    name: 'baseline namespace isolation (testBaselineNamespaceIsolation): a K8s NetworkPolicy opens what baseline drops',
    steps: [
      {
        apply: [
          acnp('acnp-baseline-isolate-ns-x', { tier: 'baseline', priority: 1, appliedTo: [{ namespaceSelector: nsLabel('x') }], ingress: [{ action: 'Drop', from: [{ namespaceSelector: { matchExpressions: [{ key: 'ns', operator: 'NotIn', values: ['x'] }] } }], ports: p80 }] }),
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            metadata: { name: 'allow-ns-x-and-y-a', namespace: 'x' },
            spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: nsLabel('x') }], ports: p80 }, { from: [{ podSelector: { matchLabels: { pod: 'a' } }, namespaceSelector: nsLabel('y') }], ports: p80 }] },
          },
        ],
        probes: [tcp(80, [deny('y/b', 'x/*'), deny('y/c', 'x/*'), deny('z/*', 'x/*')])],
      },
    ],
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
    name: 'Reject egress (testACNPRejectEgress): pods a may not reach Namespace z',
    steps: [{ apply: [acnp('acnp-reject-a-to-z-egress', { priority: 1, appliedTo: [{ podSelector: { matchLabels: { pod: 'a' } } }], egress: [{ action: 'Reject', to: [{ namespaceSelector: nsLabel('z') }], ports: p80 }] })], probes: [tcp(80, [deny('*/a', 'z/*')])] }],
  },
  {
    name: 'Drop egress: x/a may not reach z',
    steps: [{ apply: [acnp('drop-egress-xa-z', { priority: 1, appliedTo: xa, egress: [{ action: 'Drop', to: fromNs('z') }] })], probes: [tcp(80, [deny('x/a', 'z/*')])] }],
  },
  {
    name: 'ipBlock with except',
    steps: [{ apply: [acnp('drop-y-but-b', { priority: 1, appliedTo: xa, egress: [{ action: 'Drop', to: [{ ipBlock: { cidr: '10.0.2.0/24', except: [`${podIp('y/b')}/32`] } }] }] })], probes: [tcp(80, [deny('x/a', 'y/*'), allow('x/a', 'y/b')])] }],
  },
  {
    name: 'port ranges (testACNPPortRange): egress Drop on 8080-8082 from pods a to Namespace z',
    steps: [
      {
        apply: [acnp('acnp-deny-a-to-z-egress-port-range', { priority: 1, appliedTo: [{ podSelector: { matchLabels: { pod: 'a' } } }], egress: [{ action: 'Drop', name: 'acnp-port-range', to: [{ namespaceSelector: nsLabel('z') }], ports: [{ protocol: 'TCP', port: 8080, endPort: 8082 }] }] })],
        probes: [8080, 8081, 8082].map((port) => tcp(port, [deny('*/a', 'z/*')])).concat([tcp(8083, []), tcp(80, [])]),
      },
    ],
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
    // toServices matches traffic addressed to the Service (ClusterIP and port, before DNAT), as in
    // Antrea; the pod-to-pod probes of this model reach y/a by its pod IP, which the rule does not
    // match, so every cell stays allowed. The model cannot probe a ClusterIP: the Drop of x/* ->
    // svc-ya's ClusterIP is asserted by explain() in antrea-and-admin-policy.test.ts.
    name: 'toServices: egress Drop to a Service',
    steps: [
      {
        apply: [
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-ya', namespace: 'y' }, spec: { selector: { pod: 'a' }, clusterIP: '10.96.0.10', ports: [{ port: 80 }] } } as Service,
          acnp('drop-svc', { priority: 1, appliedTo: [{ namespaceSelector: nsSel('x') }], egress: [{ action: 'Drop', toServices: [{ name: 'svc-ya', namespace: 'y' }] }] }),
        ],
        probes: [tcp(80, [allow('x/*', 'y/a')])],
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
