/**
 * Source of the CRD manifests under crds/: structural OpenAPI v3 schemas for every served
 * version of every custom kind. `npm run generate:crds` renders them to YAML and embeds them in
 * src/gen/crds.ts. Edit here, not the YAML.
 */

export type Schema = Record<string, unknown>;

// ---- schema vocabulary ----------------------------------------------------------------------

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const bool = (): Schema => ({ type: 'boolean' });
const int = (min?: number, max?: number, extra: Schema = {}): Schema => ({
  type: 'integer',
  format: 'int32',
  ...(min === undefined ? {} : { minimum: min }),
  ...(max === undefined ? {} : { maximum: max }),
  ...extra,
});
const int64 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int64', ...extra });
const num = (min?: number, max?: number): Schema => ({
  type: 'number',
  ...(min === undefined ? {} : { minimum: min }),
  ...(max === undefined ? {} : { maximum: max }),
});
const enumOf = (...values: string[]): Schema => ({ type: 'string', enum: values });
const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});
const stringMap = (): Schema => ({ type: 'object', additionalProperties: { type: 'string' } });
const preserve = (): Schema => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
const intOrString = (extra: Schema = {}): Schema => ({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  ...extra,
});

const V4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const V4 = `(${V4_OCTET}\\.){3}${V4_OCTET}`;
// IPv6 is checked loosely by the pattern (hex groups, colons, optional dotted tail) and exactly
// by the `ip`/`cidr` format checks of validateObject; the API server checks `format: cidr` itself.
const V6 = '[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}(:' + V4 + ')?';
export const IP_PATTERN = `^(${V4}|${V6})$`;
export const CIDR_PATTERN = `^(${V4}/(3[0-2]|[12]?[0-9])|${V6}/(12[0-8]|1[01][0-9]|[1-9]?[0-9]))$`;

const ip = (): Schema => str({ pattern: IP_PATTERN });
const cidr = (): Schema => str({ format: 'cidr', pattern: CIDR_PATTERN });
const port = (): Schema => int(1, 65535);
const portOrName = (): Schema => intOrString({ minimum: 1, maximum: 65535 });

// Antrea-native ipBlock. `except` is a Switchyard extension (Antrea's CRD has only `cidr`); it
// keeps the K8s NetworkPolicy meaning and the compiler checks each entry lies inside `cidr`.
const antreaIpBlock = (): Schema =>
  obj({ cidr: cidr(), except: arr(cidr(), { description: 'Switchyard extension (not in Antrea): CIDRs excluded from cidr.' }) }, ['cidr']);

const labelSelector = (): Schema =>
  obj({
    matchLabels: stringMap(),
    matchExpressions: arr(
      obj({ key: str(), operator: enumOf('In', 'NotIn', 'Exists', 'DoesNotExist'), values: arr(str()) }, ['key', 'operator']),
    ),
  });
const namespacedName = (): Schema => obj({ name: str(), namespace: str() }, ['name', 'namespace']);
const conditions = (): Schema =>
  arr(
    obj(
      {
        type: str(),
        status: enumOf('True', 'False', 'Unknown'),
        observedGeneration: int64(),
        lastTransitionTime: str({ format: 'date-time' }),
        lastHeartbeatTime: str({ format: 'date-time' }),
        lastUpdateTime: str({ format: 'date-time' }),
        reason: str(),
        message: str(),
      },
      ['type', 'status'],
    ),
  );

// ---- Antrea-native policy -------------------------------------------------------------------

/** Options for the legacy forms a version accepts. */
interface PolicyFlavour {
  /** v1alpha1 only: `Deny` was accepted by early releases and by the seed documents; converted to Drop. */
  legacyDeny: boolean;
}

const appliedTo = (): Schema =>
  obj({
    podSelector: labelSelector(),
    namespaceSelector: labelSelector(),
    externalEntitySelector: labelSelector(),
    nodeSelector: labelSelector(),
    group: str(),
    serviceAccount: namespacedName(),
    service: namespacedName(),
  });

const peer = (): Schema =>
  obj({
    ipBlock: antreaIpBlock(),
    podSelector: labelSelector(),
    namespaceSelector: labelSelector(),
    namespaces: obj({ match: enumOf('Self'), sameLabels: arr(str()) }),
    externalEntitySelector: labelSelector(),
    nodeSelector: labelSelector(),
    group: str(),
    fqdn: str(),
    serviceAccount: namespacedName(),
    scope: enumOf('Cluster', 'ClusterSet'),
  });

