// The README demo end to end: `tools/lab/bin/demo` (what `npm run demo` runs after installing) in a
// temporary lab dir; the reachability it prints by Service ClusterIP (and pod IP) after each step
// of the walkthrough is what the walkthrough says, over both nodes, `yardctl traceflow` shows where the
// blocked packet was dropped and how the admitted one is delivered, `yardctl check installation` passes
// every check on the lab, and the lab is gone afterwards.
//
// In CI the walkthrough runs once: `.ci/run` runs the README's `npm run demo` with
// SWITCHYARD_DEMO_TRANSCRIPT=<dir>, and this file asserts on that run's stdout, stderr and exit
// (`scripts/demo.sh` writes them, with the commit and whether the lab dir is gone). Without it, or
// when the transcript is of another commit or incomplete, the file runs the demo itself.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(__dirname, '../bin/demo');
/** Where the demo ran its lab (`down` removes it): a temporary directory when this file runs the demo. */
let labDir = '';

interface Row { service: string; clusterIP: string; node?: string; verdict: string; connections?: string; byPodIP?: string }
interface Step { title: string; client: string; rows: Row[] }

/** Splits the demo's output into its `== step N` sections and their reachability rows. */
function parse(stdout: string): Step[] {
  const steps: Step[] = [];
  for (const section of stdout.split('\n== ').slice(1)) {
    const [rawHead = '', ...lines] = section.split('\n');
    const head = rawHead.replace(/^\[\s*[\d.]+ s\] /, ''); // the elapsed-time prefix
    if (!head.startsWith('step ')) continue;
    const client = /reachability from ch-busybox \((node\d), app=([^)]+)\)/.exec(section);
    const rows: Row[] = [];
    for (const l of lines) {
      const spread = /^ {4}ch-busybox -> (\S+)\s+\(ClusterIP ([\d.]+):80, 3 endpoints on ([\w+]+)\): (\w+) \((\d+\/\d+) connections\)$/.exec(l);
      if (spread) rows.push({ service: spread[1]!, clusterIP: spread[2]!, node: spread[3]!, verdict: spread[4]!, connections: spread[5]! });
      const one = /^ {4}ch-busybox -> (\S+)\s+\(ClusterIP ([\d.]+):80 -> [\d.]+:80 on (node\d)\): (\w+)\s+by pod IP: (\w+)$/.exec(l);
      if (one) rows.push({ service: one[1]!, clusterIP: one[2]!, node: one[3]!, verdict: one[4]!, byPodIP: one[5]! });
    }
    steps.push({ title: head, client: client ? `${client[1]} app=${client[2]}` : '', rows });
  }
  return steps;
}

let stdout = '';
let stderr = '';
let code: number | null = null;
let labDirGone = (): boolean => !existsSync(labDir);

interface TranscriptResult { exitCode: number; revision: string; labDir: string; labDirGone: boolean }

/** The transcript of `npm run demo` this checkout ran (SWITCHYARD_DEMO_TRANSCRIPT), or why it cannot be used. */
function transcript(dir: string | undefined): { stdout: string; stderr: string; result: TranscriptResult } | string {
  if (!dir) return 'SWITCHYARD_DEMO_TRANSCRIPT is not set';
  const file = (name: string): string | undefined => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
  const result = file('result.json');
  const out = file('stdout');
  const err = file('stderr');
  if (result === undefined || out === undefined || err === undefined) return `${dir} has no complete transcript (result.json, stdout, stderr)`;
  const r = JSON.parse(result) as TranscriptResult;
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
  if (r.revision !== head) return `${dir} is the transcript of ${r.revision}, not of this checkout's ${head}`;
  return { stdout: out, stderr: err, result: r };
}

beforeAll(async () => {
  const t = transcript(process.env.SWITCHYARD_DEMO_TRANSCRIPT);
  if (typeof t !== 'string') {
    process.stdout.write(`demo test: asserting on npm run demo's own run (${process.env.SWITCHYARD_DEMO_TRANSCRIPT}), not running it again\n`);
    ({ stdout, stderr } = t);
    code = t.result.exitCode;
    labDir = t.result.labDir;
    labDirGone = () => t.result.labDirGone;
    return;
  }
  process.stdout.write(`demo test: running the demo (${t})\n`);
  labDir = mkdtempSync(join(tmpdir(), 'switchyard-demo-test-'));
  await new Promise<void>((resolve) => {
    execFile(BIN, ['--lab-dir', labDir], { encoding: 'utf8', timeout: 240_000, maxBuffer: 16 << 20 }, (err, out, errOut) => {
      stdout = out;
      stderr = errOut;
      code = err ? ((err as { code?: number }).code ?? -1) : 0;
      if (err) process.stderr.write(`demo failed:\n${out}\n${errOut}\n`);
      resolve();
    });
  });
}, 300_000);

