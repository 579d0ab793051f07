// pods/exec through the server to a kubelet exec endpoint (WebSocket channel protocol), driven by
// the real kubectl and by client-node's Exec; processes run on this host.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { Exec, KubeConfig } from '@kubernetes/client-node';
import { ExecTargetError, startKubeApi, startKubeletExec, type ExecRequest, type KubeApiServer, type KubeletExecServer } from '../src/index';
import { Kubectl } from '../src/testing';

const NS = 'ex';
let server: KubeApiServer;
let kubelet: KubeletExecServer;
let admin: Kubectl;
let bob: Kubectl;
const execs: ExecRequest[] = [];

beforeAll(async () => {
  server = await startKubeApi({ tokens: { 'bob-token': { user: 'bob', groups: ['system:authenticated'] } } });
  // Only the API server (its client certificate, signed by its CA) may exec through this kubelet.
  kubelet = await startKubeletExec({
    clientCaPem: server.caPem,
    start: (r) => {
      execs.push(r);
      if (r.pod !== 'p') throw new ExecTargetError(`pod ${r.namespace}/${r.pod} is not on this node`, `${r.namespace}/${r.pod}`);
      return spawn(r.command[0] as string, r.command.slice(1), { stdio: 'pipe' });
    },
  });
  admin = new Kubectl(server.kubeconfigPath);
  bob = new Kubectl(server.writeKubeconfig(join(mkdtempSync(join(dirname(server.kubeconfigPath), 'bob-')), 'kubeconfig'), { name: 'bob', token: 'bob-token' }));
  await admin.apply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' },
      status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: NS }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound', namespace: NS }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    // bob may read pods, not exec into them.
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader', namespace: NS }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bob-reads', namespace: NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }] },
  );
});
afterAll(async () => {
  await kubelet?.stop();
  await server?.stop();
});

describe('kubectl exec', () => {
  it('streams stdout and stderr apart and exits 0, the container defaulted to the only one', async () => {
    execs.length = 0;
    const r = await admin.run(['-n', NS, 'exec', 'p', '--', 'sh', '-c', 'echo out; echo err >&2']);
    expect(r).toMatchObject({ code: 0, stdout: 'out\n' });
    expect(r.stderr).toContain('err\n');
    expect(r.stderr).not.toContain('out');
    expect(execs).toEqual([{ namespace: NS, pod: 'p', container: 'c', command: ['sh', '-c', 'echo out; echo err >&2'], stdin: false, stdout: true, stderr: true, tty: false }]);
  });

  it('exits with the command\'s non-zero exit code', async () => {
    const r = await admin.run(['-n', NS, 'exec', 'p', '--', 'sh', '-c', 'echo partial; exit 7']);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('partial\n');
    expect(r.stderr).toContain('command terminated with exit code 7');
  });

  it('pipes stdin to the command until its end (-i)', async () => {
    const r = await admin.run(['-n', NS, 'exec', '-i', 'p', '--', 'sh', '-c', 'tr a-z A-Z; echo done'], 'hello\nworld\n');
    expect(r).toMatchObject({ code: 0, stdout: 'HELLO\nWORLD\ndone\n' });
  });

  it('is refused with 403 to a user without create on pods/exec, before reaching the kubelet', async () => {
    execs.length = 0;
    expect((await bob.run(['-n', NS, 'get', 'pod', 'p', '-o', 'name'])).stdout).toBe('pod/p\n');
    const r = await bob.run(['-n', NS, 'exec', 'p', '--', 'true']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (Forbidden): pods "p" is forbidden: User "bob" cannot create resource "pods/exec" in API group "" in the namespace "ex"');
    expect(execs).toEqual([]);
    const can = await bob.run(['auth', 'can-i', 'create', 'pods', '--subresource=exec', '-n', NS]);
    expect(can.stdout.trim()).toBe('no');
  });

  it('names why an exec cannot be made: an unscheduled pod, an unknown container', async () => {
    const unbound = await admin.run(['-n', NS, 'exec', 'unbound', '--', 'true']);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toContain('pod unbound does not have a host assigned');
    const noSuch = await admin.run(['-n', NS, 'exec', 'p', '-c', 'nope', '--', 'true']);
    expect(noSuch.code).toBe(1);
    expect(noSuch.stderr).toContain('container nope is not valid for pod p');
  });
});

describe('the kubelet exec endpoint', () => {
  it('lets in only a client whose certificate the API server\'s CA signed', async () => {
    execs.length = 0;
    const https = await import('node:https');
    const outcome = await new Promise<string>((resolve) => {
      const req = https.request({ host: '127.0.0.1', port: kubelet.port, path: `/exec/${NS}/p/c?command=true`, rejectUnauthorized: false, headers: { connection: 'Upgrade', upgrade: 'websocket' } });
      req.on('upgrade', () => resolve('upgraded'));
      req.on('response', (res) => resolve(`HTTP ${res.statusCode ?? 0}`));
      req.on('error', (e) => resolve(`refused: ${e.message}`));
      req.end();
    });
    expect(outcome).toMatch(/^refused: /);
    expect(execs).toEqual([]);
  });
});

/** One client-node exec: what came on stdout and stderr, and the status on the error channel. */
async function clientExec(command: string[], stdin: string | null): Promise<{ out: string; err: string; status: { status?: string; reason?: string; details?: { causes?: { reason?: string; message?: string }[] } } }> {
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable => new Writable({ write: (c: Buffer, _e, cb) => { add(c.toString('utf8')); cb(); } });
  const { Readable } = await import('node:stream');
  const status = await new Promise<{ status?: string }>((resolve, reject) => {
    new Exec(kc).exec(NS, 'p', 'c', command, sink((s) => (out += s)), sink((s) => (err += s)), stdin === null ? null : Readable.from([stdin]), false, resolve).catch(reject);
  });
  return { out, err, status };
}

describe('client-node Exec', () => {
  it('gets output and Success', async () => {
    const r = await clientExec(['sh', '-c', 'echo hi; echo oops >&2'], null);
    expect(r).toMatchObject({ out: 'hi\n', err: 'oops\n', status: { status: 'Success' } });
  });

  it('gets NonZeroExitCode with the exit code in details.causes', async () => {
    const r = await clientExec(['sh', '-c', 'exit 3'], null);
    expect(r.status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
  });

  it('sends stdin', async () => {
    const r = await clientExec(['head', '-c', '5'], 'abcdefgh');
    expect(r).toMatchObject({ out: 'abcde', status: { status: 'Success' } });
  });

  it('gets the kubelet\'s error when the command cannot start', async () => {
    const r = await clientExec(['/no/such/binary'], null);
    expect(r.status).toMatchObject({ status: 'Failure' });
    expect(JSON.stringify(r.status)).toContain('ENOENT');
  });
});