const policyRule = (f: PolicyFlavour): Schema =>
  obj({
    action: enumOf('Allow', 'Drop', 'Reject', 'Pass', ...(f.legacyDeny ? ['Deny'] : [])),
    ports: arr(
      obj({
        protocol: enumOf('TCP', 'UDP', 'SCTP'),
        port: portOrName(),
        endPort: port(),
        sourcePort: port(),
        sourceEndPort: port(),
      }),
    ),
    protocols: arr(
      obj({
        icmp: obj({ icmpType: int(0, 255), icmpCode: int(0, 15) }),
        igmp: obj({ igmpType: int(0, 255), groupAddress: ip() }),
      }),
    ),
    l7Protocols: arr(obj({ http: obj({ host: str(), method: str(), path: str() }), tls: obj({ sniHostname: str() }) })),
    from: arr(peer()),
    to: arr(peer()),
    toServices: arr(obj({ name: str(), namespace: str(), scope: enumOf('Cluster', 'ClusterSet') }, ['name'])),
    name: str(),
    enableLogging: bool(),
    logLabel: str({ maxLength: 63 }),
    appliedTo: arr(appliedTo()),
  });

/** Spec shared by ClusterNetworkPolicy and NetworkPolicy; also embedded by ResourceExport/Import. */
export const antreaPolicySpec = (f: PolicyFlavour): Schema =>
  obj(
    {
      tier: str(),
      priority: num(1, 10000),
      appliedTo: arr(appliedTo()),
      ingress: arr(policyRule(f)),
      egress: arr(policyRule(f)),
    },
    ['priority'],
  );

const policyStatus = (): Schema =>
  obj({
    phase: enumOf('Pending', 'Realizing', 'Realized', 'Failed'),
    observedGeneration: int64(),
    currentNodesRealized: int(),
    desiredNodesRealized: int(),
    conditions: conditions(),
  });

