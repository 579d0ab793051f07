/**
 * @switchyard/cli: yardctl, the Switchyard operator CLI. The binary is `yardctl` (and
 * `kubectl-yardctl`); this module exposes the same command runner and its output layer for
 * embedding and tests.
 * @packageDocumentation
 */
export { runYardctl, parseDuration } from './program';
export type { CliIo } from './program';
export { connectReadApi, connectKube, connectKubeWriter, readApiOver, READ_API_BASE } from './client';
export type { ReadApi, ConnectOptions, KubeHttp, KubeResponse, KubeWriter } from './client';
export { renderJoinConfig, parseJoinConfig, memberTokenSecret, JOIN_CONFIG_API_VERSION, JOIN_CONFIG_KIND, CREATED_BY_ANNOTATION, DEFAULT_MEMBER_TOKEN } from './mc-join-config';
export type { JoinConfig, TokenSecret } from './mc-join-config';
export { clusterSetTable, resourceExportTable, resourceImportTable, memberClusterAnnounceTable } from './mc-views';
export { CliError, EXIT_ERROR, EXIT_USAGE } from './errors';
export type { CliErrorCode } from './errors';
export { renderTable, renderData, parseOutputFormat, abbreviate, styleFor, OUTPUT_FORMATS } from './output';
export type { OutputFormat, Table, Style } from './output';
export { networkPolicyTable, addressGroupTable, appliedToGroupTable, controllerInfoTable, explanationTable, endpointQueryTables, policyRefText, tierText } from './views';
export type { NetworkPolicyItem, GroupItem, ControllerInfo } from './views';
export { bashCompletion } from './completion';
export { parseFlow, parseEndpointRef, traceflowName, buildTraceflow } from './traceflow-spec';
export type { EndpointRef, ResolvedDestination, TraceflowRequest } from './traceflow-spec';
export { traceflowTree, explainLine, packetText } from './traceflow-views';
export type { TraceflowTreeOptions } from './traceflow-views';
export { connectAgent, connectAgentThroughNode, DEFAULT_AGENT_SOCKET, DEFAULT_AGENT_API_PORT, AGENT_INFO_PATH } from './agent-client';
export type { AgentApi, AgentConnectOptions, NodeAgentOptions } from './agent-client';
export { agentInfoTable, podInterfaceTable, ovsFlowsTable, servicePortTable, agentStatus, CONTAINER_ID_WIDTH } from './agent-views';
export type { AgentInfo, PodInterfaceItem, OvsFlowItem, ServicePortItem, ServiceEndpointItem, ServiceExternalIPItem } from './agent-views';
export { runInstallationCheck } from './check-installation';
export type { InstallationCheckOptions, CheckClock } from './check-installation';
export { checkTable, reportExitCode, summaryLine } from './check-report';
export type { CheckResult, CheckVerdict, InstallationReport } from './check-report';
// podsExecConnector is internal: its signature names client-node's KubeConfig, whose declarations need @types/ws in
// every consumer (the npm consumer check refused it); yardctl check installation uses it.
export { agnhostConnectArgv } from './check-connect';
export type { PodConnector, ClientPod, ConnectOutcome } from './check-connect';
