// Kubernetes upstream netpol e2e cases (test/e2e/network/netpol/network_policy.go), re-expressed as
// data over the full x/y/z x a/b/c model. Expectations follow the upstream reachability calls.
import type { K8sNetworkPolicy, LabelSelector, NetworkPolicyEgressRule, NetworkPolicyIngressRule, PolicyType } from '@switchyard/apis';
import { namespace, pod, podIp, type Case, type Expect, type Probe } from './model';

const NS_LABEL = 'kubernetes.io/metadata.name';

function np(name: string, ns: string, podSelector: LabelSelector, spec: { ingress?: NetworkPolicyIngressRule[]; egress?: NetworkPolicyEgressRule[]; policyTypes?: PolicyType[] }): K8sNetworkPolicy {
  // Like upstream's SetSpecIngressRules/SetSpecEgressRules: each rule list also sets its policy type.
  const policyTypes = spec.policyTypes ?? [...(spec.ingress ? ['Ingress' as const] : []), ...(spec.egress ? ['Egress' as const] : [])];
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec: { podSelector, ...spec, ...(policyTypes.length > 0 ? { policyTypes } : {}) } };
}
const pa = { matchLabels: { pod: 'a' } };
const deny = (from: string, to: string): Expect => ({ from, to, allowed: false });
const allow = (from: string, to: string): Expect => ({ from, to, allowed: true });
const tcp = (port: number, expect: Expect[]) => ({ protocol: 'TCP' as const, port, expect });
const udp = (port: number, expect: Expect[]) => ({ protocol: 'UDP' as const, port, expect });
const sctp = (port: number, expect: Expect[]) => ({ protocol: 'SCTP' as const, port, expect });
const ingressOnly: PolicyType[] = ['Ingress'];
const both: PolicyType[] = ['Ingress', 'Egress'];
const egressOnly: PolicyType[] = ['Egress'];
const nsY = { matchLabels: { [NS_LABEL]: 'y' } };

function portsCases(proto: 'TCP' | 'UDP' | 'SCTP', probe: (port: number, expect: Expect[]) => Probe): Case[] {
  const p = proto.toLowerCase();
  return [
    {
      name: `[${p}] should support a 'default-deny-ingress' policy`,
      steps: [{ apply: [np('deny-ingress', 'x', {}, { policyTypes: ingressOnly })], probes: [probe(80, [deny('*', 'x/*')])] }],
    },
    {
      name: `[${p}] should enforce policy based on Ports`,
      steps: [{ apply: [np('allow-81', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }], ports: [{ port: 81, protocol: proto }] }] })], probes: [probe(81, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])] }],
    },
    {
      name: `[${p}] should enforce policy to allow traffic only from a pod in a different namespace based on PodSelector and NamespaceSelector`,
      steps: [{ apply: [np('allow-y-a', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY, podSelector: pa }] }] })], probes: [probe(80, [deny('*', 'x/a'), allow('y/a', 'x/a')])] }],
    },
  ];
}