const policyColumns = [
  { name: 'Tier', type: 'string', description: 'The Tier to which this policy belongs.', jsonPath: '.spec.tier' },
  { name: 'Priority', type: 'number', description: 'The policy priority.', jsonPath: '.spec.priority' },
  { name: 'Desired Nodes', type: 'number', description: 'The total number of Nodes that should realize the policy.', jsonPath: '.status.desiredNodesRealized' },
  { name: 'Current Nodes', type: 'number', description: 'The number of Nodes that have realized the policy.', jsonPath: '.status.currentNodesRealized' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];
const ageColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** A printer column showing the string at `jsonPath`. */
const stringColumn = (name: string, jsonPath: string) => ({ name, type: 'string', jsonPath });

const groupSpec = (legacyIpBlock: boolean): Schema =>
  obj({
    podSelector: labelSelector(),
    namespaceSelector: labelSelector(),
    externalEntitySelector: labelSelector(),
    nodeSelector: labelSelector(),
    ...(legacyIpBlock ? { ipBlock: antreaIpBlock() } : {}),
    ipBlocks: arr(antreaIpBlock()),
    serviceReference: namespacedName(),
    childGroups: arr(str()),
  });

// ---- CRD model ------------------------------------------------------------------------------

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface VersionDef {
  name: string;
  storage?: boolean;
  /** Top-level properties besides apiVersion/kind/metadata (e.g. spec, status). */
  properties: Record<string, Schema>;
  required?: string[];
  status?: boolean;
  columns?: PrinterColumn[];
}

export interface CrdDef {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  categories?: string[];
  versions: VersionDef[];
  /** Why older versions exist and how they convert (copied into docs). */
  note?: string;
}

const ANTREA = 'crd.antrea.io';
const MC = 'multicluster.crd.antrea.io';
const MCS = 'multicluster.x-k8s.io';
const ANP = 'policy.networking.k8s.io';

const modern: PolicyFlavour = { legacyDeny: false };
const legacy: PolicyFlavour = { legacyDeny: true };

const ipPoolV1beta1 = {
  spec: obj(
    {
      ipRanges: arr(obj({ cidr: cidr(), start: ip(), end: ip() })),
      subnetInfo: obj({ gateway: ip(), prefixLength: int(1, 127), vlan: int(0, 4094) }, ['gateway', 'prefixLength']),
    },
    ['ipRanges', 'subnetInfo'],
  ),
};
const ipPoolStatus = obj({
  ipAddresses: arr(
    obj(
      {
        ipAddress: ip(),
        phase: enumOf('Allocated', 'Preallocated', 'Reserved'),
        owner: obj({
          pod: obj({ name: str(), namespace: str(), containerID: str(), ifName: str() }, ['name', 'namespace', 'containerID']),
          statefulSet: obj({ name: str(), namespace: str(), index: int(0) }, ['name', 'namespace', 'index']),
        }),
      },
      ['ipAddress', 'phase', 'owner'],
    ),
  ),
  usage: obj({ total: int(0), used: int(0) }, ['total', 'used']),
  conditions: conditions(),
});

// ExternalIPPool (Egress IPs and ServiceExternalIP): ranges, optional subnet, the Nodes that may host its IPs.
const externalIPPoolSpec = obj(
  {
    ipRanges: arr(obj({ cidr: cidr(), start: ip(), end: ip() })),
    subnetInfo: obj({ gateway: ip(), prefixLength: int(1, 127), vlan: int(0, 4094) }, ['gateway', 'prefixLength']),
    nodeSelector: labelSelector(),
  },
  ['ipRanges', 'nodeSelector'],
);
const externalIPPoolStatus = obj({ usage: obj({ total: int(0), used: int(0) }) });

// Egress: the pods it applies to, the IP (given, or allocated from a pool), dual stack, bandwidth.
const egressSpec = obj(
  {
    appliedTo: obj({ podSelector: labelSelector(), namespaceSelector: labelSelector() }),
    // Checked by the controller (an Event and IPAllocated=False name a bad value), not refused here.
    egressIP: str(),
    egressIPs: arr(str(), { maxItems: 2 }),
    externalIPPool: str(),
    externalIPPools: arr(str(), { maxItems: 2 }),
    bandwidth: obj({ rate: str(), burst: str() }, ['rate', 'burst']),
  },
  ['appliedTo'],
);
const egressStatus = obj({ egressNode: str(), egressIP: str(), conditions: conditions() });

// TrafficControl ports: an OVS internal port or a host device by name, or a tunnel to a remote IP.
const tcPort = (): Schema =>
  obj({
    ovsInternal: obj({ name: str() }, ['name']),
    device: obj({ name: str() }, ['name']),
    geneve: obj({ remoteIP: ip(), destinationPort: int(1, 65535), vni: int(0, 16777215) }, ['remoteIP']),
    vxlan: obj({ remoteIP: ip(), destinationPort: int(1, 65535), vni: int(0, 16777215) }, ['remoteIP']),
    gre: obj({ remoteIP: ip(), key: int64({ minimum: 0, maximum: 4294967295 }) }, ['remoteIP']),
    erspan: obj({ remoteIP: ip(), sessionID: int(0, 1023), version: int(1, 2), index: int(0), dir: int(0, 1), hardwareID: int(0) }, ['remoteIP', 'version']),
  });
const trafficControlSpec = obj(
  {
    appliedTo: obj({ podSelector: labelSelector(), namespaceSelector: labelSelector() }),
    direction: enumOf('Ingress', 'Egress', 'Both'),
    action: enumOf('Mirror', 'Redirect'),
    targetPort: tcPort(),
    returnPort: tcPort(),
  },
  ['appliedTo', 'direction', 'action', 'targetPort'],
);

const traceflowSpec = obj(
  {
    source: obj({ namespace: str(), pod: str(), ip: ip() }),
    destination: obj({ namespace: str(), pod: str(), service: str(), ip: ip() }),
    packet: obj({
      ipHeader: obj({ srcIP: ip(), protocol: int(0, 255), ttl: int(0, 255), flags: int(0, 7) }),
      ipv6Header: obj({ srcIP: ip(), nextHeader: int(0, 255), hopLimit: int(0, 255) }),
      transportHeader: obj({
        icmp: obj({ id: int(0, 65535), sequence: int(0, 65535) }),
        udp: obj({ srcPort: int(0, 65535), dstPort: int(0, 65535) }),
        tcp: obj({ srcPort: int(0, 65535), dstPort: int(0, 65535), flags: int(0, 255) }),
      }),
    }),
    liveTraffic: bool(),
    droppedOnly: bool(),
    timeout: int(1, 300),
  },
  ['source', 'destination'],
);
const traceflowHeaders = {
  ipHeader: obj({ srcIP: ip(), protocol: int(0, 255), ttl: int(0, 255), flags: int(0, 7) }),
  ipv6Header: obj({ srcIP: ip(), nextHeader: int(0, 255), hopLimit: int(0, 255) }),
  transportHeader: preserve(),
};
const traceflowStatus = obj({
  phase: enumOf('Pending', 'Running', 'Succeeded', 'Failed'),
  reason: str(),
  startTime: str({ format: 'date-time' }),
  dataplaneTag: int(0, 255),
  results: arr(
    obj({
      node: str(),
      role: enumOf('Sender', 'Receiver'),
      timestamp: int64(),
      observations: arr(
        obj({
          component: enumOf('SpoofGuard', 'LB', 'Routing', 'NetworkPolicy', 'Forwarding', 'Egress'),
          componentInfo: str(),
          action: enumOf('Delivered', 'Received', 'Forwarded', 'Dropped', 'Rejected', 'ForwardedOutOfOverlay', 'MarkedForSNAT', 'ForwardedToEgressNode'),
          pod: str(),
          dstMAC: str(),
          networkPolicy: str(),
          networkPolicyRule: str(),
          egress: str(),
          ttl: int(0, 255),
          translatedSrcIP: str(),
          translatedDstIP: str(),
          tunnelDstIP: str(),
          egressIP: str(),
          egressNode: str(),
        }),
      ),
    }),
  ),
  capturedPacket: obj({ srcIP: str(), dstIP: str(), length: int(0), ...traceflowHeaders }),
});
const traceflowColumns: PrinterColumn[] = [
  { name: 'Phase', type: 'string', description: 'The phase of the Traceflow.', jsonPath: '.status.phase' },
  { name: 'Source-Pod', type: 'string', description: 'The name of the source Pod.', jsonPath: '.spec.source.pod', priority: 10 },
  { name: 'Destination-Pod', type: 'string', description: 'The name of the destination Pod.', jsonPath: '.spec.destination.pod', priority: 10 },
  { name: 'Destination-IP', type: 'string', description: 'The IP address of the destination.', jsonPath: '.spec.destination.ip', priority: 10 },
  { name: 'Live-Traffic', type: 'boolean', jsonPath: '.spec.liveTraffic' },
  { name: 'Dropped-Traffic-Only', type: 'boolean', jsonPath: '.spec.droppedOnly', priority: 10 },
  ageColumn,
];

const objectRef = (): Schema => obj({ kind: str(), namespace: str(), name: str(), uid: str(), apiVersion: str(), resourceVersion: str(), fieldPath: str() });
const npcInfo = (): Schema => obj({ networkPolicyNum: int(0), addressGroupNum: int(0), appliedToGroupNum: int(0) });
const infoCondition = (...types: string[]): Schema =>
  arr(obj({ type: enumOf(...types), status: enumOf('True', 'False', 'Unknown'), lastHeartbeatTime: str({ format: 'date-time' }), reason: str(), message: str() }, ['type', 'status']));

const externalEntitySpec = obj({
  endpoints: arr(obj({ ip: ip(), name: str() }, ['ip'])),
  ports: arr(obj({ protocol: enumOf('TCP', 'UDP', 'SCTP'), port: port(), name: str() })),
  externalNode: str(),
});

const servicePort = (): Schema =>
  obj(
    { name: str(), protocol: enumOf('TCP', 'UDP', 'SCTP'), port: port(), targetPort: portOrName(), nodePort: port(), appProtocol: str() },
    ['port'],
  );
const endpointSubsets = (): Schema =>
  arr(
    obj({
      addresses: arr(obj({ ip: ip(), hostname: str(), nodeName: str(), targetRef: objectRef() }, ['ip'])),
      notReadyAddresses: arr(obj({ ip: ip(), hostname: str(), nodeName: str(), targetRef: objectRef() }, ['ip'])),
      ports: arr(obj({ name: str(), port: port(), protocol: enumOf('TCP', 'UDP', 'SCTP'), appProtocol: str() }, ['port'])),
    }),
  );
const serviceImportSpec = (): Schema =>
  obj(
    {
      ports: arr(servicePort()),
      ips: arr(ip()),
      ipFamilies: arr(enumOf('IPv4', 'IPv6'), { maxItems: 2 }),
      type: enumOf('ClusterSetIP', 'Headless'),
      sessionAffinity: enumOf('ClientIP', 'None'),
      sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: int(1, 86400) }) }),
    },
    ['ports', 'type'],
  );
