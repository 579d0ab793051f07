// Everyday kubectl verbs against the server over TLS.
import { mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { startKubeApi, type KubeApiServer } from '../src/index';
import { Kubectl } from '../src/testing';

let server: KubeApiServer;
let k: Kubectl;

beforeAll(async () => {
  server = await startKubeApi();
  k = new Kubectl(server.kubeconfigPath);
});
afterAll(() => server.stop());

type Obj = { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion: string }; [k: string]: unknown };

describe('kubectl', () => {
  it('creates with typed subcommands (protobuf bodies) and reads back as json and yaml', async () => {
    await k.ok(['create', 'namespace', 'kc']);
    await k.ok(['-n', 'kc', 'create', 'configmap', 'cfg', '--from-literal=a=1']);
    await k.ok(['-n', 'kc', 'create', 'secret', 'generic', 'sec', '--from-literal=pw=hunter2']);
    const cm = await k.json<Obj & { data: Record<string, string> }>(['-n', 'kc', 'get', 'configmap', 'cfg']);
    expect(cm.data).toEqual({ a: '1' });
    const sec = await k.json<Obj & { data: Record<string, string>; type: string }>(['-n', 'kc', 'get', 'secret', 'sec']);
    expect(sec.type).toBe('Opaque');
    expect(Buffer.from(sec.data.pw as string, 'base64').toString()).toBe('hunter2');
    const y = YAML.parse(await k.ok(['-n', 'kc', 'get', 'cm', 'cfg', '-o', 'yaml'])) as Obj;
    expect(y.metadata.name).toBe('cfg');
    const ns = await k.json<Obj & { status: { phase: string } }>(['get', 'ns', 'kc']);
    expect(ns.status.phase).toBe('Active');
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'kc' });
  });

  it('prints tables with kubectl get', async () => {
    const out = await k.ok(['get', 'namespaces']);
    expect(out.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+AGE$/);
    expect(out).toMatch(/\nkc\s+Active\s+\d+s/);
    const svc = await k.ok(['get', 'svc', '-n', 'default']);
    expect(svc).toMatch(/kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP/);
  });

  it('labels, annotates and deletes', async () => {
    await k.ok(['-n', 'kc', 'label', 'configmap', 'cfg', 'tier=gold']);
    await k.ok(['-n', 'kc', 'annotate', 'configmap', 'cfg', 'note=hello']);
    const cm = await k.json<Obj>(['-n', 'kc', 'get', 'configmap', 'cfg']);
    expect(cm.metadata.labels).toEqual({ tier: 'gold' });
    expect(cm.metadata.annotations).toEqual({ note: 'hello' });
    expect(await k.ok(['-n', 'kc', 'get', 'cm', '-l', 'tier=gold', '-o', 'name'])).toBe('configmap/cfg\n');
    await k.ok(['-n', 'kc', 'label', 'configmap', 'cfg', 'tier-']);
    expect((await k.json<Obj>(['-n', 'kc', 'get', 'configmap', 'cfg'])).metadata.labels).toBeUndefined();
    expect(await k.ok(['-n', 'kc', 'delete', 'configmap', 'cfg'])).toContain('configmap "cfg" deleted');
    const gone = await k.run(['-n', 'kc', 'get', 'configmap', 'cfg']);
    expect(gone.stderr).toContain('Error from server (NotFound): configmaps "cfg" not found');
  });

  it('merges containers by name when apply updates a Deployment (strategic merge patch)', async () => {
    const deploy = (image: string, extra: Record<string, unknown>[] = []): string =>
      YAML.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'kc' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }, ...extra] } } },
      });
    await k.ok(['apply', '-f', '-'], deploy('nginx:1'));
    // Another writer adds a container that kubectl's last-applied state does not know about.
    await k.ok(['-n', 'kc', 'patch', 'deployment', 'web', '--type=strategic', '-p', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } })]);
    await k.ok(['apply', '-f', '-'], deploy('nginx:2'));
    const d = await k.json<{ metadata: { generation: number }; spec: { template: { spec: { containers: { name: string; image: string }[] } } } }>(['-n', 'kc', 'get', 'deployment', 'web']);
    expect(d.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual(['nginx=nginx:2', 'sidecar=busybox']);
    expect(d.metadata.generation).toBe(3);
  });

  it('streams changes with get -w --output-watch-events', async () => {
    await k.ok(['create', 'namespace', 'watched']);
    const w = k.spawn(['-n', 'watched', 'get', 'configmaps', '-w', '--output-watch-events', '-o', 'json']);
    try {
      // kubectl lists (empty) first, then watches from that resourceVersion.
      await new Promise((r) => setTimeout(r, 500));
      await k.ok(['-n', 'watched', 'create', 'configmap', 'w1']);
      await k.ok(['-n', 'watched', 'label', 'configmap', 'w1', 'x=y']);
      await k.ok(['-n', 'watched', 'delete', 'configmap', 'w1']);
      await waitFor(() => (w.output().match(/"type":\s*"DELETED"/g) ?? []).length === 1, 'DELETED event');
      const events = parseConcatenatedJson(w.output()).map((e) => `${String(e.type)} ${(e.object as Obj).metadata.name}`);
      expect(events).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    } finally {
      w.child.kill();
    }
  });

  it('creates ServiceAccount tokens and enforces RBAC on them', async () => {
    await k.ok(['-n', 'kc', 'create', 'serviceaccount', 'reader']);
    await k.ok(['-n', 'kc', 'create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps']);
    await k.ok(['-n', 'kc', 'create', 'rolebinding', 'reader', '--role=cm-reader', '--serviceaccount=kc:reader']);
    const token = (await k.ok(['-n', 'kc', 'create', 'token', 'reader'])).trim();
    const path = server.writeKubeconfig(join(mkdtempSync(join(dirname(server.kubeconfigPath), 'reader-')), 'reader.kubeconfig'), { name: 'reader', token, namespace: 'kc' });
    const reader = new Kubectl(path);
    expect((await reader.ok(['auth', 'can-i', 'list', 'configmaps'])).trim()).toBe('yes');
    const denied = await reader.run(['auth', 'can-i', 'delete', 'configmaps']);
    expect(denied.stdout.trim()).toBe('no');
    const forbidden = await reader.run(['get', 'secrets']);
    expect(forbidden.stderr).toContain('Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:kc:reader" cannot list resource "secrets" in API group "" in the namespace "kc"');
    expect(await reader.ok(['get', 'configmaps', '-o', 'name'])).toBeDefined();
    const list = await reader.ok(['auth', 'can-i', '--list']);
    expect(list).toMatch(/configmaps\s+\[\]\s+\[\]\s+\[get list\]/);
  });

  it('finds the legacy ServiceAccount token Secret as the seed guides expect', async () => {
    await k.ok(['-n', 'kc', 'create', 'serviceaccount', 'vm-agent']);
    await waitForAsync(async () => (await k.ok(['-n', 'kc', 'get', 'secrets', '-o', 'name'])).includes('secret/vm-agent-token-'), 'token secret');
    const names = (await k.ok(['-n', 'kc', 'get', 'secrets', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ');
    const secret = names.find((n) => n.startsWith('vm-agent-token-')) as string;
    const token = Buffer.from(await k.ok(['-n', 'kc', 'get', 'secret', secret, '-o', 'jsonpath={.data.token}']), 'base64').toString();
    const tr = JSON.parse(await k.ok(['create', '-o', 'json', '-f', '-'], JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }))) as { status: { authenticated: boolean; user: { username: string } } };
    expect(tr.status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:kc:vm-agent' } });
  });
});

function parseConcatenatedJson(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inStr) {
      if (ch === '\\') i++;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
    }
  }
  return out;
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function waitForAsync(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
