// pods/exec checks that need no kubelet: the kubelet's request parsing, the exit Status it sends,
// and the server's answers to an exec it cannot relay.
import { WebSocket } from 'ws';
import { exitStatus, parseExecRequest, type KubeApiServer } from '../src/index';
import { startTestServer, type TestClient } from './support/server';

describe('parseExecRequest', () => {
  it('takes the pod, container, every command word and the stream flags', () => {
    const u = new URL('https://k/exec/ns-1/p%2Ex/c?command=sh&command=-c&command=echo%20a&stdin=true&stdout=1&stderr=false&tty=true');
    expect(parseExecRequest(u)).toEqual({ namespace: 'ns-1', pod: 'p.x', container: 'c', command: ['sh', '-c', 'echo a'], stdin: true, stdout: true, stderr: false, tty: true });
  });

  it('names the field at fault', () => {
    expect(parseExecRequest(new URL('https://k/exec/ns/p/c?stdout=true'))).toBe('command: Required value: you must specify at least one command for the container');
    expect(parseExecRequest(new URL('https://k/exec/ns/p?command=x'))).toBe('path: expected /exec/<namespace>/<pod>/<container>, got "/exec/ns/p"');
  });
});

describe('exitStatus', () => {
  it('is Success for 0, NonZeroExitCode with the code in details.causes otherwise, 128+n for a signal', () => {
    expect(exitStatus(['true'], 0, null)).toEqual({ metadata: {}, status: 'Success' });
    expect(exitStatus(['sh', '-c', 'exit 7'], 7, null)).toEqual({
      metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
      message: 'command terminated with non-zero exit code: error executing command [sh -c exit 7], exit code 7',
      details: { causes: [{ reason: 'ExitCode', message: '7' }] },
    });
    expect(exitStatus(['sleep', '9'], null, 'SIGKILL')).toMatchObject({ details: { causes: [{ reason: 'ExitCode', message: '137' }] } });
  });
});

describe('pods/exec on the server', () => {
  let server: KubeApiServer;
  let c: TestClient;
  beforeAll(async () => {
    ({ server, client: c } = await startTestServer());
    await c.post('/api/v1/namespaces', { metadata: { name: 'ex' } });
    await c.post('/api/v1/namespaces/ex/pods', { metadata: { name: 'two' }, spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }] } });
  });
  afterAll(() => server.stop());
  /** A WebSocket upgrade as kubectl asks for it; the refusal's status and Status body. */
  const upgrade = (path: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`, ['v5.channel.k8s.io'], { headers: { authorization: `Bearer ${server.adminToken}` }, ...(server.caPem ? { ca: server.caPem } : {}) });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Record<string, unknown> }));
      });
      ws.on('open', () => {
        ws.close();
        reject(new Error(`${path} was upgraded`));
      });
      ws.on('error', reject);
    });

  it('answers a request without an upgrade with 400 Upgrade request required', async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces/ex/pods/two/exec?command=true&container=a`, { method: 'POST', headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'Upgrade request required' });
  });

  it('refuses an upgrade it cannot relay, naming why', async () => {
    const noContainer = await upgrade('/api/v1/namespaces/ex/pods/two/exec?command=true');
    expect(noContainer.status).toBe(400);
    expect(noContainer.body).toMatchObject({ message: 'a container name must be specified for pod two, choose one of: [a b]' });
    const noNode = await upgrade('/api/v1/namespaces/ex/pods/two/exec?command=true&container=a');
    expect(noNode.status).toBe(404);
    expect(noNode.body).toMatchObject({ message: 'nodes "n1" not found' });
    const missing = await upgrade('/api/v1/namespaces/ex/pods/nope/exec?command=true');
    expect(missing.status).toBe(404);
    const other = await upgrade('/api/v1/namespaces/ex/pods/two/log');
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ message: 'upgrade to "websocket" is served for pods/exec only, not /api/v1/namespaces/ex/pods/two/log' });
  });
});
