/**
 * @switchyard/multicluster: Antrea Multi-cluster's leader and member reconcilers as a library over
 * injected Kubernetes clients ({@link @switchyard/kube}). {@link LeaderController} keeps the
 * ClusterSet status from member heartbeats, merges Service exports into ResourceImports, replicates
 * ACNP exports and allocates label identities; {@link MemberController} joins the leader,
 * heartbeats, exports ServiceExports (and label identities) and imports multi-cluster Services,
 * ACNPs and LabelIdentities. The pure planning functions are exported for tools and tests.
 * @packageDocumentation
 */
export { LeaderController, type LeaderOptions } from './leader';
export { MemberController, type MemberOptions } from './member';
export { connectLeader, readLeaderAccess, tokenConfig, type LeaderAccess, type LeaderConnector } from './leader-access';
export { validateClusterSet, dashPrefixConflicts, isDashPrefix, leaderStatus, memberStatus, type ClusterSetCheck, type ClusterSetProblem, type MemberState } from './clusterset';
export { serviceExportPlan, podIPSubsets, ExportReason, type EndpointIPType, type ExportInput, type ExportPlan } from './service-export';
export { mergeServiceExports, exportProblem, type MergePlan } from './service-merge';
export { serviceImportPlan, isImported, type ImportInput, type ImportPlan } from './service-import';
export { acnpResourceImports, acnpImportPlan, type AcnpPlan } from './acnp';
export { allocateLabelIdentities, labelIdentityExports, labelIdentityImports, labelIdentityObjects, labelIdsOf, normalizedLabel, MIN_LABEL_ID, MAX_LABEL_ID, type LabelAllocation } from './label-identity';
export { chooseGateway, type GatewayIPPrecedence, type GatewayNode } from './gateway';
export { clusterInfoExport, clusterInfoImports, clusterInfoImportsFor } from './cluster-info';
export { discoverServiceCIDR, discoverServiceCIDRs, discoverServiceCIDROf, familyNotConfigured, serviceCIDRFromError, SERVICE_CIDR_PROBE, type ServiceCIDRs } from './service-cidr';
export { controllerConfigOf, CONTROLLER_CONFIGMAP, CONTROLLER_CONFIG_KEY, type ControllerConfig } from './controller-config';
export { MulticlusterError, type MulticlusterErrorCode } from './errors';
export { GATEWAY_ANNOTATION, GATEWAY_IP_ANNOTATION, GATEWAY_WIREGUARD_KEY_ANNOTATION, IMPORTED_ANNOTATION, IMPORTED_PREFIX, TOUCH_ANNOTATION, announceName, exportName, importName } from './resources';
