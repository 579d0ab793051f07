// Controller-manager stand-ins running inside the server: namespace lifecycle, ServiceAccounts
// and their token Secrets, Service IP allocation, Endpoints/EndpointSlices, garbage collection,
// CRD registration and APIService status.

import { admitAdminNetworkPolicy, admitBaselineAdminNetworkPolicy, admitNetworkPolicy } from './networkpolicy';
import { admitWebhookConfiguration } from './webhook';
import type { AdmissionRequest, KubeApi } from './api';
import { randomSuffix } from './api';
import type { Authenticator } from './auth';
import { type FieldError, invalid, KubeApiError } from './errors';
import { grKey, RegistryError, type ResourceType } from './registry';
import { ipFamilyOf, NodePortAllocator, ServiceIPRanges } from './serviceips';
import { settleFamilies, type SettledFamilies } from './servicefamilies';
import { NodeCidrs, type NodeCidrOptions } from './nodeipam';
import type { StoreEvent } from './store';
import type { KubeObject, OwnerReference } from './types';
import { isRecord, rfc3339 } from './types';

interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
  appProtocol?: string;
}

interface ServiceSpec {
  type?: string;
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: ServicePort[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  [k: string]: unknown;
}

interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface ControllerOptions {
  /** One service CIDR, or an IPv4 and an IPv6 one comma-separated (the first is the primary family). */
  serviceCIDR: string;
  /** Node IPAM (kube-controller-manager --allocate-node-cidrs); absent: Nodes keep the podCIDRs they are given. */
  nodeCidrs?: NodeCidrOptions;
  /** Where the API server itself listens, for the `kubernetes` Service's Endpoints. */
  selfAddress: { ip: string; port: number };
  caPem: string;
}

const sysNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class ClusterControllers {
  /** The service CIDRs, one allocator per family (primary first). */
  readonly serviceIPs: ServiceIPRanges;
  readonly nodePorts = new NodePortAllocator();
  private readonly nodeCidrs: NodeCidrs;
  private readonly pendingNs = new Set<string>();
  /** uid -> where the live object is stored (GC needs owners by uid). */
  private readonly liveUids = new Map<string, { gr: string; ns: string | undefined; name: string }>();
  /** owner uid -> dependents (`gr`, namespace, name), so GC does not scan every object. */
  private readonly dependents = new Map<string, Map<string, { gr: string; ns: string | undefined; name: string }>>();
  private scheduled = false;
  private stopped = false;
  private readonly unsubscribe: () => void;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly api: KubeApi,
    private readonly auth: Authenticator,
    private readonly opts: ControllerOptions,
  ) {
    this.serviceIPs = new ServiceIPRanges(opts.serviceCIDR);
    this.nodeCidrs = new NodeCidrs(opts.nodeCidrs, api.logger);
    this.installAdmission();
    this.rebuildState();
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
  }

  private t(group: string, resource: string): ResourceType {
    return this.api.type(group, resource);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  /** Re-derive allocations, registered CRDs and uid index from stored objects (after restore). */
  private rebuildState(): void {
    for (const crd of this.api.list(this.t('apiextensions.k8s.io', 'customresourcedefinitions'), undefined).items) {
      try {
        this.api.registry.registerCrd(crd);
      } catch (e) {
        this.api.logger.error({ err: e, crd: crd.metadata.name }, 'stored CRD could not be registered');
      }
    }
    for (const svc of this.api.list(this.t('', 'services'), undefined).items) {
      const spec = (svc.spec ?? {}) as ServiceSpec;
      for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) if (ip !== 'None') this.serviceIPs.reserve(ip, 'spec.clusterIPs');
      for (const p of spec.ports ?? []) if (p.nodePort) this.nodePorts.reserve(p.nodePort, 'nodePort');
      if (spec.healthCheckNodePort) this.nodePorts.reserve(spec.healthCheckNodePort, 'spec.healthCheckNodePort');
    }
    this.nodeCidrs.rebuild(this.api.list(this.t('', 'nodes'), undefined).items);
    for (const gr of this.api.store.groupResources()) {
      for (const o of this.api.store.list(gr)) {
        if (o.metadata.uid) this.liveUids.set(o.metadata.uid, { gr, ns: o.metadata.namespace, name: o.metadata.name ?? '' });
        this.indexOwners(gr, undefined, o);
      }
    }
  }

  /**
   * The address the API server advertises (kube-apiserver's --advertise-address): the `kubernetes`
   * Service's target port, its Endpoints, and an EndpointSlice for it, so a Service proxy sends
   * `kubernetes.default` there. Without one the server's own listening address is in the Endpoints
   * and no EndpointSlice is written (a loopback address means nothing to pods).
   */
  advertise(address: { ip: string; port: number }): void {
    this.advertised = address;
    this.reconcileKubernetesService();
  }

  private advertised: { ip: string; port: number } | undefined;

