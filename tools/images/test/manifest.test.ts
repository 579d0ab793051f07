import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as models from 'kubernetes-models';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import YAML from 'yaml';
import { parseAgentConfig, parseControllerConfig } from '@switchyard/apis';
import { COMPONENTS, imageReference, REPO_ROOT } from '../src/components';
import { agentConf, generateManifest, imageReferences, renderManifest, type KubeObject, type ManifestOptions } from '../src/manifest';

const run = promisify(execFile);

/** Every kubernetes-models class by apiVersion/kind: the OpenAPI schemas of the Kubernetes API, compiled to validators. */
type Validatable = new (data: unknown) => { validate(): void };
const MODELS = new Map<string, Validatable>();
const collect = (ns: unknown, depth: number): void => {
  if (depth > 3 || ns === null || typeof ns !== 'object') return;
  for (const v of Object.values(ns as Record<string, unknown>)) {
    const m = v as { apiVersion?: unknown; kind?: unknown; prototype?: { validate?: unknown } } | undefined;
    if (typeof v === 'function' && typeof m?.apiVersion === 'string' && typeof m.kind === 'string' && typeof m.prototype?.validate === 'function') MODELS.set(`${m.apiVersion}/${m.kind}`, v as Validatable);
    else collect(v, depth + 1);
  }
};
collect(models, 0);

