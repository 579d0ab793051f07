import type { EndpointSlice, Endpoints, ResourceExport, Service, ServiceExport } from '@switchyard/apis';
import { ExportReason, IMPORTED_ANNOTATION, mergeServiceExports, podIPSubsets, serviceExportPlan, serviceImportPlan, type ExportInput } from '../src';

const NOW = '2026-01-01T00:00:00.000Z';
const se = (name: string, ns = 'default'): ServiceExport => ({ metadata: { name, namespace: ns } });
const nginx: Service = { metadata: { name: 'nginx', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } };
const nginxEps: Endpoints = { metadata: { name: 'nginx', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.10.0.5' }, { ip: '10.10.0.6' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] };

function plan(services: Service[], endpoints: Endpoints[], exportsOf: ServiceExport[], over: Partial<ExportInput> = {}) {
  const find = <T extends { metadata: { name?: string; namespace?: string } }>(xs: T[]) => (ns: string, name: string) => xs.find((x) => x.metadata.namespace === ns && x.metadata.name === name);
  return serviceExportPlan({ clusterID: 'west', leaderNamespace: 'antrea-multicluster', endpointIPType: 'ClusterIP', serviceExports: exportsOf, service: find(services), endpoints: find(endpoints), now: NOW, ...over });
}

describe('serviceExportPlan', () => {
  it('exports a Service as <cluster>-<ns>-<name>-service and -endpoints with the ClusterIP as endpoint', () => {
    const p = plan([nginx], [nginxEps], [se('nginx')]);
    expect(p.resourceExports.map((r) => r.metadata.name)).toEqual(['west-default-nginx-service', 'west-default-nginx-endpoints']);
    expect(p.resourceExports[1]!.spec.endpoints?.subsets).toEqual([{ addresses: [{ ip: '10.96.0.10' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }]);
    expect(p.valid.get('default/nginx')).toMatchObject({ type: 'Valid', status: 'True', reason: ExportReason.Succeed });
  });

  it('uses the Pod IPs and target ports with endpointIPType PodIP', () => {
    const p = plan([nginx], [nginxEps], [se('nginx')], { endpointIPType: 'PodIP' });
    expect(p.resourceExports[1]!.spec.endpoints?.subsets).toEqual([{ addresses: [{ ip: '10.10.0.5' }, { ip: '10.10.0.6' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]);
  });

  it("exports a dual-stack Service's Pod IPs of both families with endpointIPType PodIP (the second family from its EndpointSlice)", () => {
    const dual: Service = { ...nginx, spec: { ...nginx.spec, clusterIPs: ['10.96.0.10', 'fd00:10:96::a'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' } };
    const slice = (addressType: 'IPv4' | 'IPv6', endpoints: EndpointSlice['endpoints'], port = 8080): EndpointSlice => ({ metadata: { name: `nginx-${addressType}`, namespace: 'default', labels: { 'kubernetes.io/service-name': 'nginx' } }, addressType, endpoints, ports: [{ name: 'http', port, protocol: 'TCP' }] });
    const slices = [
      slice('IPv4', [{ addresses: ['10.10.0.5'] }, { addresses: ['10.10.0.6'] }]),
      // Ready unset counts as ready; a not-ready endpoint stays out.
      slice('IPv6', [{ addresses: ['fd00:10:10::5'], conditions: { ready: true } }, { addresses: ['fd00:10:10::6'] }, { addresses: ['fd00:10:10::7'], conditions: { ready: false } }]),
    ];
    const p = plan([dual], [nginxEps], [se('nginx')], { endpointIPType: 'PodIP', endpointSlices: (ns, name) => (ns === 'default' && name === 'nginx' ? slices : []) });
    expect(p.resourceExports[1]!.spec.endpoints?.subsets).toEqual([{ addresses: [{ ip: '10.10.0.5' }, { ip: '10.10.0.6' }, { ip: 'fd00:10:10::5' }, { ip: 'fd00:10:10::6' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]);
    expect(p.resourceExports[0]!.spec.service?.serviceSpec).toMatchObject({ ipFamilies: ['IPv4', 'IPv6'] });
  });

  it('puts secondary-family Pod IPs with other ports in a subset of their own', () => {
    const six: EndpointSlice = { metadata: { name: 'nginx-v6', namespace: 'default' }, addressType: 'IPv6', endpoints: [{ addresses: ['fd00:10:10::5'] }], ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] };
    expect(podIPSubsets(nginxEps.subsets as never, [six])).toEqual([...(nginxEps.subsets ?? []), { addresses: [{ ip: 'fd00:10:10::5' }], ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] }]);
  });

  it.each([
    ['a missing Service', [], [], ExportReason.ServiceNotFound],
    ['an ExternalName Service', [{ ...nginx, spec: { type: 'ExternalName' as const, externalName: 'example.com' } }], [nginxEps], ExportReason.ServiceTypeNotSupported],
    ['a headless Service', [{ ...nginx, spec: { ...nginx.spec, clusterIP: 'None' } }], [nginxEps], ExportReason.ServiceNoClusterIP],
    ['a Service without ready endpoints', [nginx], [{ ...nginxEps, subsets: [{ notReadyAddresses: [{ ip: '10.10.0.5' }], ports: [] }] }], ExportReason.ServiceNoEndpoints],
    ['an imported Service', [{ ...nginx, metadata: { ...nginx.metadata, annotations: { [IMPORTED_ANNOTATION]: 'true' } } }], [nginxEps], ExportReason.ImportedService],
  ])('does not export %s and says why', (_what, svcs, eps, reason) => {
    const p = plan(svcs as Service[], eps as Endpoints[], [se('nginx')]);
    expect(p.resourceExports).toEqual([]);
    expect(p.valid.get('default/nginx')).toMatchObject({ type: 'Valid', status: 'False', reason });
  });
});

const reOf = (cluster: string, kind: 'Service' | 'Endpoints', ports: number[], created: string, ip = `10.${cluster.length}.0.1`): ResourceExport => ({
  metadata: { name: `${cluster}-default-nginx-${kind.toLowerCase()}`, namespace: 'antrea-multicluster', creationTimestamp: created },
  spec:
    kind === 'Service'
      ? { clusterID: cluster, name: 'nginx', namespace: 'default', kind, service: { serviceSpec: { ports: ports.map((port) => ({ port, protocol: 'TCP' })) } } }
      : { clusterID: cluster, name: 'nginx', namespace: 'default', kind, endpoints: { subsets: [{ addresses: [{ ip }], ports: ports.map((port) => ({ port, protocol: 'TCP' })) }] } },
});

describe('mergeServiceExports', () => {
  it('merges the endpoints of every cluster exporting the same Service', () => {
    const p = mergeServiceExports([reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1', '10.1.0.1'), reOf('east', 'Service', [80], 't2'), reOf('east', 'Endpoints', [80], 't2', '10.2.0.1')], 'antrea-multicluster', NOW);
    expect(p.resourceImports.map((r) => r.metadata.name)).toEqual(['default-nginx-service', 'default-nginx-endpoints']);
    expect(p.resourceImports[0]!.spec).toMatchObject({ kind: 'ServiceImport', clusters: ['east', 'west'], serviceImport: { spec: { ports: [{ port: 80, protocol: 'TCP' }], type: 'ClusterSetIP' } } });
    expect(p.resourceImports[1]!.spec.endpoints?.subsets?.flatMap((s) => s.addresses?.map((a) => a.ip))).toEqual(['10.2.0.1', '10.1.0.1']);
  });

  it('keeps the first export on a port conflict and fails the later one with ConvergeFailure', () => {
    const p = mergeServiceExports([reOf('east', 'Service', [8080], 't2'), reOf('east', 'Endpoints', [8080], 't2'), reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')], 'antrea-multicluster', NOW);
    expect(p.resourceImports[0]!.spec.clusters).toEqual(['west']);
    expect(p.resourceImports[0]!.spec.serviceImport?.spec.ports).toEqual([{ port: 80, protocol: 'TCP' }]);
    expect(p.exportStatus.get('east-default-nginx-service')?.conditions[0]).toMatchObject({ status: 'False', reason: 'ConvergeFailure' });
    expect(p.exportStatus.get('west-default-nginx-service')?.conditions[0]).toMatchObject({ status: 'True', reason: 'Succeed' });
  });

  it('keeps the ports the Service is imported with when exports were made within the same second (no flip to the name order)', () => {
    const exports = [reOf('east', 'Service', [8080], 't1'), reOf('east', 'Endpoints', [8080], 't1'), reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')];
    // Without an import yet, equal creation times fall back to the name order: east first.
    expect(mergeServiceExports(exports, 'antrea-multicluster', NOW).resourceImports[0]!.spec.clusters).toEqual(['east']);
    const imported = mergeServiceExports(exports.slice(2), 'antrea-multicluster', NOW).resourceImports;
    const p = mergeServiceExports(exports, 'antrea-multicluster', NOW, () => true, imported);
    expect(p.resourceImports[0]!.spec.clusters).toEqual(['west']);
    expect(p.exportStatus.get('east-default-nginx-service')?.conditions[0]).toMatchObject({ status: 'False', reason: 'ConvergeFailure' });
    // Once no export has the imported ports any more, the oldest export decides again.
    const after = mergeServiceExports(exports.slice(0, 2), 'antrea-multicluster', NOW, () => true, imported);
    expect(after.resourceImports[0]!.spec).toMatchObject({ clusters: ['east'], serviceImport: { spec: { ports: [{ port: 8080, protocol: 'TCP' }] } } });
  });

  it('leaves out clusters the leader refused', () => {
    const p = mergeServiceExports([reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')], 'ns', NOW, (c) => c !== 'west');
    expect(p.resourceImports).toEqual([]);
  });
});

describe('serviceImportPlan', () => {
  const ris = mergeServiceExports([reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1', '10.96.0.10')], 'antrea-multicluster', NOW).resourceImports;

  it('imports antrea-mc-<name> Service and Endpoints, annotated, and a ServiceImport', () => {
    const p = serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true });
    expect(p.services).toEqual([{ metadata: { name: 'antrea-mc-nginx', namespace: 'default', annotations: { [IMPORTED_ANNOTATION]: 'true' } }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } }]);
    expect(p.endpoints[0]!.subsets).toEqual([{ addresses: [{ ip: '10.96.0.10' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
    expect(p.serviceImports[0]).toMatchObject({ metadata: { name: 'nginx', namespace: 'default' }, spec: { type: 'ClusterSetIP' }, status: { clusters: [{ cluster: 'west' }] } });
  });

  it('never overwrites a local Service of the same name that was not imported', () => {
    const local: Service = { metadata: { name: 'antrea-mc-nginx', namespace: 'default' }, spec: { ports: [{ port: 9 }] } };
    const p = serviceImportPlan({ resourceImports: ris, service: () => local, namespaceExists: () => true });
    expect(p.services).toEqual([]);
    expect(p.skipped).toEqual([expect.objectContaining({ namespace: 'default', name: 'nginx' })]);
  });

  it('waits for a missing namespace', () => {
    const p = serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => false });
    expect(p.services).toEqual([]);
    expect(p.skipped[0]!.reason).toMatch(/namespace default does not exist/);
  });
});

describe('a dual-stack Service across clusters', () => {
  const dualSvc: Service = { metadata: { name: 'nginx', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00:96::a'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } };

  it('exports both ClusterIPs and families, and every member imports it dual-stack with both ClusterIPs in its ServiceImport', () => {
    const exported = plan([dualSvc], [nginxEps], [se('nginx')]).resourceExports.map((re) => ({ ...re, metadata: { ...re.metadata, creationTimestamp: 't1' } }));
    expect(exported[0]!.spec.service?.serviceSpec).toMatchObject({ ipFamilies: ['IPv4', 'IPv6'] });
    expect(exported[1]!.spec.endpoints?.subsets).toEqual([{ addresses: [{ ip: '10.96.0.10' }, { ip: 'fd00:96::a' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }]);
    const ris = mergeServiceExports(exported, 'antrea-multicluster', NOW).resourceImports;
    expect(ris[0]!.spec.serviceImport?.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    const p = serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true });
    // PreferDualStack without naming the families: a single-stack importing cluster still gets its own family.
    expect(p.services[0]!.spec).toMatchObject({ ipFamilyPolicy: 'PreferDualStack' });
    expect(p.services[0]!.spec).not.toHaveProperty('ipFamilies');
    expect(p.endpoints[0]!.subsets?.[0]?.addresses).toEqual([{ ip: '10.96.0.10' }, { ip: 'fd00:96::a' }]);
    const allocated: Service = { metadata: { name: 'antrea-mc-nginx', namespace: 'default', annotations: { [IMPORTED_ANNOTATION]: 'true' } }, spec: { clusterIP: '10.112.0.7', clusterIPs: ['10.112.0.7', 'fd00:112::7'], ipFamilies: ['IPv4', 'IPv6'] } };
    expect(serviceImportPlan({ resourceImports: ris, service: () => allocated, namespaceExists: () => true }).serviceImports[0]!.spec).toMatchObject({ ips: ['10.112.0.7', 'fd00:112::7'], ipFamilies: ['IPv4', 'IPv6'] });
  });

  it('imports one family as exported (SingleStack), and an IPv4 exporter that names no families leaves them to the server', () => {
    const v6: Service = { metadata: { name: 'nginx', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: 'fd00:96::a', ports: [{ port: 80 }] } };
    const ris = mergeServiceExports(plan([v6], [nginxEps], [se('nginx')]).resourceExports, 'ns', NOW).resourceImports;
    expect(serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true }).services[0]!.spec).toMatchObject({ ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' });
    const old = mergeServiceExports([reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')], 'ns', NOW).resourceImports;
    expect(serviceImportPlan({ resourceImports: old, service: () => undefined, namespaceExists: () => true }).services[0]!.spec).not.toHaveProperty('ipFamilies');
  });

  it('an IPv6-only member skips an import of IPv4 addresses alone, saying so, and makes those it can reach', () => {
    const v4: Service = { metadata: { name: 'nginx', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 80 }] } };
    const ris = mergeServiceExports(plan([v4], [nginxEps], [se('nginx')]).resourceExports, 'ns', NOW).resourceImports;
    const p = serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true, clusterFamilies: ['IPv6'] });
    expect(p.services).toEqual([]);
    expect(p.endpoints).toEqual([]);
    expect(p.serviceImports).toEqual([]);
    expect(p.skipped).toEqual([{ namespace: 'default', name: 'nginx', reason: 'exported with IPv4 addresses only, and this cluster has IPv6 Services alone' }]);
    // An exporter that names no families: its endpoint addresses say which.
    const old = mergeServiceExports([reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')], 'ns', NOW).resourceImports;
    expect(serviceImportPlan({ resourceImports: old, service: () => undefined, namespaceExists: () => true, clusterFamilies: ['IPv6'] }).skipped).toHaveLength(1);
    // A dual-stack export is imported (PreferDualStack: the server gives its IPv6 ClusterIP), and with the families unknown everything is.
    const dual = mergeServiceExports(plan([dualSvc], [nginxEps], [se('nginx')]).resourceExports, 'ns', NOW).resourceImports;
    expect(serviceImportPlan({ resourceImports: dual, service: () => undefined, namespaceExists: () => true, clusterFamilies: ['IPv6'] }).services).toHaveLength(1);
    expect(serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true }).services).toHaveLength(1);
    expect(serviceImportPlan({ resourceImports: ris, service: () => undefined, namespaceExists: () => true, clusterFamilies: ['IPv4', 'IPv6'] }).skipped).toEqual([]);
  });

  it('merges the families of every exporting cluster, the first export\'s first', () => {
    const fam = (re: ResourceExport, ipFamilies: string[]): ResourceExport => ({ ...re, spec: { ...re.spec, service: { serviceSpec: { ...re.spec.service?.serviceSpec, ipFamilies } } } });
    const ris = mergeServiceExports([fam(reOf('west', 'Service', [80], 't1'), ['IPv4']), reOf('west', 'Endpoints', [80], 't1'), fam(reOf('east', 'Service', [80], 't2'), ['IPv6', 'IPv4']), reOf('east', 'Endpoints', [80], 't2')], 'ns', NOW).resourceImports;
    expect(ris[0]!.spec.serviceImport?.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
  });
});

describe('malformed ResourceExports', () => {
  it.each([
    [{ kind: 'Service', name: 'x', namespace: 'd', clusterID: 'c', service: { serviceSpec: { ports: [{ port: 80 }], ipFamilies: ['IPv4', 'IPv7'] } } }, 'spec.service.serviceSpec.ipFamilies[1] must be IPv4 or IPv6, once, got "IPv7"'],
    [{ kind: 'Servce', name: 'x', namespace: 'd', clusterID: 'c' }, 'spec.kind "Servce" is not one of'],
    [{ kind: 'Service', namespace: 'd', clusterID: 'c', service: { serviceSpec: { ports: [] } } }, 'spec.name is required for kind Service'],
    [{ kind: 'Service', name: 'x', namespace: 'd', clusterID: 'c', service: { serviceSpec: { ports: [{ port: 70000 }] } } }, 'spec.service.serviceSpec.ports[0].port must be 1..65535, got 70000'],
    [{ kind: 'Service', name: 'x', namespace: 'd', clusterID: 'c' }, 'spec.service.serviceSpec.ports must be a list, got null'],
  ])('gets InvalidSpec naming the field and is left out: %j', (spec, message) => {
    const bad = { metadata: { name: 'hand-written', creationTimestamp: 't0' }, spec } as ResourceExport;
    const p = mergeServiceExports([bad, reOf('west', 'Service', [80], 't1'), reOf('west', 'Endpoints', [80], 't1')], 'ns', NOW);
    expect(p.exportStatus.get('hand-written')?.conditions[0]).toMatchObject({ status: 'False', reason: 'InvalidSpec', message: expect.stringContaining(message) });
    expect(p.resourceImports[0]!.spec.clusters).toEqual(['west']);
  });
});
