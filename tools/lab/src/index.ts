/**
 * @switchyard/lab: `switchyard-lab`, a multi-node Switchyard cluster on one machine (embedded
 * API server, controller, N OVS nodes with real agents, a kubelet stand-in).
 * @packageDocumentation
 */
export { DEFAULT_LAB_DIR, FABRIC_HOST_V6, FABRIC_PREFIX, FABRIC_PREFIX_2, FABRIC_PREFIX_V6, FABRIC_PREFIX_V6_2, LAB_ENCRYPTIONS, LAB_MODES, LabError, RoundRobin, declaredPorts, parseEncryption, parseFeatureGates, parseMode, planNodes, podServerArgv, POD_SERVER_READY, type LabEncryption, type LabMode, type NodeLayout, type NodePlan, type PodPort } from './plan';
export { Lab, stateFile, type LabClusterOptions, type LabNodeState, type LabOptions, type LabState } from './lab';
export { labClient, readState } from './client';
export {
  LAB_API_VERSION,
  ScenarioError,
  expectedAllowed,
  formatScenario,
  formatTruthTable,
  parseScenario,
  scenarioPods,
  substitutePodIPs,
  type Expect,
  type KubeObject,
  type ObjectRef,
  type ProbeResult,
  type ProbeSpec,
  type Protocol,
  type Scenario,
  type Step,
} from './scenario';
export { chaosFailures, FAULT_KINDS, formatChaosReport, loadScenarios, recoveryStats, runChaos, type ChaosDisagreement, type ChaosOptions, type ChaosReport, type FaultKind, type FaultRecord, type RecoveryStats } from './chaos';
export { agentHealthy, restartAgent, restartController, restartOvsdb, restartVswitchd, startAgent, stopAgent } from './faults';
export { ScenarioRunner, sctpUnavailableReason, type LivePod, type ProbeRunOptions, type StepResult } from './probe-run';
export { DataplaneTracer, type TraceTopology, type TracedPod } from './trace-run';
export {
  CT_NEXT_PASSES,
  TraceError,
  arrivingFromGateway,
  arrivingFromTunnel,
  parseFlowFields,
  parseTrace,
  traceArgv,
  traceFlow,
  verdictOf,
  type TracePacket,
  type TracePass,
  type TraceResult,
  type TraceVerdict,
} from './trace';
export { MulticlusterLab, MEMBER_CLUSTERS, type MemberCluster, type MemberClusterPlan, type MulticlusterLabOptions } from './multicluster-lab';
