// The API server killed with SIGKILL while clients write: every write a client saw acknowledged
// is there after a restart on the same data directory, and the resourceVersion never goes back.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@switchyard/testbed';
import { Kubectl } from '../src/testing';

const BIN = join(__dirname, '../bin/switchyard-kube-api.js');
const dataDir = mkdtempSync(join(tmpdir(), 'kube-api-sigkill-'));
const kubeconfig = join(dataDir, 'admin.kubeconfig');
const children: ChildProcess[] = [];

/** Starts the server binary on `port` with the shared data directory; resolves once it listens. */
function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, '--port', String(port), '--data-dir', dataDir, '--kubeconfig-out', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      if (err.includes('kube-api listening')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`kube-api exited (${code}): ${err}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

afterAll(async () => {
  for (const c of children) await killed(c);
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps every acknowledged write across a SIGKILL in the middle of a stream of writes', async () => {
  const port = await freePort();
  let server = await startServer(port);
  const k = new Kubectl(kubeconfig);
  await k.ok(['create', 'namespace', 'durable']);
  await k.ok(['-n', 'durable', 'create', 'configmap', 'counter', '--from-literal=n=0']);

  // Four writers create ConfigMaps and bump a counter until the server dies under them.
  const acked: string[] = [];
  let lastCounter = 0;
  let stop = false;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stop; i++) {
      const name = `w${w}-${i}`;
      const r = await k.run(['-n', 'durable', 'create', 'configmap', name, `--from-literal=writer=${w}`]);
      if (r.code !== 0) return;
      acked.push(name);
      if (w === 0) {
        const p = await k.run(['-n', 'durable', 'patch', 'configmap', 'counter', '--type=merge', '-p', JSON.stringify({ data: { n: String(i + 1) } })]);
        if (p.code !== 0) return;
        lastCounter = i + 1;
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  // Killed once the stream is well under way (at least 12 acknowledged writes and one counter
  // bump), not after a fixed time: a slow machine acknowledges fewer writes in any given time.
  await waitFor('12 acknowledged writes', async () => acked.length >= 12 && lastCounter >= 1, { timeoutMs: 60_000, intervalMs: 50 });
  const before = await k.json<{ metadata: { resourceVersion: string } }>(['-n', 'durable', 'get', 'configmap', 'counter']);
  await killed(server);
  stop = true;
  await Promise.all(writers);
  expect(acked.length).toBeGreaterThan(8);

  server = await startServer(port);
  const list = await k.json<{ items: { metadata: { name: string } }[] }>(['-n', 'durable', 'get', 'configmaps']);
  const names = new Set(list.items.map((i) => i.metadata.name));
  expect(acked.filter((n) => !names.has(n))).toEqual([]);
  const counter = await k.json<{ data: { n: string }; metadata: { resourceVersion: string } }>(['-n', 'durable', 'get', 'configmap', 'counter']);
  expect(Number(counter.data.n)).toBeGreaterThanOrEqual(lastCounter);

  // Writes after the restart get resourceVersions above everything before it.
  await k.ok(['-n', 'durable', 'create', 'configmap', 'after-restart']);
  const after = await k.json<{ metadata: { resourceVersion: string } }>(['-n', 'durable', 'get', 'configmap', 'after-restart']);
  expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
  await killed(server);
}, 60_000);
