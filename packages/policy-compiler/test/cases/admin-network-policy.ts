// AdminNetworkPolicy / BaselineAdminNetworkPolicy cases after the network-policy-api conformance
// suite (rule order, Pass to NP, priority change, integration with NP and BANP), on the x/y/z model.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy } from '@switchyard/apis';
import type { Case, Expect } from './model';

const NS = 'kubernetes.io/metadata.name';
const ns = (n: string) => ({ matchLabels: { [NS]: n } });
export function anp(name: string, priority: number, spec: Omit<AdminNetworkPolicy['spec'], 'priority'>): AdminNetworkPolicy {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: { priority, ...spec } };
}
export function banp(spec: BaselineAdminNetworkPolicy['spec']): BaselineAdminNetworkPolicy {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec };
}
const deny = (from: string, to: string): Expect => ({ from, to, allowed: false });
const allow = (from: string, to: string): Expect => ({ from, to, allowed: true });
const tcp = (port: number, expect: Expect[]) => ({ protocol: 'TCP' as const, port, expect });
const npAllow = (from: object[], podSelector: object = {}) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np-x', namespace: 'x' }, spec: { podSelector, policyTypes: ['Ingress'], ingress: [{ from }] } });

export const adminNetworkPolicyCases: Case[] = [
  {
    name: 'ANP ingress rule order: Allow before Deny, then swapped',
    steps: [
      { apply: [anp('order', 50, { subject: { namespaces: ns('x') }, ingress: [{ name: 'allow-y', action: 'Allow', from: [{ namespaces: ns('y') }] }, { name: 'deny-all', action: 'Deny', from: [{ namespaces: {} }] }] })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/*')])] },
      { apply: [anp('order', 50, { subject: { namespaces: ns('x') }, ingress: [{ name: 'deny-all', action: 'Deny', from: [{ namespaces: {} }] }, { name: 'allow-y', action: 'Allow', from: [{ namespaces: ns('y') }] }] })], probes: [tcp(80, [deny('*', 'x/*')])] },
    ],
  },
  {
    name: 'ANP Pass delegates to NetworkPolicy, skipping lower-priority ANPs',
    steps: [
      { apply: [anp('pass-y', 50, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Pass', from: [{ namespaces: ns('y') }] }] }), anp('deny-y', 60, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('y') }] }] })], probes: [tcp(80, [])] },
      { apply: [npAllow([{ namespaceSelector: ns('y'), podSelector: { matchLabels: { pod: 'a' } } }])], probes: [tcp(80, [deny('*', 'x/*'), allow('y/a', 'x/*')])] },
    ],
  },
  {
    name: 'ANP priority change 60 -> 40 flips the verdict',
    steps: [
      { apply: [anp('allow-z', 50, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: ns('z') }] }] }), anp('deny-z', 60, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [])] },
      { apply: [anp('deny-z', 40, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [deny('z/*', 'x/*')])] },
    ],
  },
  {
    name: 'integration: ANP over NP over BANP',
    steps: [
      { apply: [banp({ subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: {} }] }] })], probes: [tcp(80, [deny('*', 'x/*')])] },
      { apply: [npAllow([{ namespaceSelector: ns('y') }], { matchLabels: { pod: 'a' } })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/a')])] },
      { apply: [anp('allow-z-to-x', 10, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/a'), allow('z/*', 'x/*')])] },
    ],
  },
  {
    name: 'ANP egress Deny to networks and named port',
    steps: [
      { apply: [anp('deny-net', 20, { subject: { pods: { namespaceSelector: ns('x'), podSelector: { matchLabels: { pod: 'a' } } } }, egress: [{ action: 'Deny', to: [{ networks: ['10.0.3.0/24'] }] }] })], probes: [tcp(80, [deny('x/a', 'z/*')])] },
      { apply: [anp('deny-named', 21, { subject: { namespaces: ns('y') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('x') }], ports: [{ namedPort: 'serve-81-tcp' }] }] })], probes: [tcp(80, [deny('x/a', 'z/*')]), tcp(81, [deny('x/a', 'z/*'), deny('x/*', 'y/*')])] },
    ],
  },
  {
    name: 'BANP Allow is overridden by NetworkPolicy isolation',
    steps: [{ apply: [banp({ subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: {} }] }] }), npAllow([{ namespaceSelector: ns('z') }])], probes: [tcp(80, [deny('*', 'x/*'), allow('z/*', 'x/*')])] }],
  },
];