describe('npm run demo (tools/lab/bin/demo)', () => {
  it('runs the walkthrough to the end and tears the lab down', () => {
    expect(code).toBe(0);
    expect(stdout).toMatch(/\n== \[\s*[\d.]+ s\] yardctl get networkpolicy\n/);
    // a progress line per phase, timed from the start
    for (const phase of ['build', 'api', 'controller', 'OVS', 'nodes', 'kubelet', 'steps', 'down']) expect(stdout).toMatch(new RegExp(`\\[\\s*[\\d.]+ s\\] ${phase}: `));
    expect(stdout).toMatch(/default\s+nginx-allow\s/);
    expect({ labDir, gone: labDirGone() }).toEqual({ labDir, gone: true });
  });

  it('prints, after each step, reachability by ClusterIP to every server on both nodes as the walkthrough says', () => {
    const steps = parse(stdout);
    expect(steps.map((s) => s.client)).toEqual(['node1 app=busybox-cor', 'node1 app=busybox-cor', 'node1 app=nginx', 'node1 app=busybox', 'node1 app=busybox']);
    // step 0 no policy, 1 nginx-allow, 2 client app=nginx, 3 client app=busybox, 4 policy admits app=busybox
    const expected = ['allowed', 'blocked', 'allowed', 'blocked', 'allowed'];
    for (const [i, s] of steps.entries()) {
      const want = expected[i]!;
      expect({ step: s.title, rows: s.rows }).toEqual({
        step: s.title,
        rows: [
          { service: 'nginx', clusterIP: expect.stringMatching(/^10\.(9[6-9]|10[0-9]|11[01])\./), node: 'node1+node2', verdict: want, connections: want === 'allowed' ? '6/6' : '0/6' },
          { service: 'nginx-1', clusterIP: expect.any(String), node: 'node1', verdict: want, byPodIP: want },
          { service: 'nginx-2', clusterIP: expect.any(String), node: 'node2', verdict: want, byPodIP: want },
          { service: 'nginx-3', clusterIP: expect.any(String), node: 'node2', verdict: want, byPodIP: want },
        ],
      });
    }
    // Four distinct ClusterIPs, the same in every step.
    const ips = steps.map((s) => s.rows.map((r) => r.clusterIP).join());
    expect(new Set(ips).size).toBe(1);
    expect(new Set(steps[0]!.rows.map((r) => r.clusterIP)).size).toBe(4);
  });

  it('traces the client\'s packet to nginx-2 with yardctl traceflow: dropped by node2\'s ingress default rule while blocked, delivered by the policy\'s rule once admitted', () => {
    const traces = stdout.split('\n== ').filter((s) => /^\[\s*[\d.]+ s\] yardctl traceflow /.test(s));
    expect(traces.length).toBe(2);
    expect(traces[0]).toMatch(/node1 \(Sender\)\n\s+SpoofGuard\s+Forwarded\n\s+Forwarding\s+Forwarded\s+Output\s+tunnel to 192\.168\.77\.2\nnode2 \(Receiver\)\n\s+Forwarding\s+Received\s+Classification\n\s+NetworkPolicy\s+Dropped\s+IngressDefaultRule\n/);
    expect(traces[1]).toMatch(/NetworkPolicy\s+Forwarded\s+IngressRule\s+K8sNetworkPolicy:default\/nginx-allow rule 0\n\s+Forwarding\s+Delivered\s+Output\s+to default\/nginx-2/);
  });

  it('shows the IngressRule flows of both server nodes', () => {
    for (const node of ['node1', 'node2']) expect(stdout).toMatch(new RegExp(`== \\[\\s*[\\d.]+ s\\] yardctl get ovsflows -T IngressRule .*\\(${node}\\)\\nFLOW\\n(?:.*table=IngressRule.*\\n)*.*table=IngressRule.*conj_id=1 `));
  });

  it('ends with yardctl check installation passing every check on the two nodes (its exit 0 also says its namespace was deleted)', () => {
    const section = stdout.split('\n== ').find((s) => /^\[\s*[\d.]+ s\] yardctl check installation /.test(s)) ?? '';
    const rows = section.split('\n').slice(1).filter((l) => /^\S+\s+(Pass|Fail|Skip)\s/.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['controller-ready', 'agents-ready', 'test-pods-ready', 'pod-to-pod-intra-node', 'pod-to-pod-inter-node', 'pod-to-service-intra-node', 'pod-to-service-inter-node', 'ingress-deny-all'].map((c) => `${c} Pass`));
    expect(section).toMatch(/test-pods-ready\s+Pass\s+\S+\s+3 pods Ready on 2 node\(s\): client@node1, echo-0@node1, echo-1@node2\n/);
    // Its connections ran through pods/exec of the lab (yardctl's summary is on stderr).
    expect(stderr).toMatch(/\n8 passed, 0 failed, 0 skipped in [\d.]+s \(namespace yardctl-check-[a-z0-9]{5}, connections via pods\/exec\)\n/);
  });
});
