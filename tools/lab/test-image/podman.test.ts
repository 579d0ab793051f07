// `--runtime podman` end to end: the images `npm run images` builds (built here first when
// dist/images has none; the build's time is printed), the README demo on them (`tools/lab/bin/demo
// --runtime podman --keep`: the controller and both agents in containers made from switchyard.yml's
// pod specs, the walkthrough, `yardctl check installation` green), what the containers are (the
// manifest's images, the agent in its node's netns, the controller as uid 65532, install-cni's
// files on the node), then an agent container restarted by podman (`podman restart <id>`, as a
// kubelet restarts a container) adopting its node's flows as the binary does under the process
// runtime (restart.test.ts): no flow added, deleted or re-sent, the same cookie round. `npm run
// test:image -w @switchyard/lab`, or the images lane of `npm test` (SWITCHYARD_TEST_IMAGES=0
// leaves it out; docs/development.md).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { flowChanges, flowSnapshot, run, waitFor } from '@switchyard/testbed';
import { agentHealthy, labClient, readState, type LabState } from '../src/index';
import { nodeHostRoot, REPO_ROOT } from '../src/lab';
import { builtImages, imagesDir } from '../src/podman';

const DEMO = join(__dirname, '../bin/demo');
const LAB = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-podman-'));

let demoOut = '';
let demoCode: number | null = null;
let demoMs = 0;
let st: LabState;

/** The images are there, or built now (a fresh clone: the CI machine's first run). */
function ensureBuilt(): void {
  const dir = imagesDir(REPO_ROOT);
  const ok = existsSync(join(dir, 'report.json')) && builtImages(dir).every((i) => existsSync(i.archive));
  if (ok) return;
  const t0 = Date.now();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  execFileSync('npm', ['run', 'images'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 1_500_000 });
  process.stdout.write(`npm run images: ${((Date.now() - t0) / 1000).toFixed(0)} s (load average at start ${load})\n`);
}

beforeAll(async () => {
  ensureBuilt();
  const t0 = Date.now();
  await new Promise<void>((resolve) => {
    execFile(DEMO, ['--lab-dir', labDir, '--runtime', 'podman', '--keep'], { encoding: 'utf8', timeout: 420_000, maxBuffer: 16 << 20 }, (err, out, errOut) => {
      demoOut = out;
      demoCode = err ? ((err as { code?: number }).code ?? -1) : 0;
      if (err) process.stderr.write(`demo failed:\n${out}\n${errOut}\n`);
      resolve();
    });
  });
  demoMs = Date.now() - t0;
  st = readState(labDir)!;
}, 1_900_000);

afterAll(async () => {
  const ids = readState(labDir)?.containers ?? [];
  if (readState(labDir)) execFileSync(LAB, ['--lab-dir', labDir, 'down'], { encoding: 'utf8', timeout: 180_000 });
  // Every container the lab made is gone, by its ID.
  for (const id of ids) expect((await run(['podman', 'container', 'exists', id], { allowFailure: true })).code).toBe(1);
}, 240_000);

const brInt = (n: LabState['nodes'][number]): string => join(dirname(n.vswitchdCtl), 'br-int.mgmt');
const inspect = async (id: string, format: string): Promise<string> => (await run(['podman', 'container', 'inspect', '--format', format, id])).stdout.trim();
/** The inode of a network namespace (a process's, or a named one's), to compare. */
const netnsInode = (path: string): number => statSync(path).ino;

