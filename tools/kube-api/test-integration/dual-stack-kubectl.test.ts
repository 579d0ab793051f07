// kubectl against dual-stack and IPv4-only servers: Services by ipFamilyPolicy, Node podCIDRs, and
// the errors kubectl prints for a family the cluster does not have; the command's error for node
// IPAM flags that cannot work.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startTestKubeApi, type TestKubeApi } from '../src/testing';

type Svc = { spec: { clusterIP: string; clusterIPs: string[]; ipFamilies: string[]; ipFamilyPolicy: string } };
type Node = { spec: { podCIDR: string; podCIDRs: string[] } };
const service = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } });

describe('kubectl and a dual-stack cluster', () => {
  let t: TestKubeApi;
  beforeAll(async () => {
    t = await startTestKubeApi({ serviceCIDR: 'fd00:10:96::/112,10.96.0.0/16', clusterCIDR: 'fd00:10:244::/56,10.244.0.0/16' });
  });
  afterAll(() => t.api.stop());

  it('applies Services of each policy and reads their clusterIPs back', async () => {
    await t.kubectl.apply(service('single', {}), service('prefer', { ipFamilyPolicy: 'PreferDualStack' }), service('v4', { ipFamilies: ['IPv4'] }));
    const single = await t.kubectl.json<Svc>(['get', 'svc', 'single']);
    expect([single.spec.ipFamilyPolicy, single.spec.ipFamilies]).toEqual(['SingleStack', ['IPv6']]);
    expect(single.spec.clusterIP).toMatch(/^fd00:10:96::/);
    const prefer = await t.kubectl.json<Svc>(['get', 'svc', 'prefer']);
    expect(prefer.spec.ipFamilies).toEqual(['IPv6', 'IPv4']);
    expect(prefer.spec.clusterIPs).toEqual([expect.stringMatching(/^fd00:10:96::/), expect.stringMatching(/^10\.96\./)]);
    expect((await t.kubectl.json<Svc>(['get', 'svc', 'v4'])).spec.clusterIP).toMatch(/^10\.96\./);
    // A second apply of the same manifest changes nothing.
    await t.kubectl.apply(service('prefer', { ipFamilyPolicy: 'PreferDualStack' }));
    expect((await t.kubectl.json<Svc>(['get', 'svc', 'prefer'])).spec.clusterIPs).toEqual(prefer.spec.clusterIPs);
    expect(await t.kubectl.ok(['get', 'svc', 'single'])).toContain(single.spec.clusterIP);
  });

  it('gives a Node created with kubectl one podCIDR per family, IPv6 first as configured', async () => {
    await t.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    const n = await t.kubectl.json<Node>(['get', 'node', 'node-a']);
    expect(n.spec).toEqual({ podCIDR: 'fd00:10:244::/64', podCIDRs: ['fd00:10:244::/64', '10.244.0.0/24'] });
  });
});

describe('kubectl and an IPv4-only cluster', () => {
  let t: TestKubeApi;
  beforeAll(async () => {
    t = await startTestKubeApi({ serviceCIDR: '10.96.0.0/16' });
  });
  afterAll(() => t.api.stop());

  it('prints the server’s 422 naming the field for a family the cluster does not have', async () => {
    const req = await t.kubectl.run(['apply', '-f', '-'], JSON.stringify(service('req', { ipFamilyPolicy: 'RequireDualStack' })));
    expect(req.code).not.toBe(0);
    expect(req.stderr).toContain('Service "req" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const six = await t.kubectl.run(['apply', '-f', '-'], JSON.stringify(service('six', { ipFamilies: ['IPv6'] })));
    expect(six.stderr).toContain('Service "six" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
    expect(await t.kubectl.maybe(['get', 'svc', 'six'])).toBeUndefined();
  });
});

describe('switchyard-kube-api with node IPAM flags that cannot work', () => {
  const bin = join(__dirname, '../bin/switchyard-kube-api.js');
  const start = (args: string[]) => spawnSync(process.execPath, [bin, '--port', '0', ...args], { encoding: 'utf8', timeout: 30_000 });

  it('an IPv6 cluster CIDR too small for the node subnet size: exit 2, one line naming the flag and value', () => {
    const r = start(['--cluster-cidr', '10.244.0.0/16,fd00:10:244::/120']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('switchyard-kube-api: --node-cidr-mask-size-ipv6: invalid value "64": node mask size 64 does not fit cluster CIDR fd00:10:244::/120: a node\'s subnet lies within it, so the size must be 120 to 128\n');
  });

  it('a cluster CIDR that is not one names --cluster-cidr', () => {
    const r = start(['--cluster-cidr', '10.244.0.0/16,fd00::/1200']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^switchyard-kube-api: --cluster-cidr: invalid value "fd00::\/1200": .*invalid prefix length for IPv6\n$/);
  });
});
