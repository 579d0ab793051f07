/** crd.antrea.io TrafficControl (v1alpha2): mirror or redirect selected pods' traffic to a port. */
import type { LabelSelector, ObjectMeta } from '../meta';

/** Where TrafficControl sends traffic (or takes it back from): exactly one kind of port. */
export interface TrafficControlPort {
  /** An OVS internal port of this name on every Node (created when missing). */
  ovsInternal?: { name: string };
  /** A network device of this name on every Node (attached to the bridge). */
  device?: { name: string };
  geneve?: { remoteIP: string; destinationPort?: number; vni?: number };
  vxlan?: { remoteIP: string; destinationPort?: number; vni?: number };
  gre?: { remoteIP: string; key?: number };
  erspan?: { remoteIP: string; sessionID?: number; version: 1 | 2; index?: number; dir?: 0 | 1; hardwareID?: number };
}

/** crd.antrea.io TrafficControl. */
export interface TrafficControl {
  apiVersion?: string;
  kind?: 'TrafficControl';
  metadata: ObjectMeta;
  spec: {
    /** Pods it applies to: by labels cluster-wide, all pods of selected Namespaces, or both; empty selects nothing. */
    appliedTo: { podSelector?: LabelSelector; namespaceSelector?: LabelSelector };
    direction: 'Ingress' | 'Egress' | 'Both';
    action: 'Mirror' | 'Redirect';
    targetPort: TrafficControlPort;
    /** Redirect: the port traffic comes back through. */
    returnPort?: TrafficControlPort;
  };
}