const clusterInfo = (): Schema =>
  obj({
    clusterID: str(),
    // An IPv6-only cluster's gateway has gatewayIPv6 alone.
    gatewayInfos: arr(obj({ gatewayIP: ip(), gatewayIPv6: ip() })),
    serviceCIDR: cidr(),
    serviceCIDRv6: cidr(),
    podCIDRs: arr(cidr()),
    wireGuard: obj({ publicKey: str() }),
  });
const exportedKinds = ['Service', 'Endpoints', 'ServiceImport', 'ClusterInfo', 'AntreaClusterNetworkPolicy', 'ExternalEntity', 'LabelIdentity'];
const resourcePayload = (): Record<string, Schema> => ({
  name: str(),
  namespace: str(),
  kind: enumOf(...exportedKinds),
  endpoints: obj({ subsets: endpointSubsets() }),
  clusterInfo: clusterInfo(),
  clusterNetworkPolicy: antreaPolicySpec(legacy),
  externalEntity: obj({ externalEntitySpec }),
  labelIdentity: obj({ normalizedLabel: str(), id: int(0) }),
  raw: obj({ data: str({ format: 'byte' }) }),
});

const anpPeerPods = (): Schema => obj({ namespaceSelector: labelSelector(), podSelector: labelSelector() }, ['namespaceSelector', 'podSelector']);
const anpPorts = (): Schema =>
  arr(
    obj({
      portNumber: obj({ protocol: enumOf('TCP', 'UDP', 'SCTP'), port: port() }, ['protocol', 'port']),
      namedPort: str(),
      portRange: obj({ protocol: enumOf('TCP', 'UDP', 'SCTP'), start: port(), end: port() }, ['start', 'end']),
    }),
    { maxItems: 100 },
  );
