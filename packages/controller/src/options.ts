// The controller's options, and how antrea-controller.conf (parsed by @switchyard/apis) and
// command-line flags become them.
import type { ControllerConfig } from '@switchyard/apis';
import type { InformerOptions, KubeClient, RequestAuth } from '@switchyard/kube';
import type { Clock, Logger } from '@switchyard/runtime';
import type { ControllerPki } from './pki';

/** Options of the `Controller`: which parts run (see `CONTROLLER_PARTS`) and how. */
export interface ControllerOptions {
  kube: KubeClient;
  /** API port (Antrea's apiPort, default 10349; 0 picks a free one). */
  port?: number;
  host?: string;
  /** Namespace of the controller's Service, Secret and ConfigMap (default kube-system). */
  namespace?: string;
  /** Service name agents and the APIService use (default switchyard). */
  serviceName?: string;
  /** CA ConfigMap name (default switchyard-ca). */
  caConfigMapName?: string;
  /** Use this key pair instead of the one kept in the cluster. */
  pki?: ControllerPki;
  /** Extra subjectAltNames for the serving certificate. */
  extraSans?: string[];
  /** CA of the API server's front-proxy client certificate (aggregated requests). */
  requestHeaderCaPem?: string;
  /** Register the APIService v1beta2.controlplane.switchyard.io (default true). */
  registerAPIService?: boolean;
  /**
   * Register the ValidatingWebhookConfiguration for the Antrea kinds, with this controller's CA
   * as caBundle, as Antrea's controller patches its webhooks' caBundle at start. Default: as
   * `registerAPIService`, since both reach this process through the same Service; an embedded
   * controller the Service does not point at must not register a webhook that fails every write.
   */
  registerWebhooks?: boolean;
  /** Override authentication/authorization (default: TokenReview + SubjectAccessReview). */
  auth?: RequestAuth;
  maxWatcherBufferBytes?: number;
  historyPerNode?: number;
  bookmarkIntervalMs?: number;
  /** AntreaControllerInfo heartbeat (default 60 s). */
  heartbeatIntervalMs?: number;
  /** Node IPAM (Antrea's nodeIPAM.enableNodeIPAM). */
  nodeIPAM?: { clusterCIDRs: string[]; nodeMaskSizeIPv4?: number; nodeMaskSizeIPv6?: number };
  /**
   * IPPools (Antrea's AntreaIPAM feature gate, default false): StatefulSet pre-allocation,
   * status.usage and the in-use finalizer, with state in IPPool status.
   */
  ipPools?: boolean;
  /**
   * ServiceExternalIP (Antrea's feature gate, default false here as in Antrea before 2.3): Services
   * of type LoadBalancer annotated `service.antrea.io/external-ip-pool: <pool>` get
   * `status.loadBalancer.ingress` IPs from that ExternalIPPool; the pools' `status.usage` is kept.
   */
  serviceExternalIP?: boolean;
  /**
   * Egress (Antrea's feature gate): Egresses naming an ExternalIPPool get `spec.egressIP` from it
   * (from the allocator ServiceExternalIP uses too), with the IPAllocated condition and Events.
   * Default false here; antrea-controller.conf's `Egress` gate turns it on.
   */
  egress?: boolean;
  /**
   * EgressSeparateSubnet (the agents' feature gate of that name, default false): an Egress whose
   * ExternalIPPool has a `subnetInfo` the nodes cannot use (stored without the admission webhook)
   * gets no IP, with IPAllocated=False and an Event naming the pool's field and value.
   */
  egressSeparateSubnet?: boolean;
  /** ExternalNode feature gate (default true). */
  externalNode?: boolean;
  /**
   * Stretched NetworkPolicy (Antrea's Multicluster feature gate with
   * `multicluster.enableStretchedNetworkPolicy`, default false): the ClusterSet's LabelIdentities
   * are watched, and ingress peers with `scope: ClusterSet` carry the ids of the labels they select.
   */
  stretchedNetworkPolicy?: boolean;
  /**
   * The IPsec certificate signer (feature gate IPsecCertAuth, antrea-controller.conf
   * `ipsecCSRSigner`): approves and signs agents' CertificateSigningRequests for
   * antrea.io/antrea-agent-ipsec-tunnel with the CA in Secret `<serviceName>-ipsec-ca`.
   */
  ipsecCSRSigner?: { autoApprove: boolean; selfSignedCA: boolean; validityDays?: number };
  /**
   * The Traceflow controller (Antrea's Traceflow feature gate, default true): data-plane tags,
   * run-time validation, completion and timeout of crd.antrea.io Traceflows.
   */
  traceflow?: boolean;
  /** How long a finished Traceflow is kept before it is deleted (default 3,600,000 ms, one hour). */
  traceflowRetentionMs?: number;
  /**
   * The agents' AntreaAgentInfo heartbeat period (their `agentInfoIntervalMs`, default 60 s): a
   * timed-out Traceflow's reason says a node's agent is not running after 3 periods without one.
   */
  agentInfoIntervalMs?: number;
  informer?: Omit<InformerOptions, 'clock' | 'logger'>;
  /** Identity facts for AntreaControllerInfo (pod and node of the controller). */
  podRef?: { namespace: string; name: string };
  nodeName?: string;
  clock?: Clock;
  logger?: Logger;
}

/** Flags of the binary that override or extend the config file. */
export interface ControllerFlags {
  kubeconfig?: string;
  port?: number;
  bindAddress?: string;
  namespace?: string;
  serviceName?: string;
  requestHeaderCaFile?: string;
}

/**
 * Controller options from a parsed config (pure). Flags win over the file; `nodeIPAM` only when
 * `enableNodeIPAM` is set; the ExternalNode feature gate switches the ExternalNode controller;
 * the Multicluster gate with `multicluster.enableStretchedNetworkPolicy` turns on stretched policies.
 */
export function optionsFromConfig(config: ControllerConfig, flags: ControllerFlags = {}): Omit<ControllerOptions, 'kube'> & { kubeconfig: string } {
  const out: Omit<ControllerOptions, 'kube'> & { kubeconfig: string } = {
    kubeconfig: flags.kubeconfig ?? config.clientConnection.kubeconfig,
    port: flags.port ?? config.apiPort,
    externalNode: config.featureGates.ExternalNode ?? false,
  };
  if (config.featureGates.AntreaIPAM) out.ipPools = true;
  if (config.featureGates.Traceflow === false) out.traceflow = false;
  if (config.featureGates.ServiceExternalIP) out.serviceExternalIP = true;
  if (config.featureGates.Egress) out.egress = true;
  if (config.featureGates.EgressSeparateSubnet) out.egressSeparateSubnet = true;
  if (config.featureGates.Multicluster && config.multicluster.enableStretchedNetworkPolicy) out.stretchedNetworkPolicy = true;
  if (config.featureGates.IPsecCertAuth) out.ipsecCSRSigner = { ...config.ipsecCSRSigner };
  if (flags.bindAddress) out.host = flags.bindAddress;
  if (flags.namespace) out.namespace = flags.namespace;
  if (flags.serviceName) out.serviceName = flags.serviceName;
  if (config.nodeIPAM.enableNodeIPAM) {
    out.nodeIPAM = { clusterCIDRs: config.nodeIPAM.clusterCIDRs, nodeMaskSizeIPv4: config.nodeIPAM.nodeCIDRMaskSizeIPv4, nodeMaskSizeIPv6: config.nodeIPAM.nodeCIDRMaskSizeIPv6 };
  }
  return out;
}
