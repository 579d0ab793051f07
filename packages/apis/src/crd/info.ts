/** crd.antrea.io AntreaAgentInfo and AntreaControllerInfo (cluster-scoped, fields at top level, no spec). */
import type { ObjectMeta, ObjectReference } from '../meta';

export interface OVSInfo {
  version?: string;
  bridgeName?: string;
  /** Table name (or number) to flow count. */
  flowTable?: Record<string, number>;
}

export interface NetworkPolicyControllerInfo {
  networkPolicyNum?: number;
  addressGroupNum?: number;
  appliedToGroupNum?: number;
}

export type AgentConditionType = 'AgentHealthy' | 'ControllerConnectionUp' | 'OVSDBConnectionUp' | 'OpenflowConnectionUp';
export type ControllerConditionType = 'ControllerHealthy';

export interface InfoCondition<T extends string> {
  type: T;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  reason?: string;
  message?: string;
}

/** crd.antrea.io AntreaAgentInfo: one per node (and per ExternalNode). */
export interface AntreaAgentInfo {
  apiVersion?: string;
  kind?: 'AntreaAgentInfo';
  metadata: ObjectMeta;
  version?: string;
  podRef?: ObjectReference;
  nodeRef?: ObjectReference;
  nodeSubnets?: string[];
  ovsInfo?: OVSInfo;
  networkPolicyControllerInfo?: NetworkPolicyControllerInfo;
  localPodNum?: number;
  agentConditions?: InfoCondition<AgentConditionType>[];
  apiPort?: number;
}

/** crd.antrea.io AntreaControllerInfo: a single object named `antrea-controller`. */
export interface AntreaControllerInfo {
  apiVersion?: string;
  kind?: 'AntreaControllerInfo';
  metadata: ObjectMeta;
  version?: string;
  podRef?: ObjectReference;
  nodeRef?: ObjectReference;
  serviceRef?: ObjectReference;
  networkPolicyControllerInfo?: NetworkPolicyControllerInfo;
  connectedAgentNum?: number;
  controllerConditions?: InfoCondition<ControllerConditionType>[];
  apiPort?: number;
}
