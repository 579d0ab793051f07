/** crd.antrea.io Egress (v1beta1): selected pods leave the cluster from a chosen IP through the node that owns it. */
import type { Condition, LabelSelector, ObjectMeta } from '../meta';

/** The Egress condition types Antrea sets: `IPAllocated` by the controller, `IPAssigned` by the egress node's agent. */
export type EgressConditionType = 'IPAllocated' | 'IPAssigned';

/** crd.antrea.io Egress spec. */
export interface EgressSpec {
  /** The pods whose traffic to outside the cluster uses this Egress: by labels cluster-wide, all pods of selected Namespaces, or both. */
  appliedTo: { podSelector?: LabelSelector; namespaceSelector?: LabelSelector };
  /** The source IP. With `externalIPPool` set and this empty, the controller allocates one from the pool and writes it here (as Antrea does). */
  egressIP?: string;
  /** Dual stack: one IP per pool of `externalIPPools`, in the same order. */
  egressIPs?: string[];
  /** The ExternalIPPool the IP comes from; its `nodeSelector` says which Nodes may own the IP. */
  externalIPPool?: string;
  /** Dual stack: one pool per family. Exclusive with `egressIP`/`externalIPPool`. */
  externalIPPools?: string[];
  /** Antrea's EgressTrafficShaping: the rate and burst of the Egress's traffic, in Kubernetes quantity text (`10M`, `20M`). */
  bandwidth?: { rate: string; burst: string };
}

/** crd.antrea.io Egress. */
export interface Egress {
  apiVersion?: string;
  kind?: 'Egress';
  metadata: ObjectMeta;
  spec: EgressSpec;
  status?: {
    /** The Node that owns the IP and SNATs the traffic (written by that Node's agent). */
    egressNode?: string;
    /** The IP in use on `egressNode`. */
    egressIP?: string;
    conditions?: Condition[];
  };
}