const byKind = (objects: readonly KubeObject[], kind: string, name: string): KubeObject => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name}`);
  return o;
};
const podSpec = (o: KubeObject): { containers: Array<Record<string, unknown> & { name: string }>; initContainers?: Array<Record<string, unknown>> } =>
  (o['spec'] as { template: { spec: ReturnType<typeof podSpec> } }).template.spec;
const configData = (objects: readonly KubeObject[]): Record<string, string> => byKind(objects, 'ConfigMap', 'switchyard-config')['data'] as Record<string, string>;

const VARIANTS: Array<Partial<ManifestOptions>> = [
  {},
  { trafficEncapMode: 'noEncap' },
  { trafficEncapMode: 'hybrid', tunnelType: 'vxlan' },
  { encryption: 'ipsec' },
  { encryption: 'wireGuard' },
  { networkPolicyOnly: true },
  { multicluster: true },
];

describe('switchyard.yml', () => {
  it.each(VARIANTS.map((v) => [JSON.stringify(v), v] as const))('validates against the Kubernetes OpenAPI schemas with options %s', (_, v) => {
    const objects = generateManifest(v);
    for (const obj of objects) {
      const Model = MODELS.get(`${obj.apiVersion}/${obj.kind}`);
      if (!Model) throw new Error(`no Kubernetes schema for ${obj.apiVersion} ${obj.kind} (${obj.metadata.name})`);
      expect(() => new Model(obj).validate()).not.toThrow();
    }
    // Embedded YAML documents parse as what the agent and controller read.
    const data = configData(objects);
    expect(YAML.parse(data['antrea-agent.conf']!)).toEqual(agentConf({ ...base(), ...v }));
    // ...and the agent and controller accept them with Antrea's keys, without a warning.
    expect(parseAgentConfig(YAML.parse(data['antrea-agent.conf']!)).warnings).toEqual([]);
    expect(parseControllerConfig(YAML.parse(data['antrea-controller.conf']!)).warnings).toEqual([]);
  });

  it('the schema check catches a wrong field (a container without a name, a string replica count)', () => {
    const DaemonSet = MODELS.get('apps/v1/DaemonSet')!;
    expect(() => new DaemonSet({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ image: 'i' }] } } } }).validate()).toThrow(/name/);
    const Deployment = MODELS.get('apps/v1/Deployment')!;
    expect(() => new Deployment({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'one', selector: {}, template: {} } }).validate()).toThrow(/replicas/);
  });

  it('names only images that npm run images builds, for any repository and tag', () => {
    const built = COMPONENTS.map((c) => imageReference(c.name));
    expect(imageReferences(generateManifest({ multicluster: true, encryption: 'ipsec' }))).toEqual(built.sort());
    const other = { repository: 'registry.example:5000/net', tag: 'dev' };
    expect(imageReferences(generateManifest(other))).toEqual(COMPONENTS.map((c) => imageReference(c.name, other)).sort());
  });

  it('is the committed build/yamls/switchyard.yml (regenerate with npm run manifest -w @switchyard/images -- -o build/yamls/switchyard.yml)', () => {
    expect(readFileSync(join(REPO_ROOT, 'build/yamls/switchyard.yml'), 'utf8')).toBe(renderManifest());
  });

  it('runs OVS in the agent pod and installs the CNI plugin and its conflist from an init container', () => {
    const ds = podSpec(byKind(generateManifest(), 'DaemonSet', 'switchyard-agent'));
    expect(ds.containers.map((c) => [c.name, c['command']])).toEqual([
      ['switchyard-agent', ['switchyard-agent']],
      ['switchyard-ovs', ['start-ovs']],
    ]);
    expect(ds.initContainers).toEqual([expect.objectContaining({ name: 'install-cni', command: ['install-cni'], env: [{ name: 'CNI_CONFLIST', value: '/etc/antrea/10-switchyard.conflist' }] })]);
    expect(JSON.parse(configData(generateManifest())['10-switchyard.conflist']!).plugins.map((p: { type: string }) => p.type)).toEqual(['switchyard-cni', 'portmap']);
  });

  it('sets the traffic mode, leaving out the tunnel type where there is no tunnel', () => {
    expect(agentConf({ ...base(), trafficEncapMode: 'hybrid', tunnelType: 'gre' })).toMatchObject({ trafficEncapMode: 'hybrid', tunnelType: 'gre' });
    const noEncap = YAML.parse(configData(generateManifest({ trafficEncapMode: 'noEncap' }))['antrea-agent.conf']!) as Record<string, unknown>;
    expect(noEncap['trafficEncapMode']).toBe('noEncap');
    expect(noEncap).not.toHaveProperty('tunnelType');
  });

  it('with ipsec adds the switchyard-ipsec container and requires the PSK Secret; wireGuard only sets the mode', () => {
    const ipsec = generateManifest({ encryption: 'ipsec' });
    const ds = podSpec(byKind(ipsec, 'DaemonSet', 'switchyard-agent'));
    expect(ds.containers.map((c) => c.name)).toEqual(['switchyard-agent', 'switchyard-ovs', 'switchyard-ipsec']);
    expect(ds.containers[0]!['env']).toContainEqual({ name: 'ANTREA_IPSEC_PSK', valueFrom: { secretKeyRef: { name: 'antrea-ipsec', key: 'psk' } } });
    expect(YAML.parse(configData(ipsec)['antrea-agent.conf']!)).toMatchObject({ trafficEncryptionMode: 'ipsec' });
    const wg = generateManifest({ encryption: 'wireGuard' });
    expect(podSpec(byKind(wg, 'DaemonSet', 'switchyard-agent')).containers.map((c) => c.name)).toEqual(['switchyard-agent', 'switchyard-ovs']);
    expect(JSON.stringify(podSpec(byKind(wg, 'DaemonSet', 'switchyard-agent')))).not.toContain('ANTREA_IPSEC_PSK');
    expect(YAML.parse(configData(wg)['antrea-agent.conf']!)).toMatchObject({ trafficEncryptionMode: 'wireGuard' });
  });

  it('with networkPolicyOnly chains the plugin after the primary CNI instead of installing a conflist', () => {
    const objects = generateManifest({ networkPolicyOnly: true });
    const data = configData(objects);
    expect(YAML.parse(data['antrea-agent.conf']!)).toMatchObject({ trafficEncapMode: 'networkPolicyOnly' });
    expect(data).not.toHaveProperty('10-switchyard.conflist');
    expect(JSON.parse(data['switchyard-cni.conf']!)).toEqual({ type: 'switchyard-cni', cniSocket: '/var/run/antrea/cni.sock' });
    expect(podSpec(byKind(objects, 'DaemonSet', 'switchyard-agent')).initContainers![0]).toMatchObject({ env: [{ name: 'CNI_CHAINED_CONF', value: '/etc/antrea/switchyard-cni.conf' }] });
  });

  it('with multicluster adds the gate, the gateway, the multicluster CRDs and a member mc-controller', () => {
    const plain = generateManifest();
    const mc = generateManifest({ multicluster: true });
    const crds = (objs: KubeObject[]): string[] => objs.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);
    expect(crds(plain).some((n) => n.endsWith('multicluster.crd.antrea.io'))).toBe(false);
    expect(crds(mc)).toEqual(expect.arrayContaining(['gateways.multicluster.crd.antrea.io', 'clusterinfoimports.multicluster.crd.antrea.io', 'serviceexports.multicluster.x-k8s.io']));
    expect(YAML.parse(configData(mc)['antrea-agent.conf']!)).toMatchObject({ featureGates: { Multicluster: true }, multicluster: { enableGateway: true } });
    expect(YAML.parse(configData(mc)['antrea-controller.conf']!)).toMatchObject({ featureGates: { Multicluster: true } });
    expect(podSpec(byKind(mc, 'Deployment', 'switchyard-mc-controller')).containers[0]).toMatchObject({ command: ['switchyard-mc-controller'], args: ['--mode=member', '--namespace=kube-system'], image: imageReference('switchyard-controller') });
    expect(plain.find((o) => o.metadata.name === 'switchyard-mc-controller')).toBeUndefined();
  });

  it('refuses a combination the agent would refuse, naming the field and value', () => {
    expect(() => generateManifest({ encryption: 'ipsec', trafficEncapMode: 'noEncap' })).toThrow('encryption: ipsec needs trafficEncapMode encap, not noEncap (got "ipsec")');
    expect(() => generateManifest({ networkPolicyOnly: true, encryption: 'wireGuard' })).toThrow(/^encryption: .*"wireGuard"/);
    expect(() => generateManifest({ trafficEncapMode: 'tunnel' as never })).toThrow('trafficEncapMode: must be one of encap, noEncap, hybrid (got "tunnel")');
  });

  describe('on the embedded API server', () => {
    let api: KubeApiServer;
    let dir: string;
    beforeAll(async () => {
      api = await startKubeApi();
      dir = mkdtempSync(join(tmpdir(), 'switchyard-manifest-'));
    }, 120_000);
    afterAll(async () => {
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('applies with kubectl, every option at once, and a second apply changes nothing', async () => {
      const file = join(dir, 'switchyard.yml');
      writeFileSync(file, renderManifest({ multicluster: true, encryption: 'ipsec' }));
      const kubectl = (...args: string[]): Promise<{ stdout: string }> => run('kubectl', ['--kubeconfig', api.kubeconfigPath, ...args], { timeout: 120_000 });
      const first = await kubectl('apply', '-f', file);
      expect(first.stdout).toContain('daemonset.apps/switchyard-agent created');
      expect(first.stdout).toContain('deployment.apps/switchyard-controller created');
      expect(first.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/gateways.multicluster.crd.antrea.io created');
      const second = await kubectl('apply', '-f', file);
      expect(second.stdout.split('\n').filter((l) => l.trim() !== '' && !l.endsWith(' unchanged'))).toEqual([]);
      const ds = JSON.parse((await kubectl('get', 'daemonset', '-n', 'kube-system', 'switchyard-agent', '-o', 'json')).stdout) as KubeObject;
      expect(podSpec(ds).containers.map((c) => c['image'])).toEqual([imageReference('switchyard-agent'), imageReference('switchyard-agent'), imageReference('switchyard-agent')]);
    }, 300_000);
  });
});

function base(): ManifestOptions {
  return { trafficEncapMode: 'encap', tunnelType: 'geneve', encryption: 'none', networkPolicyOnly: false, multicluster: false };
}
