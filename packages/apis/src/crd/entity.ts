/** crd.antrea.io ExternalEntity (v1alpha2) and ExternalNode (v1alpha1). */
import type { ObjectMeta } from '../meta';

/** An endpoint (address) of an ExternalEntity. */
export interface ExternalEntityEndpoint {
  ip: string;
  name?: string;
}

/** A named port of an ExternalEntity. */
export interface ExternalEntityNamedPort {
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  port?: number;
  name?: string;
}

/** crd.antrea.io ExternalEntity: a non-Pod workload that policies can select. */
export interface ExternalEntity {
  apiVersion?: string;
  kind?: 'ExternalEntity';
  metadata: ObjectMeta;
  spec: {
    endpoints?: ExternalEntityEndpoint[];
    ports?: ExternalEntityNamedPort[];
    /** Name of the ExternalNode that hosts this entity (the agent's node name). */
    externalNode?: string;
  };
}

/** One network interface of an ExternalNode. */
export interface ExternalNodeInterface {
  name?: string;
  ips: string[];
}

/** crd.antrea.io ExternalNode: a VM or bare-metal host running the agent. */
export interface ExternalNode {
  apiVersion?: string;
  kind?: 'ExternalNode';
  metadata: ObjectMeta;
  spec: { interfaces: ExternalNodeInterface[] };
}