/** The upstream cases, one entry per `It`, multi-step where upstream changes the cluster mid-test. */
export const k8sNetpolCases: Case[] = [
  ...portsCases('TCP', tcp).slice(0, 1),
  {
    name: "should support a 'default-deny-all' policy",
    steps: [{ apply: [np('deny-all', 'x', {}, { policyTypes: both })], probes: [tcp(80, [deny('*', 'x/*'), deny('x/*', '*')])] }],
  },
  {
    name: 'should enforce policy to allow traffic from pods within server namespace based on PodSelector',
    steps: [{ apply: [np('x-a-allows-x-b', 'x', pa, { ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] })], probes: [tcp(80, [deny('*', 'x/a'), allow('x/b', 'x/a')])] }],
  },
  {
    name: 'should enforce policy to allow ingress traffic for a target',
    steps: [
      {
        apply: [np('deny-all', 'x', {}, { policyTypes: ingressOnly }), np('allow-all-to-a', 'x', pa, { ingress: [{ from: [{ podSelector: {}, namespaceSelector: {} }] }] })],
        probes: [tcp(80, [deny('*', 'x/*'), allow('*', 'x/a')])],
      },
    ],
  },
  {
    name: 'should enforce policy to allow ingress traffic from pods in all namespaces',
    steps: [{ apply: [np('allow-from-another-ns', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchLabels: {} } }] }] })], probes: [tcp(80, [])] }],
  },
  {
    name: 'should enforce policy to allow traffic only from a different namespace, based on NamespaceSelector',
    steps: [{ apply: [np('allow-client-a-via-ns-selector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }] }] })], probes: [tcp(80, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])] }],
  },
  {
    name: 'should enforce policy based on PodSelector with MatchExpressions',
    steps: [{ apply: [np('x-a-allows-x-b', 'x', pa, { ingress: [{ from: [{ podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['b'] }] } }] }] })], probes: [tcp(80, [deny('*', 'x/a'), allow('x/b', 'x/a')])] }],
  },
  {
    name: 'should enforce policy based on NamespaceSelector with MatchExpressions',
    steps: [{ apply: [np('allow-ns-y-match-selector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: NS_LABEL, operator: 'In', values: ['y'] }] } }] }] })], probes: [tcp(80, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])] }],
  },
  {
    name: 'should enforce policy based on PodSelector or NamespaceSelector',
    steps: [
      {
        apply: [np('allow-ns-y-match-selector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: NS_LABEL, operator: 'NotIn', values: ['x'] }] } }, { podSelector: { matchLabels: { pod: 'b' } } }] }] })],
        probes: [tcp(80, [deny('x/a', 'x/a'), deny('x/c', 'x/a')])],
      },
    ],
  },
  {
    name: 'should enforce policy based on PodSelector and NamespaceSelector',
    steps: [
      {
        apply: [np('allow-ns-y-podselector-and-nsselector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: NS_LABEL, operator: 'NotIn', values: ['x'] }] }, podSelector: { matchLabels: { pod: 'b' } } }] }] })],
        probes: [tcp(80, [deny('*', 'x/a'), allow('y/b', 'x/a'), allow('z/b', 'x/a')])],
      },
    ],
  },
  {
    name: 'should enforce policy based on Multiple PodSelectors and NamespaceSelectors',
    steps: [
      {
        apply: [np('allow-ns-y-z-pod-b-c', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: NS_LABEL, operator: 'NotIn', values: ['x'] }] }, podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['b', 'c'] }] } }] }] })],
        probes: [tcp(80, [deny('x/*', 'x/a'), deny('y/a', 'x/a'), deny('z/a', 'x/a')])],
      },
    ],
  },
  {
    name: 'should enforce policy based on any PodSelectors',
    steps: [{ apply: [np('allow-ns-x-pod-b-c', 'x', pa, { ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }, { podSelector: { matchLabels: { pod: 'c' } } }] }] })], probes: [tcp(80, [deny('*', 'x/a'), allow('x/b', 'x/a'), allow('x/c', 'x/a')])] }],
  },
  ...portsCases('TCP', tcp).slice(2),
  ...portsCases('TCP', tcp).slice(1, 2).map((c) => ({ ...c, steps: [{ ...(c.steps[0] as Case['steps'][0]), probes: [tcp(81, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])] }] })),
  {
    name: 'should enforce multiple, stacked policies with overlapping podSelectors',
    steps: [
      {
        apply: [np('allow-client-a-via-ns-selector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }], ports: [{ port: 81, protocol: 'TCP' }] }] })],
        probes: [tcp(81, [deny('x/*', 'x/a'), deny('z/*', 'x/a')]), tcp(80, [deny('*', 'x/a')])],
      },
      {
        apply: [np('allow-client-a-via-ns-selector-80', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }], ports: [{ port: 80, protocol: 'TCP' }] }] })],
        probes: [tcp(80, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])],
      },
    ],
  },
  {
    name: 'should support allow-all policy',
    steps: [{ apply: [np('allow-all', 'x', {}, { ingress: [{}] })], probes: [tcp(80, []), tcp(81, [])] }],
  },
  {
    name: 'should allow ingress access on one named port',
    steps: [{ apply: [np('allow-all', 'x', {}, { ingress: [{ ports: [{ port: 'serve-81-tcp' }] }] })], probes: [tcp(81, []), tcp(80, [deny('*', 'x/*')])] }],
  },
  {
    name: 'should allow ingress access from namespace on one named port',
    steps: [
      {
        apply: [np('allow-client-a-via-ns-selector-80', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }], ports: [{ port: 'serve-80-tcp', protocol: 'TCP' }] }] })],
        probes: [tcp(80, [deny('x/*', 'x/a'), deny('z/*', 'x/a')]), tcp(81, [deny('*', 'x/a')])],
      },
    ],
  },
  {
    name: 'should allow egress access on one named port',
    steps: [{ apply: [np('allow-egress', 'x', {}, { egress: [{ ports: [{ port: 'serve-80-tcp' }] }] })], probes: [tcp(80, []), tcp(81, [deny('x/*', '*')])] }],
  },
  {
    name: 'should enforce updated policy',
    steps: [
      { apply: [np('allow-all-mutate-to-deny-all', 'x', {}, { ingress: [{}] })], probes: [tcp(81, [])] },
      { apply: [np('allow-all-mutate-to-deny-all', 'x', {}, { ingress: [] })], probes: [tcp(81, [deny('*', 'x/*')])] },
    ],
  },
  {
    name: 'should allow ingress access from updated namespace',
    steps: [
      { apply: [np('allow-client-a-via-ns-selector', 'x', pa, { ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns2: 'updated' } } }] }] })], probes: [tcp(80, [deny('*', 'x/a')])] },
      { apply: [namespace('y', { ns2: 'updated' })], probes: [tcp(80, [deny('*', 'x/a'), allow('y/*', '*')])] },
    ],
  },
  {
    name: 'should allow ingress access from updated pod',
    steps: [
      { apply: [np('allow-client-a-via-pod-selector', 'x', pa, { ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b', pod2: 'updated' } } }] }] })], probes: [tcp(80, [deny('*', 'x/a')])] },
      { apply: [pod('x/b', { pod: 'b', pod2: 'updated' })], probes: [tcp(80, [deny('*', 'x/a'), allow('x/b', 'x/a')])] },
    ],
  },
  {
    name: 'should deny ingress from pods on other namespaces',
    steps: [{ apply: [np('deny-empty-policy', 'x', {}, { ingress: [{ from: [{ podSelector: { matchLabels: {} } }] }] })], probes: [tcp(80, [deny('y/*', 'x/*'), deny('z/*', 'x/*')])] }],
  },
  {
    name: 'should deny ingress access to updated pod',
    steps: [
      { apply: [np('deny-ingress-via-label-selector', 'x', { matchLabels: { target: 'isolated' } }, { policyTypes: ingressOnly })], probes: [tcp(80, [])] },
      { apply: [pod('x/a', { pod: 'a', target: 'isolated' })], probes: [tcp(80, [deny('*', 'x/a')])] },
    ],
  },
  {
    name: 'should deny egress from pods based on PodSelector',
    steps: [{ apply: [np('deny-egress-pod-a', 'x', pa, { policyTypes: egressOnly })], probes: [tcp(80, [deny('x/a', '*')])] }],
  },
  {
    name: 'should deny egress from all pods in a namespace',
    steps: [{ apply: [np('deny-egress-ns-x', 'x', {}, { policyTypes: egressOnly })], probes: [tcp(80, [deny('x/*', '*')])] }],
  },
  {
    name: 'should work with Ingress, Egress specified together',
    steps: [
      {
        apply: [np('allow-client-a-via-pod-selector', 'x', pa, { ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }], egress: [{ ports: [{ port: 80 }] }], policyTypes: ['Egress', 'Ingress'] })],
        probes: [tcp(80, [deny('*', 'x/a'), allow('x/b', 'x/a')]), tcp(81, [deny('*', 'x/a'), deny('x/a', '*'), allow('x/b', 'x/a')])],
      },
    ],
  },
  {
    name: 'should support denying of egress traffic on the client side (even if the server explicitly allows this traffic)',
    steps: [
      {
        apply: [
          np('allow-to-ns-y-pod-a', 'x', pa, { egress: [{ to: [{ namespaceSelector: nsY, podSelector: pa }] }] }),
          np('allow-from-xa-on-ya-match-selector', 'y', pa, { ingress: [{ from: [{ namespaceSelector: { matchLabels: { [NS_LABEL]: 'x' } }, podSelector: pa }] }] }),
          np('allow-from-xa-on-yb-match-selector', 'y', { matchLabels: { pod: 'b' } }, { ingress: [{ from: [{ namespaceSelector: { matchLabels: { [NS_LABEL]: 'x' } }, podSelector: pa }] }] }),
        ],
        probes: [tcp(80, [deny('x/a', '*'), deny('*', 'y/a'), allow('x/a', 'y/a'), deny('*', 'y/b')])],
      },
    ],
  },
  {
    name: 'should enforce egress policy allowing traffic to a server in a different namespace based on PodSelector and NamespaceSelector',
    steps: [{ apply: [np('allow-to-ns-y-pod-a', 'x', pa, { egress: [{ to: [{ namespaceSelector: nsY, podSelector: pa }] }] })], probes: [tcp(80, [deny('x/a', '*'), allow('x/a', 'y/a')])] }],
  },
  {
    name: 'should enforce ingress policy allowing any port traffic to a server on a specific protocol',
    steps: [{ apply: [np('allow-ingress-by-proto', 'x', pa, { ingress: [{ ports: [{ protocol: 'TCP' }] }] })], probes: [tcp(80, []), udp(80, [deny('*', 'x/a')])] }],
  },
  {
    name: 'should enforce multiple ingress policies with ingress allow-all policy taking precedence',
    steps: [
      { apply: [np('allow-ingress-port-80', 'x', {}, { ingress: [{ ports: [{ port: 80 }] }] })], probes: [tcp(81, [deny('*', 'x/*')])] },
      { apply: [np('allow-ingress', 'x', {}, { ingress: [{}] })], probes: [tcp(81, [])] },
    ],
  },
  {
    name: 'should enforce multiple egress policies with egress allow-all policy taking precedence',
    steps: [
      { apply: [np('allow-egress-port-80', 'x', {}, { egress: [{ ports: [{ port: 80 }] }] })], probes: [tcp(81, [deny('x/*', '*')])] },
      { apply: [np('allow-egress', 'x', {}, { egress: [{}] })], probes: [tcp(81, [])] },
    ],
  },
  {
    name: 'should stop enforcing policies after they are deleted',
    steps: [
      { apply: [np('deny-all', 'x', {}, { policyTypes: both })], probes: [tcp(80, [deny('x/*', '*'), deny('*', 'x/*')])] },
      { delete: [np('deny-all', 'x', {}, {})], probes: [tcp(80, [])] },
    ],
  },
  {
    name: 'should allow egress access to server in CIDR block',
    steps: [{ apply: [np('allow-client-a-via-cidr-egress-rule', 'x', pa, { egress: [{ to: [{ ipBlock: { cidr: `${podIp('y/b')}/32` } }] }] })], probes: [tcp(80, [deny('x/a', '*'), allow('x/a', 'y/b')])] }],
  },
  {
    name: 'should enforce except clause while egress access to server in CIDR block',
    steps: [{ apply: [np('allow-client-a-via-cidr-egress-rule', 'x', pa, { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: [`${podIp('x/b')}/32`] } }] }] })], probes: [tcp(80, [deny('x/a', 'x/b')])] }],
  },
  {
    name: 'should ensure an IP overlapping both IPBlock.CIDR and IPBlock.Except is allowed',
    steps: [
      { apply: [np('allow-client-a-via-cidr-egress-rule', 'x', pa, { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: [`${podIp('x/b')}/32`] } }] }] })], probes: [tcp(80, [deny('x/a', 'x/b')])] },
      { apply: [np('allow-client-a-via-cidr-egress-rule', 'x', pa, { egress: [{ to: [{ ipBlock: { cidr: `${podIp('x/b')}/32` } }] }] })], probes: [tcp(80, [deny('x/a', '*'), allow('x/a', 'x/b')])] },
    ],
  },
  {
    name: 'should enforce policies to check ingress and egress policies can be controlled independently based on PodSelector',
    steps: [
      { apply: [np('allow-egress-for-target', 'x', pa, { egress: [{}] })], probes: [tcp(80, [])] },
      { apply: [np('deny-ingress-via-label-selector', 'x', pa, { policyTypes: ingressOnly })], probes: [tcp(80, [deny('*', 'x/a')])] },
    ],
  },
  {
    name: "should not mistakenly treat 'protocol: SCTP' as 'protocol: TCP', even if the plugin doesn't support SCTP",
    steps: [
      {
        apply: [np('deny-ingress', 'x', {}, { policyTypes: ingressOnly }), np('allow-only-sctp-ingress-on-port-81', 'x', pa, { ingress: [{ ports: [{ port: 81, protocol: 'SCTP' }] }] })],
        probes: [tcp(81, [deny('*', 'x/*')])],
      },
    ],
  },
  {
    name: "should properly isolate pods that are selected by a policy allowing SCTP, even if the plugin doesn't support SCTP",
    steps: [{ apply: [np('allow-only-sctp-ingress-on-port-80', 'x', pa, { ingress: [{ ports: [{ port: 80, protocol: 'SCTP' }] }] })], probes: [tcp(81, [deny('*', 'x/a')])] }],
  },
  {
    name: 'should not allow access by TCP when a policy specifies only UDP',
    steps: [{ apply: [np('allow-only-udp-ingress-on-port-81', 'x', pa, { ingress: [{ ports: [{ port: 81, protocol: 'UDP' }] }] })], probes: [tcp(81, [deny('*', 'x/a')])] }],
  },
  {
    name: 'should enforce policy to allow traffic based on NamespaceSelector with MatchLabels using default ns label',
    steps: [{ apply: [np('allow-client-a-via-ns-selector-for-immutable-ns-label', 'x', pa, { ingress: [{ from: [{ namespaceSelector: nsY }] }] })], probes: [tcp(80, [deny('x/*', 'x/a'), deny('z/*', 'x/a')])] }],
  },
  {
    name: 'should enforce policy based on NamespaceSelector with MatchExpressions using default ns label',
    steps: [{ apply: [np('allow-ns-y-match-selector-for-immutable-ns-label', 'x', pa, { egress: [{ to: [{ namespaceSelector: { matchExpressions: [{ key: NS_LABEL, operator: 'NotIn', values: ['y'] }] } }] }] })], probes: [tcp(80, [deny('x/a', 'y/*')])] }],
  },
  // endPort cases of earlier upstream releases (feature NetworkPolicyEndPort).
  {
    name: 'should support egress policy with endPort: allow 80-81 to y (endPort)',
    steps: [{ apply: [np('egress-range', 'x', pa, { egress: [{ to: [{ namespaceSelector: nsY }], ports: [{ port: 80, endPort: 81, protocol: 'TCP' }] }] })], probes: [tcp(80, [deny('x/a', '*'), allow('x/a', 'y/*')]), tcp(81, [deny('x/a', '*'), allow('x/a', 'y/*')])] }],
  },
  {
    name: 'should support ingress policy with endPort that excludes a port (endPort)',
    steps: [{ apply: [np('ingress-range', 'x', pa, { ingress: [{ ports: [{ port: 70, endPort: 80, protocol: 'TCP' }] }] })], probes: [tcp(80, []), tcp(81, [deny('*', 'x/a')])] }],
  },
  ...portsCases('UDP', udp),
  ...portsCases('SCTP', sctp),
];