  /** The `kubernetes` Service, its Endpoints and (when advertised) its EndpointSlice. */
  private reconcileKubernetesService(): void {
    const self = this.advertised ?? this.opts.selfAddress;
    const svc = this.t('', 'services');
    const ports = [{ name: 'https', port: 443, protocol: 'TCP', targetPort: self.port }];
    const cur = this.api.tryGet(svc, 'default', 'kubernetes');
    if (!cur) {
      this.api.create(svc, 'default', {
        metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { clusterIP: this.serviceIPs.first, ports },
      });
    } else if (JSON.stringify((cur.spec as { ports?: unknown } | undefined)?.ports) !== JSON.stringify(ports)) {
      this.api.update(svc, 'default', 'kubernetes', { ...cur, spec: { ...(cur.spec as object), ports } });
    }
    const ep = this.t('', 'endpoints');
    const subsets = [{ addresses: [{ ip: self.ip }], ports: [{ name: 'https', port: self.port, protocol: 'TCP' }] }];
    const curEp = this.api.tryGet(ep, 'default', 'kubernetes');
    if (!curEp) this.api.create(ep, 'default', { metadata: { name: 'kubernetes', namespace: 'default' }, subsets });
    else this.api.update(ep, 'default', 'kubernetes', { ...curEp, subsets });
    if (!this.advertised) return;
    const sliceType = this.t('discovery.k8s.io', 'endpointslices');
    const slice = {
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes', 'endpointslice.kubernetes.io/managed-by': 'kube-apiserver' } },
      addressType: self.ip.includes(':') ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [self.ip], conditions: { ready: true, serving: true, terminating: false } }],
      ports: [{ name: 'https', port: self.port, protocol: 'TCP' }],
    };
    const curSlice = this.api.tryGet(sliceType, 'default', 'kubernetes');
    if (!curSlice) this.api.create(sliceType, 'default', slice);
    else this.api.update(sliceType, 'default', 'kubernetes', { ...curSlice, ...slice, metadata: { ...curSlice.metadata, labels: slice.metadata.labels } });
  }

  /** Create the objects every cluster starts with. Idempotent (restarts with a data dir). */
  bootstrap(): void {
    const ns = this.t('', 'namespaces');
    for (const n of sysNamespaces) if (!this.api.tryGet(ns, undefined, n)) this.api.create(ns, undefined, { metadata: { name: n } });
    const cr = this.t('rbac.authorization.k8s.io', 'clusterroles');
    const crb = this.t('rbac.authorization.k8s.io', 'clusterrolebindings');
    const roles: [string, unknown[]][] = [
      ['cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]],
      ['system:discovery', [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/readyz', '/openapi', '/openapi/*', '/version', '/version/'], verbs: ['get'] }]],
      ['system:basic-user', [{ apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] }, { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] }]],
      ['system:auth-delegator', [{ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }, { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] }]],
      ['view', [{ apiGroups: ['', 'apps', 'discovery.k8s.io', 'networking.k8s.io', 'events.k8s.io', 'coordination.k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch'] }]],
    ];
    for (const [name, rules] of roles) {
      if (!this.api.tryGet(cr, undefined, name)) this.api.create(cr, undefined, { metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } }, rules });
    }
    const bindings: [string, string, string][] = [
      ['cluster-admin', 'cluster-admin', 'system:masters'],
      ['system:discovery', 'system:discovery', 'system:authenticated'],
      ['system:basic-user', 'system:basic-user', 'system:authenticated'],
    ];
    for (const [name, role, group] of bindings) {
      if (!this.api.tryGet(crb, undefined, name)) {
        this.api.create(crb, undefined, {
          metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
        });
      }
    }
    this.reconcileKubernetesService();
    // What servers the API server proxies to read to authenticate it (as kube-apiserver publishes
    // it): the client CA, and the front-proxy CA and header names of relayed requests.
    if (this.opts.caPem) {
      const cm = this.t('', 'configmaps');
      const data = {
        'client-ca-file': this.opts.caPem,
        'requestheader-client-ca-file': this.opts.caPem,
        'requestheader-allowed-names': '["front-proxy-client"]',
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      };
      const name = 'extension-apiserver-authentication';
      const have = this.api.tryGet(cm, 'kube-system', name);
      if (!have) this.api.create(cm, 'kube-system', { metadata: { name, namespace: 'kube-system' }, data });
      else this.api.update(cm, 'kube-system', name, { ...have, data });
    }
    for (const n of sysNamespaces) this.pendingNs.add(n);
    this.schedule();
  }

  // ---------------------------------------------------------------- admission

  private installAdmission(): void {
    this.api.admit('', 'namespaces', (r) => {
      if (r.op === 'create') {
        r.obj.spec = { finalizers: ['kubernetes'] };
        r.obj.status = { phase: 'Active' };
      } else if (r.op === 'update' && r.old) {
        // spec.finalizers changes only through the finalize subresource.
        if (r.subresource !== 'finalize') r.obj.spec = r.old.spec;
        if (r.subresource === 'finalize') r.obj.spec = { ...(isRecord(r.obj.spec) ? r.obj.spec : {}) };
        if (r.old.metadata.deletionTimestamp) r.obj.status = { phase: 'Terminating' };
      }
      if (r.op !== 'delete') r.obj.metadata.labels = { ...(r.obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': r.obj.metadata.name as string };
      if (r.op === 'delete' && sysNamespaces.slice(0, 3).includes(r.obj.metadata.name as string)) {
        throw new KubeApiError('Forbidden', `namespaces "${r.obj.metadata.name as string}" is forbidden: this namespace may not be deleted`, { kind: 'namespaces', name: r.obj.metadata.name as string });
      }
    });
    this.api.admit('', 'pods', (r) => {
      if (r.op !== 'create') return;
      const spec = (isRecord(r.obj.spec) ? r.obj.spec : {}) as Record<string, unknown>;
      if (spec.serviceAccountName === undefined) spec.serviceAccountName = 'default';
      r.obj.spec = spec;
      const status = isRecord(r.obj.status) ? r.obj.status : {};
      if (status.phase === undefined) status.phase = 'Pending';
      r.obj.status = status;
    });
    this.api.admit('', 'services', (r) => this.admitService(r));
    this.api.admit('', 'nodes', (r) => this.nodeCidrs.admit(r));
    this.api.admit('networking.k8s.io', 'networkpolicies', admitNetworkPolicy);
    this.api.admit('policy.networking.k8s.io', 'adminnetworkpolicies', admitAdminNetworkPolicy);
    this.api.admit('policy.networking.k8s.io', 'baselineadminnetworkpolicies', admitBaselineAdminNetworkPolicy);
    this.api.admit('admissionregistration.k8s.io', 'validatingwebhookconfigurations', admitWebhookConfiguration);
    this.api.admit('', 'secrets', (r) => {
      if (r.op !== 'delete') foldStringData(r.obj);
      if (r.op === 'create') r.obj.type ??= 'Opaque';
      if (r.op === 'create' && r.obj.type === 'kubernetes.io/service-account-token') this.populateTokenSecret(r.obj);
    });
    this.api.admit('apiextensions.k8s.io', 'customresourcedefinitions', (r) => this.admitCrd(r));
    this.api.admit('apiregistration.k8s.io', 'apiservices', (r) => {
      if (r.op === 'delete') return;
      const spec = (r.obj.spec ?? {}) as { group?: string; version?: string; service?: unknown };
      const expected = `${spec.version ?? ''}.${spec.group ?? ''}`;
      if (r.obj.metadata.name !== expected) {
        throw invalid('APIService', 'apiregistration.k8s.io', r.obj.metadata.name ?? '', [{ field: 'metadata.name', reason: 'FieldValueInvalid', detail: `Invalid value: "${r.obj.metadata.name ?? ''}": must be ${expected}` }]);
      }
      if (r.subresource !== 'status') {
        const local = spec.service === undefined || spec.service === null;
        r.obj.status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: rfc3339(this.api.clock.now()), reason: local ? 'Local' : 'Passed', message: local ? 'Local APIServices are always available' : 'all checks passed' }] };
      }
    });
  }

  private admitService(r: AdmissionRequest): void {
    if (r.op === 'delete' || r.subresource === 'status') return;
    const spec = (isRecord(r.obj.spec) ? r.obj.spec : {}) as ServiceSpec;
    r.obj.spec = spec;
    const old = r.old ? ((r.old.spec ?? {}) as ServiceSpec) : undefined;
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    const errs: FieldError[] = [];
    const ports = spec.ports ?? [];
    ports.forEach((p, i) => {
      p.protocol ??= 'TCP';
      p.targetPort ??= p.port;
      if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) {
        errs.push({ field: `spec.ports[${i}].port`, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(p.port)}: must be between 1 and 65535, inclusive` });
      }
      if (!['TCP', 'UDP', 'SCTP'].includes(p.protocol)) {
        errs.push({ field: `spec.ports[${i}].protocol`, reason: 'FieldValueNotSupported', detail: `Unsupported value: "${p.protocol}": supported values: "SCTP", "TCP", "UDP"` });
      }
      if (typeof p.targetPort === 'number' && (p.targetPort < 1 || p.targetPort > 65535)) {
        errs.push({ field: `spec.ports[${i}].targetPort`, reason: 'FieldValueInvalid', detail: `Invalid value: ${p.targetPort}: must be between 1 and 65535, inclusive` });
      }
      if (ports.length > 1 && !p.name) errs.push({ field: `spec.ports[${i}].name`, reason: 'FieldValueRequired', detail: 'Required value' });
    });
    if (spec.type === 'ExternalName') {
      if (errs.length > 0) throw invalid('Service', '', r.obj.metadata.name ?? '', errs);
      return;
    }
    if (old?.clusterIP) {
      if (spec.clusterIP !== undefined && spec.clusterIP !== '' && spec.clusterIP !== old.clusterIP) {
        errs.push({ field: 'spec.clusterIPs[0]', reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(spec.clusterIP)}: may not change once set` });
      }
      spec.clusterIP = old.clusterIP;
      // The stored addresses, unless the update names them with the same first one (asking for a secondary).
      const given = spec.clusterIPs;
      spec.clusterIPs = given && given.length > 0 && given[0] === old.clusterIP ? given : (old.clusterIPs ?? [old.clusterIP]);
    }
    if (errs.length > 0) throw invalid('Service', '', r.obj.metadata.name ?? '', errs);
    const settled = settleFamilies(spec, old, this.serviceIPs.families);
    if (Array.isArray(settled)) throw invalid('Service', '', r.obj.metadata.name ?? '', settled);
    const undo: (() => void)[] = [];
    /** Ports the old object held that this one gives up, released once the change is kept. */
    const releases: (() => void)[] = [];
    try {
      this.assignClusterIPs(r, spec, old, settled, undo, releases);
      spec.ipFamilies = settled.families;
      spec.ipFamilyPolicy = settled.policy;
      spec.internalTrafficPolicy ??= 'Cluster';
      const wantsNodePort = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
      const oldPorts = new Set((old?.ports ?? []).map((p) => p.nodePort).filter((p): p is number => p !== undefined));
      if (wantsNodePort) {
        spec.externalTrafficPolicy ??= 'Cluster';
        ports.forEach((p, i) => {
          if (p.nodePort === undefined) {
            const prev = old?.ports?.find((o) => o.port === p.port && o.protocol === p.protocol)?.nodePort;
            if (prev !== undefined) p.nodePort = prev;
          }
          if (p.nodePort !== undefined && oldPorts.has(p.nodePort)) return;
          if (p.nodePort !== undefined) {
            const e = this.nodePorts.reserve(p.nodePort, `spec.ports[${i}].nodePort`);
            if (e) throw invalid('Service', '', r.obj.metadata.name ?? '', [e]);
          } else {
            const np = this.nodePorts.allocate();
            if (np === undefined) throw new KubeApiError('InternalError', 'failed to allocate a nodePort: range is full');
            p.nodePort = np;
          }
          const np = p.nodePort;
          undo.push(() => this.nodePorts.release(np));
        });
      } else {
        for (const p of ports) delete p.nodePort;
      }
      const keep = new Set(ports.map((p) => p.nodePort));
      for (const np of oldPorts) if (!keep.has(np)) this.nodePorts.release(np);
      this.admitHealthCheckNodePort(r, spec, old, undo, releases);
    } catch (e) {
      for (const u of undo) u();
      throw e;
    }
    // A dry run shows the addresses it would get but keeps nothing allocated.
    if (r.dryRun) for (const u of undo) u();
    else for (const release of releases) release();
    if (r.op === 'create') r.obj.status = { loadBalancer: {} };
  }

  /**
   * `spec.clusterIP(s)` for the settled families: an address the request names is reserved in its
   * family's range, a missing one allocated; kept ones stay; on update the old addresses no longer
   * listed (a SingleStack downgrade's secondary) are released once the change is kept.
   */
  private assignClusterIPs(r: AdmissionRequest, spec: ServiceSpec, old: ServiceSpec | undefined, settled: SettledFamilies, undo: (() => void)[], releases: (() => void)[]): void {
    const name = r.obj.metadata.name ?? '';
    const oldIps = old?.clusterIPs ?? (old?.clusterIP ? [old.clusterIP] : []);
    if (settled.requested[0] === 'None') {
      spec.clusterIPs = ['None'];
      return;
    }
    const ips = settled.families.map((family, i) => {
      const want = settled.requested[i];
      if (want !== undefined && oldIps.includes(want)) return want;
      const range = this.serviceIPs.of(family)!;
      if (want !== undefined) {
        const e = range.reserve(want, 'spec.clusterIPs');
        if (e) throw invalid('Service', '', name, [e]);
        undo.push(() => range.release(want));
        return want;
      }
      const ip = range.allocate();
      if (!ip) throw new KubeApiError('InternalError', `failed to allocate a serviceIP: range is full`);
      undo.push(() => range.release(ip));
      return ip;
    });
    for (const ip of oldIps) if (ip !== 'None' && !ips.includes(ip)) releases.push(() => this.serviceIPs.release(ip));
    if (!old?.clusterIP) spec.clusterIP = ips[0] as string;
    spec.clusterIPs = ips;
  }

  /**
   * `spec.healthCheckNodePort` as kube-apiserver keeps it: a `type: LoadBalancer` Service with
   * `externalTrafficPolicy: Local` gets one from the node port range (the same allocator as the
   * node ports) unless it gives one; it keeps it across updates; leaving that type or policy drops
   * and releases it, and setting one on any other Service is refused.
   */
  private admitHealthCheckNodePort(r: AdmissionRequest, spec: ServiceSpec, old: ServiceSpec | undefined, undo: (() => void)[], releases: (() => void)[]): void {
    const name = r.obj.metadata.name ?? '';
    const oldPort = old?.type === 'LoadBalancer' && old.externalTrafficPolicy === 'Local' ? old.healthCheckNodePort : undefined;
    const field = 'spec.healthCheckNodePort';
    if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') {
      if (spec.healthCheckNodePort === undefined && oldPort !== undefined) spec.healthCheckNodePort = oldPort;
      if (spec.healthCheckNodePort === undefined) {
        const port = this.nodePorts.allocate();
        if (port === undefined) throw new KubeApiError('InternalError', 'failed to allocate a healthCheckNodePort: range is full');
        spec.healthCheckNodePort = port;
        undo.push(() => this.nodePorts.release(port));
      } else if (spec.healthCheckNodePort !== oldPort) {
        const port = spec.healthCheckNodePort;
        if (!Number.isInteger(port)) throw invalid('Service', '', name, [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(port)}: must be an integer` }]);
        const e = this.nodePorts.reserve(port, field);
        if (e) throw invalid('Service', '', name, [e]);
        undo.push(() => this.nodePorts.release(port));
      }
      const kept = spec.healthCheckNodePort;
      if (oldPort !== undefined && oldPort !== kept) releases.push(() => this.nodePorts.release(oldPort));
      return;
    }
    // An update that leaves the type or policy carries the old port along: it is dropped, not refused.
    if (spec.healthCheckNodePort !== undefined && spec.healthCheckNodePort !== old?.healthCheckNodePort) {
      throw invalid('Service', '', name, [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(spec.healthCheckNodePort)}: may only be set when \`type\` is 'LoadBalancer' and \`externalTrafficPolicy\` is 'Local'` }]);
    }
    delete spec.healthCheckNodePort;
    if (oldPort !== undefined) releases.push(() => this.nodePorts.release(oldPort));
  }

  private populateTokenSecret(secret: KubeObject): void {
    const ns = secret.metadata.namespace as string;
    const saName = secret.metadata.annotations?.['kubernetes.io/service-account.name'];
    if (!saName) {
      throw invalid('Secret', '', secret.metadata.name ?? '', [{ field: 'metadata.annotations[kubernetes.io/service-account.name]', reason: 'FieldValueRequired', detail: 'Required value' }]);
    }
    const data = (isRecord(secret.data) ? secret.data : {}) as Record<string, string>;
    if (data.token) return;
    const sa = this.api.tryGet(this.t('', 'serviceaccounts'), ns, saName);
    const uid = sa?.metadata.uid ?? '';
    if (uid) secret.metadata.annotations = { ...secret.metadata.annotations, 'kubernetes.io/service-account.uid': uid };
    const token = this.auth.mintServiceAccountToken(ns, saName, uid, secret.metadata.name as string);
    data.token = Buffer.from(token).toString('base64');
    data['ca.crt'] = Buffer.from(this.opts.caPem).toString('base64');
    data.namespace = Buffer.from(ns).toString('base64');
    secret.data = data;
  }

  private admitCrd(r: AdmissionRequest): void {
    if (r.op === 'delete' || r.subresource === 'status') return;
    const spec = (r.obj.spec ?? {}) as { group?: string; names?: { plural?: string; kind?: string; singular?: string; listKind?: string }; versions?: unknown[]; scope?: string };
    const name = r.obj.metadata.name ?? '';
    const errs: FieldError[] = [];
    if (!spec.group) errs.push({ field: 'spec.group', reason: 'FieldValueRequired', detail: 'Required value' });
    if (!spec.names?.plural) errs.push({ field: 'spec.names.plural', reason: 'FieldValueRequired', detail: 'Required value' });
    if (!spec.names?.kind) errs.push({ field: 'spec.names.kind', reason: 'FieldValueRequired', detail: 'Required value' });
    if (!Array.isArray(spec.versions) || spec.versions.length === 0) errs.push({ field: 'spec.versions', reason: 'FieldValueInvalid', detail: 'Invalid value: null: must have exactly one version marked as storage version' });
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push({ field: 'spec.scope', reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"` });
    if (spec.group && spec.names?.plural && name !== `${spec.names.plural}.${spec.group}`) {
      errs.push({ field: 'metadata.name', reason: 'FieldValueInvalid', detail: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group` });
    }
    if (errs.length > 0) throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, errs);
    try {
      this.api.registry.registerCrd(r.obj);
    } catch (e) {
      if (e instanceof RegistryError) throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, [{ field: e.field, reason: 'FieldValueInvalid', detail: `Invalid value: "${e.value}": ${e.message}` }]);
      throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, [{ field: 'spec.versions[0].schema.openAPIV3Schema', reason: 'FieldValueInvalid', detail: `Invalid value: "": ${(e as Error).message}` }]);
    }
    const names = spec.names as Record<string, unknown>;
    const now = rfc3339(this.api.clock.now());
    r.obj.status = {
      acceptedNames: { ...names, singular: names.singular ?? String(names.kind).toLowerCase(), listKind: names.listKind ?? `${String(names.kind)}List` },
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      storedVersions: (spec.versions as { name: string; storage?: boolean }[]).filter((v) => v.storage).map((v) => v.name),
    };
  }

  // ---------------------------------------------------------------- reconcilers

  private indexOwners(gr: string, prev: KubeObject | undefined, next: KubeObject | undefined): void {
    const o = (next ?? prev) as KubeObject;
    const key = `${gr}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;
    for (const r of prev?.metadata.ownerReferences ?? []) this.dependents.get(r.uid)?.delete(key);
    for (const r of next?.metadata.ownerReferences ?? []) {
      let m = this.dependents.get(r.uid);
      if (!m) {
        m = new Map();
        this.dependents.set(r.uid, m);
      }
      m.set(key, { gr, ns: o.metadata.namespace, name: o.metadata.name ?? '' });
    }
  }

  /** Current dependents of an owner uid, with their types. */
  private dependentsOf(uid: string): { rt: ResourceType; obj: KubeObject }[] {
    const out: { rt: ResourceType; obj: KubeObject }[] = [];
    for (const d of this.dependents.get(uid)?.values() ?? []) {
      const obj = this.api.store.get(d.gr, d.ns, d.name);
      const [group, resource] = d.gr.split('/') as [string, string];
      const rt = this.api.registry.get(group, resource);
      if (obj && rt && (obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) out.push({ rt, obj });
    }
    return out;
  }

  private onEvent(e: StoreEvent): void {
    if (this.stopped) return;
    this.indexOwners(e.gr, e.prev, e.type === 'DELETED' ? undefined : e.obj);
    const uid = e.obj.metadata.uid;
    if (uid) {
      if (e.type === 'DELETED') this.liveUids.delete(uid);
      else this.liveUids.set(uid, { gr: e.gr, ns: e.obj.metadata.namespace, name: e.obj.metadata.name ?? '' });
    }
    if (e.type === 'DELETED') {
      // A dependent going away may release an owner waiting in foreground deletion.
      for (const ref of e.obj.metadata.ownerReferences ?? []) {
        const at = this.liveUids.get(ref.uid);
        const owner = at ? this.api.store.get(at.gr, at.ns, at.name) : undefined;
        if (at && owner?.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes('foregroundDeletion')) this.enqueue(() => this.finishOwnerDeletion(at.gr, owner));
      }
    }
    const ns = e.obj.metadata.namespace;
    switch (e.gr) {
      case '/namespaces':
        if (e.type !== 'DELETED') this.pendingNs.add(e.obj.metadata.name as string);
        break;
      case '/nodes':
        if (e.type === 'DELETED') this.nodeCidrs.release(e.obj.metadata.name as string);
        break;
      case '/services':
        if (e.type === 'DELETED') this.onServiceDeleted(e.obj);
        this.enqueue(() => this.reconcileEndpoints(ns as string));
        this.enqueue(() => this.mirrorEndpoints(ns as string));
        break;
      case '/pods':
        this.enqueue(() => this.reconcileEndpoints(ns as string));
        break;
      case '/endpoints':
        this.enqueue(() => this.mirrorEndpoints(ns as string));
        break;
      case '/serviceaccounts':
        if (e.type !== 'DELETED') this.enqueue(() => this.ensureSaToken(e.obj));
        break;
      case 'apiextensions.k8s.io/customresourcedefinitions':
        if (e.type === 'DELETED') this.onCrdDeleted(e.obj);
        break;
    }
    if (ns) this.pendingNs.add(ns);
    if (e.type === 'DELETED' && uid) this.enqueue(() => this.collectDependents(uid));
    if (e.obj.metadata.deletionTimestamp && e.type !== 'DELETED') {
      const fin = e.obj.metadata.finalizers ?? [];
      if (fin.includes('orphan') || fin.includes('foregroundDeletion')) this.enqueue(() => this.finishOwnerDeletion(e.gr, e.obj));
    }
    this.schedule();
  }

  private enqueue(fn: () => void): void {
    this.queue.push(fn);
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.stopped) return;
      const nsList = [...this.pendingNs];
      this.pendingNs.clear();
      for (const fn of this.queue.splice(0)) this.safely(fn);
      for (const n of nsList) this.safely(() => this.reconcileNamespace(n));
    });
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (e instanceof KubeApiError && (e.code === 'NotFound' || e.code === 'AlreadyExists' || e.code === 'Conflict')) return;
      this.api.logger.error({ err: e }, 'controller error');
    }
  }

  private reconcileNamespace(name: string): void {
    const nsType = this.t('', 'namespaces');
    const ns = this.api.tryGet(nsType, undefined, name);
    if (!ns) return;
    if (!ns.metadata.deletionTimestamp) {
      const sa = this.t('', 'serviceaccounts');
      if (!this.api.tryGet(sa, name, 'default')) this.api.create(sa, name, { metadata: { name: 'default', namespace: name } });
      return;
    }
    let remaining = 0;
    for (const rt of this.api.registry.all()) {
      if (!rt.namespaced) continue;
      for (const o of this.api.store.list(grKey(rt.group, rt.resource), name)) {
        remaining++;
        if (!o.metadata.deletionTimestamp) this.safely(() => this.api.delete(rt, name, o.metadata.name as string));
      }
    }
    // Objects held by finalizers keep the namespace; their DELETED events bring us back here.
    if (remaining > 0 && this.stillHasObjects(name)) return;
    const spec = (ns.spec ?? {}) as { finalizers?: string[] };
    if ((spec.finalizers ?? []).length > 0) {
      this.api.update(nsType, undefined, name, { ...ns, spec: { ...spec, finalizers: spec.finalizers?.filter((f) => f !== 'kubernetes') } }, { subresource: 'finalize' });
    }
    const now = this.api.tryGet(nsType, undefined, name);
    if (now && ((now.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length === 0 && (now.metadata.finalizers ?? []).length === 0) {
      this.api.forceRemove(nsType, undefined, name);
    }
  }

  private stillHasObjects(ns: string): boolean {
    for (const rt of this.api.registry.all()) {
      if (rt.namespaced && this.api.store.list(grKey(rt.group, rt.resource), ns).length > 0) return true;
    }
    return false;
  }

  private ensureSaToken(sa: KubeObject): void {
    const ns = sa.metadata.namespace as string;
    const name = sa.metadata.name as string;
    const secretType = this.t('', 'secrets');
    const live = this.api.tryGet(this.t('', 'serviceaccounts'), ns, name);
    if (!live || live.metadata.uid !== sa.metadata.uid || live.metadata.deletionTimestamp) return;
    const existing = this.api
      .list(secretType, ns)
      .items.find((s) => s.type === 'kubernetes.io/service-account-token' && s.metadata.annotations?.['kubernetes.io/service-account.name'] === name && s.metadata.name?.startsWith(`${name}-token-`));
    if (existing) return;
    const secretName = `${name}-token-${randomSuffix()}`;
    this.api.create(secretType, ns, {
      metadata: {
        name: secretName,
        namespace: ns,
        annotations: { 'kubernetes.io/service-account.name': name, 'kubernetes.io/service-account.uid': live.metadata.uid as string },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ServiceAccount', name, uid: live.metadata.uid as string }],
      },
      type: 'kubernetes.io/service-account-token',
    });
    const secrets = (live.secrets as { name: string }[] | undefined) ?? [];
    this.api.update(this.t('', 'serviceaccounts'), ns, name, { ...live, secrets: [...secrets, { name: secretName }] });
  }

  private onServiceDeleted(svc: KubeObject): void {
    const spec = (svc.spec ?? {}) as ServiceSpec;
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) if (ip !== 'None') this.serviceIPs.release(ip);
    for (const p of spec.ports ?? []) if (p.nodePort) this.nodePorts.release(p.nodePort);
    if (spec.healthCheckNodePort) this.nodePorts.release(spec.healthCheckNodePort);
    const ns = svc.metadata.namespace as string;
    const name = svc.metadata.name as string;
    this.enqueue(() => {
      const ep = this.t('', 'endpoints');
      if (this.api.tryGet(ep, ns, name) && !this.api.tryGet(this.t('', 'services'), ns, name)) this.api.delete(ep, ns, name);
    });
  }

  private onCrdDeleted(crd: KubeObject): void {
    const spec = (crd.spec ?? {}) as { group: string; names: { plural: string } };
    const gr = grKey(spec.group, spec.names.plural);
    for (const o of this.api.store.list(gr)) this.api.store.remove(gr, o.metadata.namespace, o.metadata.name as string);
    this.api.registry.unregister(spec.group, spec.names.plural);
  }

  /** Background GC: dependents whose owners are all gone are deleted. */
  private collectDependents(ownerUid: string): void {
    for (const { rt, obj: o } of this.dependentsOf(ownerUid)) {
      const refs = o.metadata.ownerReferences ?? [];
      if (refs.every((r) => !this.liveUids.has(r.uid)) && !o.metadata.deletionTimestamp) {
        this.safely(() => this.api.delete(rt, o.metadata.namespace, o.metadata.name as string, { propagationPolicy: 'Background' }));
      }
    }
    if (this.dependentsOf(ownerUid).length === 0) this.dependents.delete(ownerUid);
  }

  /** Foreground deletion and orphaning: act on dependents, then drop the owner's GC finalizer. */
  private finishOwnerDeletion(gr: string, owner: KubeObject): void {
    const uid = owner.metadata.uid as string;
    const [group, resource] = gr.split('/') as [string, string];
    const ownerType = this.t(group, resource);
    const live = this.api.tryGet(ownerType, owner.metadata.namespace, owner.metadata.name as string);
    if (!live || live.metadata.uid !== uid) return;
    const fin = live.metadata.finalizers ?? [];
    let blocking = 0;
    for (const { rt, obj: o } of this.dependentsOf(uid)) {
      const refs = o.metadata.ownerReferences ?? [];
      if (fin.includes('orphan')) {
        const next: OwnerReference[] = refs.filter((r) => r.uid !== uid);
        this.api.update(rt, o.metadata.namespace, o.metadata.name as string, { ...o, metadata: { ...o.metadata, ownerReferences: next } });
      } else {
        blocking++;
        if (!o.metadata.deletionTimestamp) this.api.delete(rt, o.metadata.namespace, o.metadata.name as string, { propagationPolicy: 'Foreground' });
      }
    }
    if (blocking > 0) return; // the dependents' DELETED events re-trigger this check
    const cur = this.api.get(ownerType, owner.metadata.namespace, owner.metadata.name as string);
    const rest = (cur.metadata.finalizers ?? []).filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    this.api.update(ownerType, owner.metadata.namespace, owner.metadata.name as string, { ...cur, metadata: { ...cur.metadata, finalizers: rest } });
  }

  /** Endpoints + EndpointSlices for every selector Service in a namespace. */
  private reconcileEndpoints(ns: string): void {
    const svcType = this.t('', 'services');
    const pods = this.api.list(this.t('', 'pods'), ns).items;
    for (const svc of this.api.list(svcType, ns).items) {
      const spec = (svc.spec ?? {}) as ServiceSpec;
      if (!spec.selector || Object.keys(spec.selector).length === 0 || spec.type === 'ExternalName') continue;
      const selected = pods.filter((p) => {
        const labels = p.metadata.labels ?? {};
        const phase = (p.status as { phase?: string } | undefined)?.phase;
        return Object.entries(spec.selector ?? {}).every(([k, v]) => labels[k] === v) && phase !== 'Succeeded' && phase !== 'Failed';
      });
      this.writeEndpoints(svc, spec, selected);
    }
    // Owner refs make the GC remove slices; watch for services that vanished before that.
    const sliceType = this.t('discovery.k8s.io', 'endpointslices');
    for (const s of this.api.list(sliceType, ns).items) {
      const svcName = s.metadata.labels?.['kubernetes.io/service-name'];
      if (svcName && s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === managedBy && !this.api.tryGet(svcType, ns, svcName)) {
        this.api.delete(sliceType, ns, s.metadata.name as string);
      }
    }
  }

  /**
   * EndpointSlice mirroring (Kubernetes' endpointslicemirroring controller): a Service without a
   * selector gets EndpointSlices from the Endpoints someone else writes for it (imported
   * Multi-cluster Services, for one), unless they are labelled `endpointslice.kubernetes.io/skip-mirror`.
   */
  private mirrorEndpoints(ns: string): void {
    const svcType = this.t('', 'services');
    const epType = this.t('', 'endpoints');
    const sliceType = this.t('discovery.k8s.io', 'endpointslices');
    const mirrored = this.api.list(sliceType, ns).items.filter((x) => x.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === mirroredBy);
    const keep = new Set<string>();
    for (const svc of this.api.list(svcType, ns).items) {
      const spec = (svc.spec ?? {}) as ServiceSpec;
      if ((spec.selector && Object.keys(spec.selector).length > 0) || spec.type === 'ExternalName') continue;
      const name = svc.metadata.name as string;
      // The API server's own Service: Kubernetes labels its Endpoints skip-mirror.
      if (ns === 'default' && name === 'kubernetes') continue;
      const ep = this.api.tryGet(epType, ns, name);
      if (!ep || ep.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror'] === 'true') continue;
      type Addr = { ip: string; nodeName?: string };
      const subsets = (ep.subsets ?? []) as { addresses?: Addr[]; notReadyAddresses?: Addr[]; ports?: unknown[] }[];
      const endpoint = (a: Addr, ready: boolean): Record<string, unknown> => ({ addresses: [a.ip], conditions: { ready, serving: ready, terminating: false }, ...(a.nodeName ? { nodeName: a.nodeName } : {}) });
      // One slice per subset and address family (IPv4 first), as the mirroring controller writes them.
      const wanted = subsets.flatMap((x) => {
        const slice = (family: string): { addressType: string; ports: unknown[]; endpoints: Record<string, unknown>[] } => {
          const of = (a: Addr): boolean => (ipFamilyOf(a.ip) === 'IPv6') === (family === 'IPv6');
          return { addressType: family, ports: x.ports ?? [], endpoints: [...(x.addresses ?? []).filter(of).map((a) => endpoint(a, true)), ...(x.notReadyAddresses ?? []).filter(of).map((a) => endpoint(a, false))] };
        };
        const v4 = slice('IPv4');
        const v6 = slice('IPv6');
        return v6.endpoints.length === 0 ? [v4] : v4.endpoints.length === 0 ? [v6] : [v4, v6];
      });
      const existing = mirrored.filter((x) => x.metadata.labels?.['kubernetes.io/service-name'] === name);
      const sliceLabels = { ...(svc.metadata.labels ?? {}), 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': mirroredBy };
      const owner: OwnerReference = { apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid as string, controller: true, blockOwnerDeletion: true };
      // A slice keeps its address type: wanted slices reuse existing ones of their family, in order.
      const spare = new Map<string, KubeObject[]>();
      for (const x of existing) spare.set(String(x.addressType), [...(spare.get(String(x.addressType)) ?? []), x]);
      wanted.forEach((w) => {
        const cur = spare.get(w.addressType)?.shift();
        if (!cur) this.api.create(sliceType, ns, { metadata: { generateName: `${name}-`, namespace: ns, labels: sliceLabels, ownerReferences: [owner] }, ...w });
        else {
          keep.add(cur.metadata.name as string);
          if (JSON.stringify({ p: cur.ports, e: cur.endpoints }) !== JSON.stringify({ p: w.ports, e: w.endpoints })) this.api.update(sliceType, ns, cur.metadata.name as string, { ...cur, ...w, metadata: { ...cur.metadata, labels: sliceLabels } });
        }
      });
    }
    for (const x of mirrored) if (!keep.has(x.metadata.name as string)) this.api.delete(sliceType, ns, x.metadata.name as string);
  }

  private writeEndpoints(svc: KubeObject, spec: ServiceSpec, pods: KubeObject[]): void {
    const ns = svc.metadata.namespace as string;
    const name = svc.metadata.name as string;
    // One grouping per family the Service has: the Endpoints take the primary's, the slices each.
    const families = spec.ipFamilies && spec.ipFamilies.length > 0 ? spec.ipFamilies : ['IPv4'];
    const byFamily = new Map<string, Map<string, Group>>(families.map((f) => [f, new Map<string, Group>()]));
    for (const pod of pods) {
      const status = (pod.status ?? {}) as { podIP?: string; podIPs?: { ip: string }[]; conditions?: { type: string; status: string }[] };
      if (!status.podIP) continue;
      const ready = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && !pod.metadata.deletionTimestamp;
      const containers = ((pod.spec as { containers?: { ports?: ContainerPort[] }[] } | undefined)?.containers ?? []).flatMap((c) => c.ports ?? []);
      const ports: { name?: string; port: number; protocol: string; appProtocol?: string }[] = [];
      for (const sp of spec.ports ?? []) {
        const protocol = sp.protocol ?? 'TCP';
        let port: number | undefined;
        if (typeof sp.targetPort === 'string' && !/^\d+$/.test(sp.targetPort)) {
          port = containers.find((c) => c.name === sp.targetPort && (c.protocol ?? 'TCP') === protocol)?.containerPort;
        } else port = Number(sp.targetPort ?? sp.port);
        if (port === undefined) continue;
        const entry: { name?: string; port: number; protocol: string; appProtocol?: string } = { port, protocol };
        if (sp.name !== undefined) entry.name = sp.name;
        if (sp.appProtocol !== undefined) entry.appProtocol = sp.appProtocol;
        ports.push(entry);
      }
      const key = JSON.stringify(ports);
      for (const [family, groups] of byFamily) {
        const ip = podIpOf(status, family, families.length === 1);
        if (ip === undefined) continue;
        const g = groups.get(key) ?? { ports, addrs: [] };
        g.addrs.push({ ip, ready, terminating: pod.metadata.deletionTimestamp !== undefined, pod });
        groups.set(key, g);
      }
    }
    const groups = byFamily.get(families[0] as string)!;
    const ref = (p: KubeObject): Record<string, unknown> => ({ kind: 'Pod', namespace: ns, name: p.metadata.name, uid: p.metadata.uid });
    const addrOf = (a: Addr): Record<string, unknown> => {
      const out: Record<string, unknown> = { ip: a.ip, targetRef: ref(a.pod) };
      const node = (a.pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (node) out.nodeName = node;
      return out;
    };
    const subsets = [...groups.values()]
      .filter((g) => g.ports.length > 0 || (spec.ports ?? []).length === 0)
      .map((g) => {
        const s: Record<string, unknown> = {};
        const ready = g.addrs.filter((a) => a.ready).sort((a, b) => a.ip.localeCompare(b.ip));
        const notReady = g.addrs.filter((a) => !a.ready).sort((a, b) => a.ip.localeCompare(b.ip));
        if (ready.length > 0) s.addresses = ready.map(addrOf);
        if (notReady.length > 0) s.notReadyAddresses = notReady.map(addrOf);
        if (g.ports.length > 0) s.ports = g.ports;
        return s;
      });
    const epType = this.t('', 'endpoints');
    const labels = { ...(svc.metadata.labels ?? {}) };
    const desired: KubeObject = { metadata: { name, namespace: ns, labels } };
    if (subsets.length > 0) desired.subsets = subsets;
    const cur = this.api.tryGet(epType, ns, name);
    if (!cur) this.api.create(epType, ns, desired);
    else if (JSON.stringify(cur.subsets) !== JSON.stringify(desired.subsets) || JSON.stringify(cur.metadata.labels ?? {}) !== JSON.stringify(labels)) {
      this.api.update(epType, ns, name, { ...cur, subsets: desired.subsets, metadata: { ...cur.metadata, labels } });
    }

    this.writeSlices(svc, labels, byFamily, ref);
  }

  /** EndpointSlices: one per family and distinct resolved port set (an empty one per family with no endpoints). */
  private writeSlices(svc: KubeObject, labels: Record<string, string>, byFamily: Map<string, Map<string, Group>>, ref: (p: KubeObject) => Record<string, unknown>): void {
    const ns = svc.metadata.namespace as string;
    const name = svc.metadata.name as string;
    const sliceType = this.t('discovery.k8s.io', 'endpointslices');
    const existing = this.api
      .list(sliceType, ns)
      .items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name && s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === managedBy);
    const wanted = [...byFamily].flatMap(([family, fg]) => {
      const slices = [...fg.values()].map((g) => ({
        addressType: family,
        ports: g.ports,
        endpoints: g.addrs
          .sort((a, b) => a.ip.localeCompare(b.ip))
          .map((a) => {
            const e: Record<string, unknown> = {
              addresses: [a.ip],
              conditions: { ready: a.ready, serving: a.ready || (a.terminating && isPodReady(a.pod)), terminating: a.terminating },
              targetRef: ref(a.pod),
            };
            const node = (a.pod.spec as { nodeName?: string } | undefined)?.nodeName;
            if (node) e.nodeName = node;
            return e;
          }),
      }));
      if (slices.length === 0) slices.push({ addressType: family, ports: [], endpoints: [] });
      return slices;
    });
    const sliceLabels = { ...labels, 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': managedBy };
    const owner: OwnerReference = { apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid as string, controller: true, blockOwnerDeletion: true };
    // A slice keeps its address type (immutable in Kubernetes): wanted slices reuse existing ones of their family.
    const spare = new Map<string, KubeObject[]>();
    for (const x of existing) spare.set(String(x.addressType), [...(spare.get(String(x.addressType)) ?? []), x]);
    const used = new Set<string>();
    wanted.forEach((w) => {
      const cur = spare.get(w.addressType)?.shift();
      if (!cur) {
        this.api.create(sliceType, ns, { metadata: { generateName: `${name}-`, namespace: ns, labels: sliceLabels, ownerReferences: [owner] }, ...w });
        return;
      }
      used.add(cur.metadata.name as string);
      if (JSON.stringify({ a: cur.addressType, p: cur.ports, e: cur.endpoints }) !== JSON.stringify({ a: w.addressType, p: w.ports, e: w.endpoints })) {
        this.api.update(sliceType, ns, cur.metadata.name as string, { ...cur, ...w, metadata: { ...cur.metadata, labels: sliceLabels } });
      }
    });
    for (const extra of existing) if (!used.has(extra.metadata.name as string)) this.api.delete(sliceType, ns, extra.metadata.name as string);
  }
}

interface Addr {
  ip: string;
  ready: boolean;
  terminating: boolean;
  pod: KubeObject;
}
/** Endpoints of one resolved port set. */
type Group = { ports: { name?: string; port: number; protocol: string; appProtocol?: string }[]; addrs: Addr[] };

const managedBy = 'endpointslice-controller.k8s.io';
const mirroredBy = 'endpointslicemirroring-controller.k8s.io';

/**
 * A pod's address of `family`, from `status.podIPs` (or `status.podIP`). `only`: the Service has
 * one family, and a pod reporting only `podIP` counts with it whatever its text (as before families).
 */
function podIpOf(status: { podIP?: string; podIPs?: { ip: string }[] }, family: string, only: boolean): string | undefined {
  const ips = status.podIPs && status.podIPs.length > 0 ? status.podIPs.map((p) => p.ip) : status.podIP ? [status.podIP] : [];
  const hit = ips.find((ip) => ipFamilyOf(ip) === family);
  if (hit !== undefined) return hit;
  return only && (!status.podIPs || status.podIPs.length <= 1) && ipFamilyOf(status.podIP ?? '') === undefined ? status.podIP : undefined;
}

function isPodReady(p: KubeObject): boolean {
  return ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * What the API server does with a Secret's `stringData`: each key is written into `data` as base64
 * (a `stringData` key wins over the same key in `data`), and `stringData` itself is never stored.
 */
function foldStringData(secret: KubeObject): void {
  const sd = secret.stringData;
  if (sd === undefined || sd === null) return;
  delete secret.stringData;
  if (!isRecord(sd)) return;
  const data = (isRecord(secret.data) ? secret.data : {}) as Record<string, string>;
  for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  secret.data = data;
}
