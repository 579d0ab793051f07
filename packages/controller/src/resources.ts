// The Kubernetes resources the controller watches, in the order their informers start.
import type { ResourceSpec } from '@switchyard/kube';

const r = (group: string, version: string, plural: string, kind: string, namespaced: boolean): ResourceSpec => ({ group, version, plural, kind, namespaced });

/** Inputs of the policy compiler. */
export const POLICY_INPUTS: readonly ResourceSpec[] = [
  r('', 'v1', 'namespaces', 'Namespace', false),
  r('', 'v1', 'nodes', 'Node', false),
  r('crd.antrea.io', 'v1beta1', 'tiers', 'Tier', false),
  r('crd.antrea.io', 'v1beta1', 'clustergroups', 'ClusterGroup', false),
  r('crd.antrea.io', 'v1beta1', 'groups', 'Group', true),
  r('', 'v1', 'pods', 'Pod', true),
  r('crd.antrea.io', 'v1alpha2', 'externalentities', 'ExternalEntity', true),
  r('', 'v1', 'services', 'Service', true),
  r('', 'v1', 'endpoints', 'Endpoints', true),
  r('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  r('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  r('crd.antrea.io', 'v1beta1', 'clusternetworkpolicies', 'ClusterNetworkPolicy', false),
  r('crd.antrea.io', 'v1beta1', 'networkpolicies', 'NetworkPolicy', true),
  r('policy.networking.k8s.io', 'v1alpha1', 'adminnetworkpolicies', 'AdminNetworkPolicy', false),
  r('policy.networking.k8s.io', 'v1alpha1', 'baselineadminnetworkpolicies', 'BaselineAdminNetworkPolicy', false),
];

/**
 * Label identities of the ClusterSet (imported into each member by the multi-cluster controller):
 * with stretched NetworkPolicy on, `scope: ClusterSet` peers compile to their ids.
 */
export const LABEL_IDENTITIES: ResourceSpec = r('multicluster.crd.antrea.io', 'v1alpha1', 'labelidentities', 'LabelIdentity', false);

/** ExternalNodes (ExternalNode controller). */
export const EXTERNAL_NODES: ResourceSpec = r('crd.antrea.io', 'v1alpha1', 'externalnodes', 'ExternalNode', true);

/** IPPools and StatefulSets (IPPool controller, Antrea's AntreaIPAM feature). */
export const IPPOOLS: ResourceSpec = r('crd.antrea.io', 'v1beta1', 'ippools', 'IPPool', false);
export const STATEFULSETS: ResourceSpec = r('apps', 'v1', 'statefulsets', 'StatefulSet', true);
