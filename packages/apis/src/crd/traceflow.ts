/** crd.antrea.io Traceflow (v1beta1 shape). */
import type { ObjectMeta } from '../meta';

export interface TraceflowSource {
  namespace?: string;
  pod?: string;
  ip?: string;
}

export interface TraceflowDestination {
  namespace?: string;
  pod?: string;
  service?: string;
  ip?: string;
}

export interface TraceflowPacket {
  ipHeader?: { srcIP?: string; protocol?: number; ttl?: number; flags?: number };
  ipv6Header?: { srcIP?: string; nextHeader?: number; hopLimit?: number };
  transportHeader?: {
    icmp?: { id?: number; sequence?: number };
    udp?: { srcPort?: number; dstPort?: number };
    tcp?: { srcPort?: number; dstPort?: number; flags?: number };
  };
}

export type TraceflowComponent = 'SpoofGuard' | 'LB' | 'Routing' | 'NetworkPolicy' | 'Forwarding' | 'Egress';
export type TraceflowAction = 'Delivered' | 'Received' | 'Forwarded' | 'Dropped' | 'Rejected' | 'ForwardedOutOfOverlay' | 'MarkedForSNAT' | 'ForwardedToEgressNode';

/** One observation of the packet in one component of one node. */
export interface TraceflowObservation {
  component?: TraceflowComponent;
  componentInfo?: string;
  action?: TraceflowAction;
  pod?: string;
  dstMAC?: string;
  networkPolicy?: string;
  /** The rule of `networkPolicy` (its name, or `rule <index>`). */
  networkPolicyRule?: string;
  egress?: string;
  ttl?: number;
  translatedSrcIP?: string;
  translatedDstIP?: string;
  tunnelDstIP?: string;
  egressIP?: string;
  egressNode?: string;
}

export interface TraceflowNodeResult {
  node?: string;
  role?: 'Sender' | 'Receiver';
  timestamp?: number;
  observations?: TraceflowObservation[];
}

/** Pending: waiting for a free data-plane tag. */
export type TraceflowPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** crd.antrea.io Traceflow. */
export interface Traceflow {
  apiVersion?: string;
  kind?: 'Traceflow';
  metadata: ObjectMeta;
  spec: {
    source: TraceflowSource;
    destination: TraceflowDestination;
    packet?: TraceflowPacket;
    liveTraffic?: boolean;
    droppedOnly?: boolean;
    /** Seconds (default TRACEFLOW_DEFAULT_TIMEOUT_S, at most TRACEFLOW_MAX_TIMEOUT_S), counted from status.startTime. */
    timeout?: number;
  };
  status?: {
    phase?: TraceflowPhase;
    reason?: string;
    startTime?: string;
    dataplaneTag?: number;
    results?: TraceflowNodeResult[];
    capturedPacket?: {
      srcIP?: string;
      dstIP?: string;
      length?: number;
      ipHeader?: TraceflowPacket['ipHeader'];
      ipv6Header?: TraceflowPacket['ipv6Header'];
      transportHeader?: TraceflowPacket['transportHeader'];
    };
  };
}
