/** core/v1 and discovery.k8s.io/v1 kinds Switchyard reads, reduced to the fields it uses plus common ones. */
import type { Condition, IntOrString, ObjectMeta, ObjectReference } from './meta';

/** L4 protocol names used by core/v1 ports. */
export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** core/v1 Namespace. */
export interface Namespace {
  apiVersion?: 'v1';
  kind?: 'Namespace';
  metadata: ObjectMeta;
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: Condition[] };
}

/** A port exposed by a container; `name` makes it addressable as a named port by policies. */
export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: Protocol;
  hostPort?: number;
  hostIP?: string;
}

/** A container, reduced to identity and ports (Switchyard does not run containers). */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: ContainerPort[];
  env?: { name: string; value?: string; valueFrom?: Record<string, unknown> }[];
  resources?: Record<string, unknown>;
  securityContext?: Record<string, unknown>;
  volumeMounts?: Record<string, unknown>[];
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
}

/** core/v1 PodSpec (networking-relevant subset plus common scheduling keys). */
export interface PodSpec {
  nodeName?: string;
  hostNetwork?: boolean;
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName, still accepted by the API server. */
  serviceAccount?: string;
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  volumes?: Record<string, unknown>[];
  hostname?: string;
  subdomain?: string;
  terminationGracePeriodSeconds?: number;
  priorityClassName?: string;
}

/** A pod IP entry of status.podIPs. */
export interface PodIP {
  ip: string;
}

/** Lifecycle phase of a Pod. */
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

/** core/v1 PodStatus. */
export interface PodStatus {
  phase?: PodPhase;
  podIP?: string;
  podIPs?: PodIP[];
  hostIP?: string;
  hostIPs?: PodIP[];
  conditions?: Condition[];
  startTime?: string;
  reason?: string;
  message?: string;
  containerStatuses?: Record<string, unknown>[];
}

/** core/v1 Pod. */
export interface Pod {
  apiVersion?: 'v1';
  kind?: 'Pod';
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

/** Kind of a Node address. */
export type NodeAddressType = 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS';

/** core/v1 NodeAddress. */
export interface NodeAddress {
  type: NodeAddressType;
  address: string;
}

/** core/v1 Node. Labels live in metadata.labels. */
export interface Node {
  apiVersion?: 'v1';
  kind?: 'Node';
  metadata: ObjectMeta;
  spec?: {
    podCIDR?: string;
    podCIDRs?: string[];
    providerID?: string;
    unschedulable?: boolean;
    taints?: { key: string; value?: string; effect: string; timeAdded?: string }[];
  };
  status?: {
    addresses?: NodeAddress[];
    conditions?: Condition[];
    nodeInfo?: Record<string, string>;
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
  };
}

/** Service types. */
export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';

/** core/v1 ServicePort. */
export interface ServicePort {
  name?: string;
  protocol?: Protocol;
  port: number;
  targetPort?: IntOrString;
  nodePort?: number;
  appProtocol?: string;
}

/** core/v1 Service. */
export interface Service {
  apiVersion?: 'v1';
  kind?: 'Service';
  metadata: ObjectMeta;
  spec?: {
    type?: ServiceType;
    ports?: ServicePort[];
    selector?: Record<string, string>;
    clusterIP?: string;
    clusterIPs?: string[];
    externalIPs?: string[];
    loadBalancerIP?: string;
    externalName?: string;
    externalTrafficPolicy?: 'Cluster' | 'Local';
    /** Node port kube-proxy (and the agent) answer health checks on: `type: LoadBalancer` with `externalTrafficPolicy: Local` only; allocated by the API server unless given. */
    healthCheckNodePort?: number;
    internalTrafficPolicy?: 'Cluster' | 'Local';
    sessionAffinity?: 'ClientIP' | 'None';
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
    ipFamilies?: ('IPv4' | 'IPv6')[];
    ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
    publishNotReadyAddresses?: boolean;
  };
  status?: {
    loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] };
    conditions?: Condition[];
  };
}

/** core/v1 EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** core/v1 EndpointPort. */
export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: Protocol;
  appProtocol?: string;
}

/** core/v1 Endpoints. */
export interface Endpoints {
  apiVersion?: 'v1';
  kind?: 'Endpoints';
  metadata: ObjectMeta;
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }[];
}

/** discovery.k8s.io/v1 Endpoint. */
export interface SliceEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  nodeName?: string;
  zone?: string;
  targetRef?: ObjectReference;
  hints?: { forZones?: { name: string }[] };
}

/** discovery.k8s.io/v1 EndpointSlice. */
export interface EndpointSlice {
  apiVersion?: 'discovery.k8s.io/v1';
  kind?: 'EndpointSlice';
  metadata: ObjectMeta;
  addressType: 'IPv4' | 'IPv6' | 'FQDN';
  endpoints: SliceEndpoint[];
  ports?: { name?: string; port?: number; protocol?: Protocol; appProtocol?: string }[];
}

/** core/v1 ServiceAccount. */
export interface ServiceAccount {
  apiVersion?: 'v1';
  kind?: 'ServiceAccount';
  metadata: ObjectMeta;
  secrets?: ObjectReference[];
  imagePullSecrets?: { name: string }[];
  automountServiceAccountToken?: boolean;
}

/** core/v1 Secret. `data` values are base64, `stringData` plain. */
export interface Secret {
  apiVersion?: 'v1';
  kind?: 'Secret';
  metadata: ObjectMeta;
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/** core/v1 Event. */
export interface Event {
  apiVersion?: 'v1';
  kind?: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count?: number;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

/** core/v1 ConfigMap. */
export interface ConfigMap {
  apiVersion?: 'v1';
  kind?: 'ConfigMap';
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