const anpSpec = (baseline: boolean): Schema => {
  const actions = baseline ? ['Allow', 'Deny'] : ['Allow', 'Deny', 'Pass'];
  return obj(
    {
      ...(baseline ? {} : { priority: int(0, 1000) }),
      subject: obj({ namespaces: labelSelector(), pods: anpPeerPods() }),
      ingress: arr(
        obj(
          { name: str({ maxLength: 100 }), action: enumOf(...actions), from: arr(obj({ namespaces: labelSelector(), pods: anpPeerPods() }), { minItems: 1, maxItems: 100 }), ports: anpPorts() },
          ['action', 'from'],
        ),
        { maxItems: 100 },
      ),
      egress: arr(
        obj(
          {
            name: str({ maxLength: 100 }),
            action: enumOf(...actions),
            to: arr(
              obj({ namespaces: labelSelector(), pods: anpPeerPods(), nodes: labelSelector(), networks: arr(cidr(), { minItems: 1, maxItems: 25 }) }),
              { minItems: 1, maxItems: 100 },
            ),
            ports: anpPorts(),
          },
          ['action', 'to'],
        ),
        { maxItems: 100 },
      ),
    },
    baseline ? ['subject'] : ['priority', 'subject'],
  );
};

// ---- the kinds ------------------------------------------------------------------------------

const acnpVersions = (): VersionDef[] => [
  { name: 'v1alpha1', properties: { spec: antreaPolicySpec(legacy), status: policyStatus() }, required: ['spec'], status: true, columns: policyColumns },
  { name: 'v1beta1', storage: true, properties: { spec: antreaPolicySpec(modern), status: policyStatus() }, required: ['spec'], status: true, columns: policyColumns },
];

