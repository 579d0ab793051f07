// ExternalNode -> ExternalEntity (external-node.txt) and node IPAM across a controller restart,
// against the embedded API server.
import { createHash } from 'node:crypto';
import type { Controller } from '../src/controller';
import { eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;

beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

interface EE {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; apiVersion: string }[] };
  spec: { endpoints: { ip: string; name?: string }[]; externalNode: string };
}

describe('ExternalNode controller', () => {
  test('one unnamed interface: an ExternalEntity named after the ExternalNode, labels, endpoints, owner (as in external-node.txt)', async () => {
    controller = await c.startController();
    await c.kubectl.ok(['create', 'namespace', 'vm-ns']);
    await c.kubectl.apply({ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm1', namespace: 'vm-ns', labels: { role: 'db' } }, spec: { interfaces: [{ ips: ['172.16.100.3'], name: '' }] } });
    const en = await c.kube.request<{ metadata: { uid: string } }>('GET', '/apis/crd.antrea.io/v1alpha1/namespaces/vm-ns/externalnodes/vm1');
    const ee = await eventually(() => c.kube.request<EE>('GET', '/apis/crd.antrea.io/v1alpha2/namespaces/vm-ns/externalentities/vm1'));
    expect(ee.metadata.labels).toEqual({ role: 'db' });
    expect(ee.spec).toEqual({ endpoints: [{ ip: '172.16.100.3' }], externalNode: 'vm1' });
    expect(ee.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ExternalNode', name: 'vm1', uid: en.metadata.uid })]);
    const info = await eventually(() => c.kube.request<{ metadata: { name: string } }>('GET', '/apis/crd.antrea.io/v1beta1/antreaagentinfos/vm1'));
    expect(info.metadata.name).toBe('vm1');
  });

  test('a named interface: <name>-<sha1(ifname)[:5]>, endpoint names from the interface', async () => {
    // The CRD schema (like Antrea's) allows one interface; several are handled by externalEntitiesFor (unit test).
    await c.kubectl.apply({ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm2', namespace: 'vm-ns', labels: { role: 'web' } }, spec: { interfaces: [{ ips: ['172.16.100.4', '172.16.100.5'], name: 'eth0' }] } });
    const h = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 5);
    const eth0 = await eventually(() => c.kube.request<EE>('GET', `/apis/crd.antrea.io/v1alpha2/namespaces/vm-ns/externalentities/vm2-${h('eth0')}`));
    expect(eth0.spec.endpoints).toEqual([{ ip: '172.16.100.4', name: 'eth0' }, { ip: '172.16.100.5', name: 'eth0' }]);
    expect(eth0.metadata.labels).toEqual({ role: 'web' });
    // The entities become policy members like any other.
    await eventuallyPasses(() => expect(controller?.hub.engine.externalEntities.size).toBe(2));
  });

  test('an interface with IPv4 and IPv6 addresses: the VM is policed by both (its applied-to group, explain over IPv6)', async () => {
    const vm = { apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm6', namespace: 'vm-ns', labels: { role: 'v6' } }, spec: { interfaces: [{ ips: ['172.16.100.6', 'FD00:AB:0::6'], name: '' }] } };
    const policy = { apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'vm6-in', namespace: 'vm-ns' }, spec: { priority: 1, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'v6' } } }], ingress: [{ action: 'Drop', name: 'no-v6-admin', from: [{ ipBlock: { cidr: 'fd00:ab::/64', except: ['fd00:ab::1/128'] } }] }] } };
    await c.kubectl.apply(vm, policy);
    const raw = async <T>(path: string): Promise<T> => JSON.parse(await c.kubectl.ok(['get', '--raw', `/apis/controlplane.switchyard.io/v1beta2/${path}`])) as T;
    type Group = { groupMembers: { externalEntity?: { name: string; namespace: string }; ips: string[] }[] };
    // The entity keeps the address as written; the group carries one spelling per address.
    await eventuallyPasses(async () => {
      const groups = (await raw<{ items: Group[] }>('appliedtogroups')).items.flatMap((g) => g.groupMembers).filter((m) => m.externalEntity?.name === 'vm6');
      expect(groups).toEqual([{ externalEntity: { name: 'vm6', namespace: 'vm-ns' }, ips: ['172.16.100.6', 'fd00:ab::6'] }]);
    }, 30000);
    const ask = (src: string, dst: string): Promise<{ allowed: boolean; ipFamily?: string; ingress: { policy?: { name: string } } }> => raw(`explain?src=${encodeURIComponent(src)}&dst=${encodeURIComponent(dst)}&protocol=TCP&port=22`);
    expect(await ask('fd00:ab::9', 'FD00:AB:0::6')).toMatchObject({ allowed: false, ipFamily: 'IPv6', ingress: { policy: { name: 'vm6-in' } } });
    expect(await ask('fd00:ab::1', 'fd00:ab::6')).toMatchObject({ allowed: true, ipFamily: 'IPv6' });
    expect(await ask('172.16.100.9', '172.16.100.6')).toMatchObject({ allowed: true, ipFamily: 'IPv4' });
    await c.kubectl.ok(['-n', 'vm-ns', 'delete', 'networkpolicies.crd.antrea.io/vm6-in', 'externalnode/vm6']);
    await eventuallyPasses(async () => {
      const list = await c.kube.request<{ items: EE[] }>('GET', '/apis/crd.antrea.io/v1alpha2/namespaces/vm-ns/externalentities');
      expect(list.items.map((e) => e.metadata.name)).not.toContain('vm6');
    }, 30000);
  });

  test('renaming the interface replaces its entity; deleting the ExternalNode deletes the rest and its AntreaAgentInfo', async () => {
    const h = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 5);
    await c.kubectl.apply({ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm2', namespace: 'vm-ns', labels: { role: 'web' } }, spec: { interfaces: [{ ips: ['172.16.100.4'], name: 'ens5' }] } });
    await eventuallyPasses(async () => {
      const list = await c.kube.request<{ items: EE[] }>('GET', '/apis/crd.antrea.io/v1alpha2/namespaces/vm-ns/externalentities');
      expect(list.items.map((e) => e.metadata.name).sort()).toEqual(['vm1', `vm2-${h('ens5')}`]);
    });
    await c.kubectl.ok(['-n', 'vm-ns', 'delete', 'externalnode', 'vm1']);
    await eventuallyPasses(async () => {
      const list = await c.kube.request<{ items: EE[] }>('GET', '/apis/crd.antrea.io/v1alpha2/namespaces/vm-ns/externalentities');
      expect(list.items.map((e) => e.metadata.name)).toEqual([`vm2-${h('ens5')}`]);
      const infos = await c.kube.request<{ items: { metadata: { name: string } }[] }>('GET', '/apis/crd.antrea.io/v1beta1/antreaagentinfos');
      expect(infos.items.map((i) => i.metadata.name)).toEqual(['vm2']);
    });
    await controller?.stop();
    controller = undefined;
  });
});

describe('node IPAM', () => {
  const podCIDRs = async (): Promise<Record<string, string[] | undefined>> => {
    const list = await c.kube.request<{ items: { metadata: { name: string }; spec?: { podCIDRs?: string[] } }[] }>('GET', '/api/v1/nodes');
    return Object.fromEntries(list.items.map((n) => [n.metadata.name, n.spec?.podCIDRs]));
  };

  test('assigns non-overlapping podCIDRs and keeps them across a controller restart', async () => {
    const nodeIPAM = { clusterCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'], nodeMaskSizeIPv4: 24, nodeMaskSizeIPv6: 64 };
    await c.kubectl.apply(...['n1', 'n2', 'n3'].map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })));
    controller = await c.startController({ nodeIPAM });
    const first = await eventually(async () => {
      const m = await podCIDRs();
      for (const n of ['n1', 'n2', 'n3']) expect(m[n]).toHaveLength(2);
      return m;
    });
    const v4 = ['n1', 'n2', 'n3'].map((n) => first[n]?.[0]);
    const v6 = ['n1', 'n2', 'n3'].map((n) => first[n]?.[1]);
    expect(new Set(v4).size).toBe(3);
    expect(new Set(v6).size).toBe(3);
    for (const cidr of v4) expect(cidr).toMatch(/^10\.244\.\d+\.0\/24$/);
    for (const cidr of v6) expect(cidr).toMatch(/^fd00:10:244:[0-9a-f:]*\/64$/);
    await controller.stop();
    // Restart: the new instance takes over the recorded subnets and gives a new node a free one.
    controller = await c.startController({ nodeIPAM });
    await c.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n4' } });
    const second = await eventually(async () => {
      const m = await podCIDRs();
      expect(m.n4).toHaveLength(2);
      return m;
    });
    for (const n of ['n1', 'n2', 'n3']) expect(second[n]).toEqual(first[n]);
    expect(v4).not.toContain(second.n4?.[0]);
    expect(v6).not.toContain(second.n4?.[1]);
  });
});
