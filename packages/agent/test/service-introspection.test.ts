/** The agent API's `GET /services`: the realised Service ports with their names and health-check port, from the services part's state. */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@switchyard/kube';
import { LocalApi, type AgentIntrospection } from '../src/features/api/api';
import { servicePortInfos } from '../src/features/services/introspection';
import { ServiceGroupIds, servicesToSpecs } from '../src/features/services/services';

const intro: AgentIntrospection = {
  nodeName: 'n1', podCIDR: '10.1.0.0/24', bridge: 'br-int', round: 1, startTime: new Date(0),
  podInterfaces: () => [], installedFlows: async () => [], tableName: () => undefined, tableId: () => undefined,
  ovsVersion: async () => '3.1.0', policyCounts: () => ({ policies: 0, addressGroups: 0, appliedToGroups: 0 }), controllerConnected: () => undefined,
};

/** A LoadBalancer Service (Local, two ports, one endpoint here and one on n2) and a ClusterIP Service, mapped as the services part maps them. */
function mapped(): ReturnType<typeof servicesToSpecs> & { groupIds: ServiceGroupIds } {
  const svc = (name: string, spec: Record<string, unknown>, status?: unknown): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'x' }, spec, ...(status ? { status } : {}) }) as KubeObject;
  const slice = (service: string, ports: unknown[], endpoints: unknown[]): KubeObject =>
    ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${service}-1`, namespace: 'x', labels: { 'kubernetes.io/service-name': service } }, addressType: 'IPv4', ports, endpoints }) as KubeObject;
  const groupIds = new ServiceGroupIds();
  const m = servicesToSpecs({
    nodeName: 'n1', groupIds,
    services: [
      svc('lb', { type: 'LoadBalancer', clusterIP: '10.96.0.11', externalTrafficPolicy: 'Local', healthCheckNodePort: 32000, ports: [{ name: 'https', port: 443, protocol: 'TCP', nodePort: 31443 }, { name: 'dns', port: 53, protocol: 'UDP', nodePort: 31053 }] }, { loadBalancer: { ingress: [{ ip: '10.201.0.100' }] } }),
      svc('web', { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80, protocol: 'TCP' }] }),
    ],
    slices: [
      slice('lb', [{ name: 'https', port: 8443, protocol: 'TCP' }, { name: 'dns', port: 5353, protocol: 'UDP' }], [{ addresses: ['10.10.1.5'], nodeName: 'n1' }, { addresses: ['10.10.2.7'], nodeName: 'n2' }]),
      slice('web', [{ port: 8080, protocol: 'TCP' }], [{ addresses: ['10.10.2.8'], nodeName: 'n2' }]),
    ],
  });
  return { ...m, groupIds };
}

function get(socketPath: string, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path }, (res) => {
      let t = '';
      res.on('data', (d: Buffer) => (t += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(t) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('servicePortInfos', () => {
  test('each spec unchanged, with namespace, name and port name from its group key, and the health-check port of its Service (served or not)', () => {
    const m = mapped();
    const infos = servicePortInfos({ specs: m.specs, groups: m.groupIds.entries(), healthChecks: m.healthChecks, served: [] });
    expect(infos.map((i) => [i.namespace, i.name, i.portName, i.protocol, i.port])).toEqual([['x', 'lb', 'https', 'TCP', 443], ['x', 'lb', 'dns', 'UDP', 53], ['x', 'web', '', 'TCP', 80]]);
    infos.forEach((info, k) => expect(info).toMatchObject(m.specs[k]!));
    const https = infos[0]!;
    expect(https).toMatchObject({ externalAddresses: ['10.201.0.100'], externalLocal: true, nodePort: 31443, healthCheckNodePort: 32000, healthCheckServed: false });
    expect(https.endpoints).toEqual([{ ip: '10.10.1.5', port: 8443, local: true }, { ip: '10.10.2.7', port: 8443 }]);
    expect(https.localGroupId).not.toBe(https.groupId);
    expect(infos[2]).not.toHaveProperty('healthCheckNodePort');
    const served = servicePortInfos({ specs: m.specs, groups: m.groupIds.entries(), healthChecks: m.healthChecks, served: m.healthChecks });
    expect(served[1]).toMatchObject({ healthCheckNodePort: 32000, healthCheckServed: true });
  });
});

describe('GET /services', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sy-api-svc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('answers every realised Service port, or those of ?namespace=&name=', async () => {
    const m = mapped();
    const infos = servicePortInfos({ specs: m.specs, groups: m.groupIds.entries(), healthChecks: m.healthChecks, served: [] });
    const api = await LocalApi.listen(join(dir, 'a.sock'), { ...intro, services: () => infos });
    try {
      expect(await get(api.address, '/services')).toEqual({ status: 200, body: JSON.parse(JSON.stringify(infos)) });
      const lb = await get(api.address, '/services?namespace=x&name=lb');
      expect((lb.body as { portName: string }[]).map((p) => p.portName)).toEqual(['https', 'dns']);
      expect(await get(api.address, '/services?namespace=y')).toEqual({ status: 200, body: [] });
    } finally {
      await api.close();
    }
  });

  test('is 404 naming AntreaProxy on an agent without it', async () => {
    const api = await LocalApi.listen(join(dir, 'b.sock'), intro);
    try {
      expect(await get(api.address, '/services')).toEqual({ status: 404, body: { error: 'AntreaProxy is not enabled on this agent' } });
    } finally {
      await api.close();
    }
  });
});