describe('switchyard-lab --runtime podman', () => {
  it('runs the demo walkthrough to yardctl check installation, every check passing', () => {
    expect(demoCode).toBe(0);
    expect(demoOut).toMatch(/\] images: ghcr\.io\/switchyard-net\/switchyard-agent:\S+ .*switchyard-controller/);
    expect(demoOut).toMatch(/\] nodes: agents ready on node1 \([\d.]+ s from podman run\), node2 \([\d.]+ s from podman run\)/);
    const section = demoOut.split('\n== ').find((s) => /^\[\s*[\d.]+ s\] yardctl check installation /.test(s)) ?? '';
    const rows = section.split('\n').slice(1).filter((l) => /^\S+\s+(Pass|Fail|Skip)\s/.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['controller-ready', 'agents-ready', 'test-pods-ready', 'pod-to-pod-intra-node', 'pod-to-pod-inter-node', 'pod-to-service-intra-node', 'pod-to-service-inter-node', 'ingress-deny-all'].map((c) => `${c} Pass`));
    // The walkthrough's verdicts, step 0 to 4, on the nginx Service's six connections.
    const spread = [...demoOut.matchAll(/ch-busybox -> nginx\s+\(ClusterIP [\d.]+:80, 3 endpoints on node1\+node2\): (\w+)/g)].map((m) => m[1]);
    expect(spread).toEqual(['allowed', 'blocked', 'allowed', 'blocked', 'allowed']);
    const ready = /agents ready on node1 \(([\d.]+) s from podman run\), node2 \(([\d.]+) s from podman run\)/.exec(demoOut)!;
    process.stdout.write(`demo --runtime podman: ${(demoMs / 1000).toFixed(1)} s (lab up and walkthrough; down not included); agent container start to Ready: node1 ${ready[1]} s, node2 ${ready[2]} s\n`);
  });

  it("runs the manifest's images: the controller as uid 65532 with its Deployment's args, each agent in its node's netns, install-cni's plugin and conflist on the node", async () => {
    expect(st.runtime).toBe('podman');
    expect(st.containers).toHaveLength(3);
    const [controller, ...agents] = st.containers!;
    expect(await inspect(controller!, '{{.ImageName}}')).toBe('ghcr.io/switchyard-net/switchyard-controller:0.1.0');
    const cpid = Number(await inspect(controller!, '{{.State.Pid}}'));
    expect(readFileSync(`/proc/${cpid}/status`, 'utf8')).toMatch(/\nUid:\t65532\t/);
    expect(readFileSync(`/proc/${cpid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--config=/etc/antrea/antrea-controller.conf']));
    for (const [i, n] of st.nodes.entries()) {
      expect(agents[i]).toBe(n.agentContainer);
      expect(await inspect(n.agentContainer!, '{{.ImageName}}')).toBe('ghcr.io/switchyard-net/switchyard-agent:0.1.0');
      expect(await inspect(n.agentContainer!, '{{.State.Running}}')).toBe('true');
      const pid = Number(await inspect(n.agentContainer!, '{{.State.Pid}}'));
      expect(netnsInode(`/proc/${pid}/ns/net`)).toBe(netnsInode(`/run/netns/${n.netns}`));
      const root = nodeHostRoot(labDir, n.name);
      expect(statSync(join(root, 'opt/cni/bin/switchyard-cni')).mode & 0o111).not.toBe(0);
      for (const p of ['portmap', 'bandwidth', 'loopback']) expect(existsSync(join(root, 'opt/cni/bin', p))).toBe(true);
      expect(JSON.parse(readFileSync(join(root, 'etc/cni/net.d/10-switchyard.conflist'), 'utf8'))).toMatchObject({ plugins: [{ type: 'switchyard-cni' }, { type: 'portmap' }] });
    }
  });

  it('an agent container restarted by podman (podman restart <id>) adopts its flows: none added, deleted or re-sent, the same cookie round', async () => {
    const n = st.nodes[1]!;
    // The state restart.test.ts restarts the process runtime's agent in: pods, the policy, the
    // lab's own Services. The demo's four Services go first: with several Services an agent (either
    // runtime) numbers them anew at a restart and re-sends their flows (docs/lab.md, Containers).
    const kube = labClient(st);
    const demoServices = ['nginx', 'nginx-1', 'nginx-2', 'nginx-3'];
    const ips = await Promise.all(demoServices.map(async (s) => (await kube.request<{ spec: { clusterIP: string } }>('GET', `/api/v1/namespaces/default/services/${s}`)).spec.clusterIP));
    for (const s of demoServices) await kube.request('DELETE', `/api/v1/namespaces/default/services/${s}`);
    await waitFor("node2's flows for the demo's Services gone", async () => {
      const dump = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', brInt(n)])).stdout;
      return ips.every((ip) => !dump.includes(`nw_dst=${ip},`));
    }, { timeoutMs: 30_000, intervalMs: 200 });
    const id = n.agentContainer!;
    const pidBefore = Number(await inspect(id, '{{.State.Pid}}'));
    const before = await flowSnapshot(brInt(n));
    expect(before.ages.size).toBeGreaterThan(20);
    const rounds = (s: typeof before): number[] => [...new Set([...s.ages.keys()].map((f) => Number(BigInt(/cookie=(0x[0-9a-f]+)/.exec(f)?.[1] ?? '0') >> 48n)))];
    const t0 = Date.now();
    await run(['podman', 'restart', '--time', '10', id], { timeoutMs: 60_000 });
    // The same container (its ID), a new process, healthy again.
    await waitFor('node2 agent container running with a new process', async () => {
      const pid = Number(await inspect(id, '{{.State.Pid}}'));
      return pid !== 0 && pid !== pidBefore;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    await waitFor('node2 agent healthy', () => agentHealthy(n), { timeoutMs: 60_000, intervalMs: 100 });
    const readyMs = Date.now() - t0;
    const after = await flowSnapshot(brInt(n));
    expect(flowChanges(before, after)).toEqual({ added: [], deleted: [], younger: [] });
    expect(rounds(after)).toEqual(rounds(before));
    expect(rounds(before)).toHaveLength(1);
    // The supervisor recorded the new process (restart-agent and the faults signal it).
    await waitFor('state.json naming the new pid', () => readState(labDir)?.nodes[1]?.agentPid === Number(execFileSync('podman', ['container', 'inspect', '--format', '{{.State.Pid}}', id], { encoding: 'utf8' }).trim()), { timeoutMs: 30_000, intervalMs: 200 });
    process.stdout.write(`podman restart of node2's agent container: healthy ${readyMs} ms after the command started; ${after.ages.size} flows unchanged\n`);
  }, 150_000);
});
