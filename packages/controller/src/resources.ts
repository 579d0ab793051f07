// The Kubernetes resources the controller's parts watch. Each part declares the ones it reads;
// the controller runs one informer per resource, in the order the parts declare them.
import type { ResourceSpec } from '@switchyard/kube';

const r = (group: string, version: string, plural: string, kind: string, namespaced: boolean): ResourceSpec => ({ group, version, plural, kind, namespaced });

export const NAMESPACES = r('', 'v1', 'namespaces', 'Namespace', false);
export const NODES = r('', 'v1', 'nodes', 'Node', false);
export const TIERS = r('crd.antrea.io', 'v1beta1', 'tiers', 'Tier', false);
export const CLUSTER_GROUPS = r('crd.antrea.io', 'v1beta1', 'clustergroups', 'ClusterGroup', false);
export const GROUPS = r('crd.antrea.io', 'v1beta1', 'groups', 'Group', true);
export const PODS = r('', 'v1', 'pods', 'Pod', true);
export const EXTERNAL_ENTITIES = r('crd.antrea.io', 'v1alpha2', 'externalentities', 'ExternalEntity', true);
/** Antrea-native policies: ClusterNetworkPolicy, and the namespaced NetworkPolicy of crd.antrea.io. */
export const CLUSTER_NETWORK_POLICIES = r('crd.antrea.io', 'v1beta1', 'clusternetworkpolicies', 'ClusterNetworkPolicy', false);
export const ANTREA_NETWORK_POLICIES = r('crd.antrea.io', 'v1beta1', 'networkpolicies', 'NetworkPolicy', true);
export const SERVICES = r('', 'v1', 'services', 'Service', true);

/** Inputs of the policy compiler. */
export const POLICY_INPUTS: readonly ResourceSpec[] = [
  NAMESPACES,
  NODES,
  TIERS,
  CLUSTER_GROUPS,
  GROUPS,
  PODS,
  EXTERNAL_ENTITIES,
  SERVICES,
  r('', 'v1', 'endpoints', 'Endpoints', true),
  r('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  r('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  CLUSTER_NETWORK_POLICIES,
  ANTREA_NETWORK_POLICIES,
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

/** ExternalIPPools (ServiceExternalIP, and the webhook's overlap check across pools). */
export const EXTERNAL_IP_POOLS: ResourceSpec = r('crd.antrea.io', 'v1beta1', 'externalippools', 'ExternalIPPool', false);

/** Egresses (the Egress part: IPs from ExternalIPPools, the IPAllocated condition). */
export const EGRESSES: ResourceSpec = r('crd.antrea.io', 'v1beta1', 'egresses', 'Egress', false);

/** Traceflows, and the agents' AntreaAgentInfos the Traceflow controller reads heartbeats from. */
export const TRACEFLOWS: ResourceSpec = r('crd.antrea.io', 'v1beta1', 'traceflows', 'Traceflow', false);
export const ANTREA_AGENT_INFOS: ResourceSpec = r('crd.antrea.io', 'v1beta1', 'antreaagentinfos', 'AntreaAgentInfo', false);