export const crdDefinitions: CrdDef[] = [
  {
    group: ANTREA, kind: 'ClusterNetworkPolicy', plural: 'clusternetworkpolicies', singular: 'clusternetworkpolicy', scope: 'Cluster',
    shortNames: ['acnp'], categories: ['antrea'], versions: acnpVersions(),
    note: 'v1alpha1 additionally accepts the legacy action `Deny` (converted to `Drop`).',
  },
  {
    group: ANTREA, kind: 'NetworkPolicy', plural: 'networkpolicies', singular: 'networkpolicy', scope: 'Namespaced',
    shortNames: ['annp'], categories: ['antrea'], versions: acnpVersions(),
    note: 'v1alpha1 additionally accepts the legacy action `Deny` (converted to `Drop`).',
  },
  {
    group: ANTREA, kind: 'AntreaNetworkPolicy', plural: 'antreanetworkpolicies', singular: 'antreanetworkpolicy', scope: 'Namespaced',
    categories: ['antrea'],
    versions: [{ name: 'v1alpha1', storage: true, properties: { spec: antreaPolicySpec(legacy), status: policyStatus() }, required: ['spec'], status: true, columns: policyColumns }],
    note: 'Legacy kind name used by the seed documents; converted to crd.antrea.io/v1beta1 NetworkPolicy (same namespace and name).',
  },
  {
    group: ANTREA, kind: 'Tier', plural: 'tiers', singular: 'tier', scope: 'Cluster', shortNames: ['tr'], categories: ['antrea'],
    versions: ['v1alpha1', 'v1beta1'].map((name) => ({
      name, storage: name === 'v1beta1', required: ['spec'],
      properties: { spec: obj({ priority: int(1, 255), description: str() }, ['priority']) },
      columns: [{ name: 'Priority', type: 'integer', description: 'The Priority of this Tier relative to other Tiers.', jsonPath: '.spec.priority' }, ageColumn],
    })),
  },
  {
    group: ANTREA, kind: 'ClusterGroup', plural: 'clustergroups', singular: 'clustergroup', scope: 'Cluster', shortNames: ['cg'], categories: ['antrea'],
    versions: [
      { name: 'v1alpha2', properties: { spec: groupSpec(true), status: obj({ conditions: conditions() }) }, required: ['spec'], status: true, columns: [ageColumn] },
      { name: 'v1alpha3', properties: { spec: groupSpec(false), status: obj({ conditions: conditions() }) }, required: ['spec'], status: true, columns: [ageColumn] },
      { name: 'v1beta1', storage: true, properties: { spec: groupSpec(false), status: obj({ conditions: conditions() }) }, required: ['spec'], status: true, columns: [ageColumn] },
    ],
    note: 'v1alpha2 `spec.ipBlock` converts to a one-element `spec.ipBlocks`.',
  },
  {
    group: ANTREA, kind: 'Group', plural: 'groups', singular: 'group', scope: 'Namespaced', shortNames: ['grp'], categories: ['antrea'],
    versions: ['v1alpha3', 'v1beta1'].map((name) => ({
      name, storage: name === 'v1beta1', properties: { spec: groupSpec(false), status: obj({ conditions: conditions() }) }, required: ['spec'], status: true, columns: [ageColumn],
    })),
  },
  {
    group: ANTREA, kind: 'ExternalEntity', plural: 'externalentities', singular: 'externalentity', scope: 'Namespaced', shortNames: ['ee'], categories: ['antrea'],
    versions: ['v1alpha1', 'v1alpha2'].map((name) => ({ name, storage: name === 'v1alpha2', properties: { spec: externalEntitySpec }, required: ['spec'], columns: [ageColumn] })),
  },
  {
    group: ANTREA, kind: 'ExternalNode', plural: 'externalnodes', singular: 'externalnode', scope: 'Namespaced', shortNames: ['en'], categories: ['antrea'],
    versions: [{
      name: 'v1alpha1', storage: true, required: ['spec'], columns: [ageColumn],
      properties: { spec: obj({ interfaces: arr(obj({ name: str(), ips: arr(ip(), { minItems: 1 }) }, ['ips']), { minItems: 1, maxItems: 1 }) }, ['interfaces']) },
    }],
  },
  {
    group: ANTREA, kind: 'IPPool', plural: 'ippools', singular: 'ippool', scope: 'Cluster', shortNames: ['ipp'], categories: ['antrea'],
    versions: [
      {
        name: 'v1alpha2', status: true, properties: {
          spec: obj({
            ipVersion: { type: 'integer', enum: [4, 6] },
            ipRanges: arr(obj({ cidr: cidr(), start: ip(), end: ip(), gateway: ip(), prefixLength: int(1, 127), vlan: int(0, 4094) }, ['gateway', 'prefixLength'])),
          }, ['ipVersion', 'ipRanges']),
          status: ipPoolStatus,
        }, required: ['spec'],
        columns: [{ name: 'Total', type: 'integer', jsonPath: '.status.usage.total' }, { name: 'Used', type: 'integer', jsonPath: '.status.usage.used' }, ageColumn],
      },
      {
        name: 'v1beta1', storage: true, status: true, properties: { ...ipPoolV1beta1, status: ipPoolStatus }, required: ['spec'],
        columns: [{ name: 'Total', type: 'integer', jsonPath: '.status.usage.total' }, { name: 'Used', type: 'integer', jsonPath: '.status.usage.used' }, ageColumn],
      },
    ],
    note: 'v1alpha2 per-range gateway/prefixLength/vlan become `spec.subnetInfo` (taken from the first range; all ranges must agree); `ipVersion` is dropped (implied by the addresses).',
  },
  {
    // Antrea serves v1beta1 only (v1alpha2 was removed in Antrea 2.0).
    group: ANTREA, kind: 'ExternalIPPool', plural: 'externalippools', singular: 'externalippool', scope: 'Cluster', shortNames: ['eip'], categories: ['antrea'],
    versions: [{
      name: 'v1beta1', storage: true, status: true, properties: { spec: externalIPPoolSpec, status: externalIPPoolStatus }, required: ['spec'],
      columns: [{ name: 'Total', type: 'integer', jsonPath: '.status.usage.total' }, { name: 'Used', type: 'integer', jsonPath: '.status.usage.used' }, ageColumn],
    }],
  },
  {
    group: ANTREA, kind: 'Egress', plural: 'egresses', singular: 'egress', scope: 'Cluster', shortNames: ['eg'], categories: ['antrea'],
    versions: [{
      name: 'v1beta1', storage: true, status: true, properties: { spec: egressSpec, status: egressStatus }, required: ['spec'],
      columns: [stringColumn('EgressIP', '.spec.egressIP'), ageColumn, stringColumn('Node', '.status.egressNode')],
    }],
  },
  {
    group: ANTREA, kind: 'TrafficControl', plural: 'trafficcontrols', singular: 'trafficcontrol', scope: 'Cluster', shortNames: ['tc'], categories: ['antrea'],
    versions: [{ name: 'v1alpha2', storage: true, properties: { spec: trafficControlSpec }, required: ['spec'], columns: [ageColumn] }],
  },
  {
    group: ANTREA, kind: 'Traceflow', plural: 'traceflows', singular: 'traceflow', scope: 'Cluster', shortNames: ['tf'], categories: ['antrea'],
    versions: ['v1alpha1', 'v1beta1'].map((name) => ({ name, storage: name === 'v1beta1', status: true, properties: { spec: traceflowSpec, status: traceflowStatus }, required: ['spec'], columns: traceflowColumns })),
  },
  {
    group: ANTREA, kind: 'AntreaAgentInfo', plural: 'antreaagentinfos', singular: 'antreaagentinfo', scope: 'Cluster', shortNames: ['aai'], categories: ['antrea'],
    versions: [{
      name: 'v1beta1', storage: true,
      properties: {
        version: str(), podRef: objectRef(), nodeRef: objectRef(), nodeSubnets: arr(str()),
        ovsInfo: obj({ version: str(), bridgeName: str(), flowTable: { type: 'object', additionalProperties: { type: 'integer', format: 'int32' } } }),
        networkPolicyControllerInfo: npcInfo(), localPodNum: int(0),
        agentConditions: infoCondition('AgentHealthy', 'ControllerConnectionUp', 'OVSDBConnectionUp', 'OpenflowConnectionUp'),
        apiPort: int(0, 65535),
      },
      columns: [
        stringColumn('Version', '.version'),
        { name: 'Pod', type: 'string', jsonPath: '.podRef.name', priority: 1 },
        { name: 'Node', type: 'string', jsonPath: '.nodeRef.name', priority: 1 },
        { name: 'Local-Pods', type: 'integer', jsonPath: '.localPodNum', priority: 2 },
        ageColumn,
      ],
    }],
  },
  {
    group: ANTREA, kind: 'AntreaControllerInfo', plural: 'antreacontrollerinfos', singular: 'antreacontrollerinfo', scope: 'Cluster', shortNames: ['aci'], categories: ['antrea'],
    versions: [{
      name: 'v1beta1', storage: true,
      properties: {
        version: str(), podRef: objectRef(), nodeRef: objectRef(), serviceRef: objectRef(),
        networkPolicyControllerInfo: npcInfo(), connectedAgentNum: int(0),
        controllerConditions: infoCondition('ControllerHealthy'), apiPort: int(0, 65535),
      },
      columns: [
        stringColumn('Version', '.version'),
        { name: 'Connected-Agents', type: 'integer', jsonPath: '.connectedAgentNum' },
        ageColumn,
      ],
    }],
  },
  {
    group: ANP, kind: 'AdminNetworkPolicy', plural: 'adminnetworkpolicies', singular: 'adminnetworkpolicy', scope: 'Cluster', shortNames: ['anp'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true, required: ['metadata', 'spec'],
      properties: { spec: anpSpec(false), status: obj({ conditions: conditions() }, ['conditions']) },
      columns: [stringColumn('Priority', '.spec.priority'), ageColumn],
    }],
  },
  {
    group: ANP, kind: 'BaselineAdminNetworkPolicy', plural: 'baselineadminnetworkpolicies', singular: 'baselineadminnetworkpolicy', scope: 'Cluster', shortNames: ['banp'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true, required: ['metadata', 'spec'],
      properties: { spec: anpSpec(true), status: obj({ conditions: conditions() }, ['conditions']) },
      columns: [ageColumn],
    }],
  },
  {
    group: MC, kind: 'ClusterSet', plural: 'clustersets', singular: 'clusterset', scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1', status: true, required: ['spec'],
        properties: {
          spec: obj({
            leaders: arr(obj({ clusterID: str(), server: str(), secret: str(), serviceAccount: str() }), { minItems: 1, maxItems: 1 }),
            members: arr(obj({ clusterID: str(), server: str(), secret: str(), serviceAccount: str() })),
            namespace: str(),
          }, ['leaders']),
          status: preserve(),
        },
        columns: [ageColumn],
      },
      {
        name: 'v1alpha2', storage: true, status: true, required: ['spec'],
        properties: {
          spec: obj({
            clusterID: str(),
            leaders: arr(obj({ clusterID: str(), server: str(), secret: str() }), { minItems: 1, maxItems: 1 }),
            namespace: str(),
          }, ['leaders']),
          status: obj({
            totalClusters: int(0), readyClusters: int(0), observedGeneration: int64(), conditions: conditions(),
            clusterStatuses: arr(obj({ clusterID: str(), conditions: conditions() })),
          }),
        },
        columns: [
          stringColumn('Leader Cluster Namespace', '.spec.namespace'),
          { name: 'Total Clusters', type: 'number', jsonPath: '.status.totalClusters' },
          { name: 'Ready Clusters', type: 'number', jsonPath: '.status.readyClusters' },
          ageColumn,
        ],
      },
    ],
    note: 'v1alpha1 `spec.members` and `leaders[].serviceAccount` are dropped; the local cluster ID moved to `spec.clusterID` (v1alpha1 took it from a ClusterClaim).',
  },
  {
    group: MC, kind: 'MemberClusterAnnounce', plural: 'memberclusterannounces', singular: 'memberclusterannounce', scope: 'Namespaced', shortNames: ['mca'],
    versions: [{
      name: 'v1alpha1', storage: true,
      properties: { clusterID: str(), clusterSetID: str(), leaderClusterID: str() },
      columns: [
        stringColumn('Cluster ID', '.clusterID'),
        stringColumn('ClusterSet ID', '.clusterSetID'),
        stringColumn('Leader Cluster ID', '.leaderClusterID'),
        ageColumn,
      ],
    }],
  },
  {
    group: MC, kind: 'ResourceExport', plural: 'resourceexports', singular: 'resourceexport', scope: 'Namespaced', shortNames: ['re'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true,
      properties: {
        spec: obj({ clusterID: str(), ...resourcePayload(), service: obj({ serviceSpec: preserve() }) }),
        status: obj({ conditions: conditions() }),
      },
      columns: [
        stringColumn('Cluster ID', '.spec.clusterID'),
        stringColumn('Kind', '.spec.kind'),
        stringColumn('Namespace', '.spec.namespace'),
        stringColumn('Name', '.spec.name'),
        ageColumn,
      ],
    }],
  },
  {
    group: MC, kind: 'ResourceImport', plural: 'resourceimports', singular: 'resourceimport', scope: 'Namespaced', shortNames: ['ri'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true,
      properties: {
        spec: obj({ clusters: arr(str()), ...resourcePayload(), serviceImport: obj({ spec: serviceImportSpec() }) }),
        status: obj({ clusterStatuses: arr(obj({ clusterID: str(), conditions: conditions() })) }),
      },
      columns: [
        stringColumn('Kind', '.spec.kind'),
        stringColumn('Namespace', '.spec.namespace'),
        stringColumn('Name', '.spec.name'),
        ageColumn,
      ],
    }],
  },
  {
    group: MC, kind: 'Gateway', plural: 'gateways', singular: 'gateway', scope: 'Namespaced', shortNames: ['gw'],
    versions: [{
      // No required address: an IPv6-only Gateway has gatewayIPv6 and internalIPv6 alone.
      name: 'v1alpha1', storage: true,
      properties: { gatewayIP: ip(), internalIP: ip(), gatewayIPv6: ip(), internalIPv6: ip(), serviceCIDR: cidr(), serviceCIDRv6: cidr(), wireGuard: obj({ publicKey: str() }) },
      columns: [
        stringColumn('Gateway IP', '.gatewayIP'),
        stringColumn('Internal IP', '.internalIP'),
        stringColumn('Gateway IPv6', '.gatewayIPv6'),
        ageColumn,
      ],
    }],
  },
  {
    group: MC, kind: 'ClusterInfoImport', plural: 'clusterinfoimports', singular: 'clusterinfoimport', scope: 'Namespaced', shortNames: ['cii'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true,
      properties: { spec: clusterInfo(), status: obj({ conditions: conditions() }) },
      columns: [
        stringColumn('Cluster ID', '.spec.clusterID'),
        stringColumn('Service CIDR', '.spec.serviceCIDR'),
        ageColumn,
      ],
    }],
  },
  {
    group: MC, kind: 'LabelIdentity', plural: 'labelidentities', singular: 'labelidentity', scope: 'Cluster',
    versions: [{
      name: 'v1alpha1', storage: true,
      properties: { spec: obj({ label: str(), id: int(0) }) },
      columns: [
        stringColumn('Label', '.spec.label'),
        { name: 'ID', type: 'integer', jsonPath: '.spec.id' },
        ageColumn,
      ],
    }],
  },
  {
    group: MCS, kind: 'ServiceExport', plural: 'serviceexports', singular: 'serviceexport', scope: 'Namespaced', shortNames: ['svcexp'],
    versions: [{ name: 'v1alpha1', storage: true, status: true, properties: { status: obj({ conditions: conditions() }) }, columns: [ageColumn] }],
  },
  {
    group: MCS, kind: 'ServiceImport', plural: 'serviceimports', singular: 'serviceimport', scope: 'Namespaced', shortNames: ['svcim'],
    versions: [{
      name: 'v1alpha1', storage: true, status: true,
      properties: { spec: serviceImportSpec(), status: obj({ clusters: arr(obj({ cluster: str() }, ['cluster'])) }) },
      columns: [
        stringColumn('Type', '.spec.type'),
        stringColumn('IP', '.spec.ips'),
        ageColumn,
      ],
    }],
  },
];

/** Render one definition as an apiextensions.k8s.io/v1 CustomResourceDefinition object. */
export function toCustomResourceDefinition(def: CrdDef): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}`, labels: { 'app.kubernetes.io/part-of': 'switchyard' } },
    spec: {
      group: def.group,
      names: {
        plural: def.plural,
        singular: def.singular,
        kind: def.kind,
        listKind: `${def.kind}List`,
        ...(def.shortNames ? { shortNames: def.shortNames } : {}),
        ...(def.categories ? { categories: def.categories } : {}),
      },
      scope: def.scope,
      versions: def.versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage === true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { apiVersion: str(), kind: str(), metadata: { type: 'object' }, ...v.properties },
            ...(v.required?.length ? { required: v.required } : {}),
          },
        },
        ...(v.status ? { subresources: { status: {} } } : {}),
        ...(v.columns?.length ? { additionalPrinterColumns: v.columns } : {}),
      })),
    },
  };
}
