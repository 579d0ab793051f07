// Every seed manifest applied verbatim with the real kubectl over TLS and read back equal;
// mutants rejected with the field paths kube-apiserver would name.
import { startKubeApi, type KubeApiServer } from '../src/index';
import { loadCrds } from '@switchyard/apis';
import { Kubectl } from '../src/testing';
import { missingFields, seedDocs } from './support/seeds';
import YAML from 'yaml';

let server: KubeApiServer;
let k: Kubectl;

beforeAll(async () => {
  server = await startKubeApi();
  k = new Kubectl(server.kubeconfigPath);
  // The CRDs @switchyard/apis ships, applied with kubectl like a user would.
  await k.ok(['apply', '-f', '-'], loadCrds().map((c) => YAML.stringify(c)).join('---\n'));
  for (const ns of ['vm-ns', 'antrea-multicluster', 'prod-us-west']) await k.ok(['create', 'namespace', ns]);
});
afterAll(() => server.stop());

function strip(doc: Record<string, unknown>): Record<string, unknown> {
  const meta = { ...(doc.metadata as Record<string, unknown>) };
  delete meta.resourceVersion;
  delete meta.uid;
  return { ...doc, metadata: meta };
}

describe('seed manifests', () => {
  it.each(seedDocs().map((s) => [s.file, s] as const))('%s applies verbatim and reads back equal', async (_file, seed) => {
    // external-node-03 shows an object as the server returned it: kubectl apply drops its
    // resourceVersion on create and the server assigns its own uid, so those are not compared.
    await k.ok(['apply', '-f', '-'], seed.text);
    for (const doc of seed.docs.map(strip)) {
      const meta = doc.metadata as { name: string; namespace?: string };
      // kind.version.group pins the version the seed was written in (not the preferred one).
      const [group, version] = String(doc.apiVersion).includes('/') ? String(doc.apiVersion).split('/') : ['', String(doc.apiVersion)];
      const kind = group === '' ? String(doc.kind) : `${String(doc.kind)}.${String(version)}.${String(group)}`;
      const args = ['get', `${kind}/${meta.name}`];
      if (meta.namespace) args.push('-n', meta.namespace);
      const got = await k.json(args);
      expect(missingFields(doc, got)).toEqual([]);
    }
  });

  it('re-applying a seed is a no-op (kubectl reports unchanged)', async () => {
    const seed = seedDocs().find((s) => s.file.startsWith('walkthrough-02')) as { text: string };
    await k.ok(['apply', '-f', '-'], seed.text);
    expect(await k.ok(['apply', '-f', '-'], seed.text)).toContain('unchanged');
  });
});

describe('invalid mutants', () => {
  it('rejects an ExternalNode whose interface IP is not an address, naming the field', async () => {
    const seed = seedDocs().find((s) => s.file.startsWith('external-node-02')) as { docs: Record<string, unknown>[] };
    const mutant = structuredClone(seed.docs[0]) as { metadata: { name: string }; spec: { interfaces: { ips: string[] }[] } };
    mutant.metadata.name = 'vm-bad';
    (mutant.spec.interfaces[0] as { ips: string[] }).ips = ['300.1.1.1'];
    const r = await k.run(['apply', '-f', '-'], YAML.stringify(mutant));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The ExternalNode "vm-bad" is invalid');
    expect(r.stderr).toContain('spec.interfaces[0].ips[0]: Invalid value: "300.1.1.1"');
  });

  it('rejects a ClusterNetworkPolicy with an out-of-range priority and port', async () => {
    const seed = seedDocs().find((s) => s.file.startsWith('multicluster-11')) as { docs: Record<string, unknown>[] };
    const mutant = structuredClone(seed.docs[0]) as { metadata: { name: string }; spec: { priority: number; ingress: Record<string, unknown>[] } };
    mutant.metadata.name = 'acnp-bad';
    mutant.spec.priority = 20000;
    (mutant.spec.ingress[0] as Record<string, unknown>).ports = [{ protocol: 'TCP', port: 70000 }];
    const r = await k.run(['apply', '-f', '-'], YAML.stringify(mutant));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('spec.priority: Invalid value: 20000: spec.priority in body should be less than or equal to 10000');
    expect(r.stderr).toContain('spec.ingress[0].ports[0].port: Invalid value: 70000');
  });

  it('rejects an unknown field in a custom resource (kubectl validates on the server)', async () => {
    const seed = seedDocs().find((s) => s.file.startsWith('multicluster-06')) as { docs: Record<string, unknown>[] };
    const mutant = structuredClone(seed.docs[0]) as Record<string, unknown> & { metadata: { name: string } };
    mutant.metadata.name = 'nginx-bad';
    mutant.spec = { bogus: true };
    const r = await k.run(['apply', '-f', '-'], YAML.stringify(mutant));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "spec"');
  });
});
