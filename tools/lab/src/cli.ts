/** `switchyard-lab`: up / down / status / probe of a multi-node Switchyard cluster on this machine. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { isAlive, reapStale, signalProcess, waitFor } from '@switchyard/testbed';
import { labRunning, restartAgent, restartVswitchd, startAgent, stopAgent } from './faults';
import { formatChaosReport, loadScenarios, runChaos, type ChaosReport } from './chaos';
import { DEFAULT_LAB_DIR, LabError, parseEncryption, parseFeatureGates, parseIpFamily, parseMode, planNodes, type LabEncryption, type LabIpFamily, type LabMode } from './plan';
import { LAB_PROJECTS, REPO_ROOT, assertLabProgramsBuilt, buildLabPrograms, labProgram, progressFile, stateFile, type LabState } from './lab';
import { progressLine } from './progress';
import { parseRuntime, removeContainers, type LabRuntime } from './podman';
import { acquireUpLock } from './up-lock';
import { labClient, readState } from './client';
import { FABRIC_SOURCE, ScenarioRunner } from './probe-run';
import { ScenarioError, expectedAllowed, formatTruthTable, parseScenario, type IpFamily, type ProbeResult, type ProbeSpec, type Protocol } from './scenario';

const running = labRunning;

/** What `up` brings up besides the node count. */
interface UpOptions {
  mode?: LabMode;
  encryption?: LabEncryption;
  controller?: boolean;
  /** Feature gates of every agent and the controller. */
  featureGates?: Record<string, boolean>;
  /** antreaProxy.proxyAll on every agent (the lab has no kube-proxy). */
  proxyAll?: boolean;
  /** `dual`: dual-stack nodes and Service range; `ipv6`: IPv6-only nodes and Service range (default ipv4). */
  ipFamily?: LabIpFamily;
  /** `podman`: the controller and agents in containers from the built images (default process). */
  runtime?: LabRuntime;
}

/** readState for up and down: a state.json cut short does not stop them (the reaper finds what it named). */
function stateForCleanup(labDir: string, out: NodeJS.WritableStream): LabState | undefined {
  try {
    return readState(labDir);
  } catch (e) {
    if (!(e instanceof LabError && e.code === 'CORRUPT_STATE')) throw e;
    out.write(`switchyard-lab: ${e.message}; going on without it\n`);
    return undefined;
  }
}

async function up(labDir: string, nodes: number, out: NodeJS.WritableStream = process.stdout, opts: UpOptions = {}): Promise<void> {
  planNodes(nodes, () => ''); // refuses a bad --nodes before anything starts
  const release = acquireUpLock(labDir);
  try {
    await upLocked(labDir, nodes, out, opts);
  } finally {
    release();
  }
}

async function upLocked(labDir: string, nodes: number, out: NodeJS.WritableStream, opts: UpOptions): Promise<void> {
  const prev = stateForCleanup(labDir, out);
  if (running(prev)) throw new LabError('ALREADY_RUNNING', `a lab is already running (pid ${prev.pid}); run switchyard-lab down first`, prev.pid);
  await reapStale();
  rmSync(join(labDir, 'failed'), { force: true });
  rmSync(stateFile(labDir), { force: true });
  rmSync(progressFile(labDir), { force: true });
  mkdirSync(labDir, { recursive: true });
  if (process.env.SWITCHYARD_PREBUILT === '1') {
    // The caller built every package from this tree just before (npm test's build stage sets it).
    assertLabProgramsBuilt();
    out.write(progressLine('build', 'skipped: SWITCHYARD_PREBUILT=1 (the caller built every package)'));
  } else {
    out.write(progressLine('build', `${LAB_PROJECTS.join(', ')} and their dependencies (nx, cached)`));
    await buildLabPrograms((line) => out.write(progressLine('build', line)));
  }
  const log = openSync(join(labDir, 'supervisor.log'), 'a');
  const [program, ...programArgs] = labProgram('supervisor').argv;
  const child = spawn(program!, [...programArgs, labDir, String(nodes), opts.mode ?? 'encap', opts.controller === false ? 'no-controller' : 'controller', opts.encryption ?? 'none', JSON.stringify(opts.featureGates ?? {}), opts.proxyAll ? 'proxy-all' : 'no-proxy-all', opts.ipFamily ?? 'ipv4', opts.runtime ?? 'process'], {
    detached: true,
    stdio: ['ignore', log, log],
    cwd: join(REPO_ROOT, 'tools/lab'),
    env: { ...process.env, ...labProgram('supervisor').env },
  });
  child.unref();
  const started = Date.now();
  // The supervisor's progress lines, printed as they land.
  let shown = 0;
  const showProgress = (): void => {
    const text = existsSync(progressFile(labDir)) ? readFileSync(progressFile(labDir), 'utf8') : '';
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    if (complete.length > shown) out.write(complete.slice(shown));
    shown = Math.max(shown, complete.length);
  };
  await waitFor('the lab', () => {
    showProgress();
    return existsSync(stateFile(labDir)) || existsSync(join(labDir, 'failed')) || child.exitCode !== null;
  }, { timeoutMs: 300_000, intervalMs: 200 });
  showProgress();
  if (!existsSync(stateFile(labDir))) {
    const why = existsSync(join(labDir, 'failed')) ? readFileSync(join(labDir, 'failed'), 'utf8').trim() : `supervisor exited (see ${join(labDir, 'supervisor.log')})`;
    throw new LabError('START_FAILED', why);
  }
  const st = readState(labDir)!;
  out.write(
    `switchyard-lab: ${st.nodes.length} nodes (${st.mode}${st.encryption && st.encryption !== 'none' ? `, ${st.encryption}` : ''}${st.ipFamily === 'dual' ? ', dual-stack' : st.ipFamily === 'ipv6' ? ', IPv6-only' : ''}${st.controllerPort ? '' : ', no controller'}${st.runtime === 'podman' ? ', podman' : ''}) up in ${((Date.now() - started) / 1000).toFixed(1)} s (supervisor pid ${st.pid})\n` +
      `  kubeconfig: ${st.kubeconfig}\n  API server: ${st.apiUrl}\n` +
      st.nodes.map((n) => `  ${n.name}: podCIDR ${n.podCIDR}${n.podCIDRv6 !== undefined ? `,${n.podCIDRv6}` : ''}, node IP ${n.nodeIP}, netns ${n.netns}, agent API ${n.apiSocket}\n`).join('') +
      `  try: kubectl --kubeconfig ${st.kubeconfig} get nodes\n`,
  );
}

async function down(labDir: string, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const st = stateForCleanup(labDir, out);
  // Signalled only while its start time matches (a supervisor that died may have left its pid to a stranger).
  if (running(st) && st.pidStart) {
    const sup = { pid: st.pid, start: st.pidStart };
    signalProcess(sup, 'SIGTERM');
    await waitFor('the supervisor to exit', () => !isAlive(sup.pid, sup.start), { timeoutMs: 60_000, intervalMs: 200 }).catch(() => signalProcess(sup, 'SIGKILL'));
  }
  // Containers a crashed supervisor left, by the IDs state.json recorded (the testbed record does not know them).
  if (st?.containers?.length) await removeContainers(st.containers);
  // Whatever a crashed supervisor left: its testbed record names it all.
  await reapStale();
  rmSync(labDir, { recursive: true, force: true });
  out.write('switchyard-lab: down\n');
}

/**
 * Restarts one node's agent: kills it (SIGTERM, or SIGKILL with `--kill`); the supervisor starts it
 * again and writes the new pid to state.json. Returns once the new agent answers on its API socket.
 */
async function restartAgentCmd(labDir: string, node: string, signal: NodeJS.Signals, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const r = await restartAgent(labDir, node, signal);
  out.write(`switchyard-lab: ${node} agent restarted (pid ${r.oldPid} -> ${r.pid}) in ${(r.ms / 1000).toFixed(1)} s\n`);
}

async function stopAgentCmd(labDir: string, node: string, signal: NodeJS.Signals, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const r = await stopAgent(labDir, node, signal);
  out.write(`switchyard-lab: ${node} agent stopped (pid ${r.pid}, ${signal}) in ${(r.ms / 1000).toFixed(1)} s; it stays down until start-agent\n`);
}

async function startAgentCmd(labDir: string, node: string, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const r = await startAgent(labDir, node);
  out.write(`switchyard-lab: ${node} agent started (pid ${r.pid}) in ${(r.ms / 1000).toFixed(1)} s\n`);
}

async function restartOvsCmd(labDir: string, node: string, signal: NodeJS.Signals, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const r = await restartVswitchd(labDir, node, signal);
  out.write(`switchyard-lab: ${node} ovs-vswitchd restarted (${signal}) in ${(r.ms / 1000).toFixed(1)} s\n`);
}

async function status(labDir: string): Promise<void> {
  const st = readState(labDir);
  if (!running(st)) throw new LabError('NOT_RUNNING', 'no lab is running');
  const kube = labClient(st);
  const pods = await kube.request<{ items: { metadata: { namespace: string; name: string }; spec?: { nodeName?: string }; status?: { podIP?: string; phase?: string } }[] }>('GET', '/api/v1/pods');
  const podman = st.runtime === 'podman';
  process.stdout.write(`supervisor pid ${st.pid}, kubeconfig ${st.kubeconfig}${podman ? `, runtime podman (controller container ${st.containers?.find((id) => !st.nodes.some((n) => n.agentContainer === id))?.slice(0, 12) ?? '-'})` : ''}\nNODE\tPOD CIDR\tNODE IP${podman ? '\tAGENT CONTAINER' : ''}\n`);
  for (const n of st.nodes) process.stdout.write(`${n.name}\t${n.podCIDR}\t${n.nodeIP}${podman ? `\t${n.agentContainer?.slice(0, 12) ?? '-'}` : ''}\n`);
  process.stdout.write('\nNAMESPACE/POD\tNODE\tIP\tPHASE\n');
  for (const p of pods.items) process.stdout.write(`${p.metadata.namespace}/${p.metadata.name}\t${p.spec?.nodeName ?? '-'}\t${p.status?.podIP ?? '-'}\t${p.status?.phase ?? 'Pending'}\n`);
}

interface ProbeCliOptions {
  file: string;
  ports?: string;
  protocols?: string;
  output: string;
  concurrency?: string;
  timeout: string;
  firstTimeout: string;
  via: string;
  ipFamily?: string;
}

/** Cells of probe `p` whose verdict differs from its expectation (unavailable cells are not compared). */
function mismatches(results: readonly ProbeResult[], p: ProbeSpec): ProbeResult[] {
  return results.filter((c) => c.protocol === p.protocol && c.port === p.port && c.sourcePort === p.sourcePort && c.allowed !== null && c.allowed !== expectedAllowed(p.expect ?? [], c.from, c.to));
}

/** Applies a scenario, probes, deletes it; starts (and stops) a lab when none runs. Exit 2 when a Probe expectation is not met. */
async function probe(labDir: string, o: ProbeCliOptions): Promise<void> {
  if (o.output !== 'json' && o.output !== 'table') throw new ScenarioError('INVALID_SCENARIO', `-o must be json or table, got ${o.output}`, o.output, '-o');
  const sc = parseScenario(readFileSync(o.file, 'utf8'), o.file);
  const ports = o.ports?.split(',').map((p) => Number(p.trim()));
  if (ports?.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) throw new ScenarioError('INVALID_SCENARIO', `--ports must be port numbers, got ${o.ports ?? ''}`, o.ports, '--ports');
  const protocols = o.protocols?.split(',').map((p) => p.trim().toUpperCase() as Protocol);
  if (protocols?.some((p) => !['TCP', 'UDP', 'SCTP'].includes(p))) throw new ScenarioError('INVALID_SCENARIO', `--protocols must be TCP, UDP, SCTP, got ${o.protocols ?? ''}`, o.protocols, '--protocols');
  for (const [flag, v] of [['--timeout', o.timeout], ['--first-timeout', o.firstTimeout], ['--concurrency', o.concurrency]] as const)
    if (v !== undefined && !(Number.isInteger(Number(v)) && Number(v) > 0)) throw new ScenarioError('INVALID_SCENARIO', `${flag} must be a positive whole number, got ${v}`, v, flag);
  if (o.via !== 'pod' && o.via !== 'service' && o.via !== 'nodeport') throw new ScenarioError('INVALID_SCENARIO', `--via must be pod, service or nodeport, got ${o.via}`, o.via, '--via');
  const families: Record<string, IpFamily[]> = { ipv4: ['IPv4'], ipv6: ['IPv6'], dual: ['IPv4', 'IPv6'] };
  if (o.ipFamily !== undefined && !families[o.ipFamily]) throw new ScenarioError('INVALID_SCENARIO', `--ip-family must be ipv4, ipv6 or dual, got ${o.ipFamily}`, o.ipFamily, '--ip-family');
  // From the fabric host the scenario's pod-to-pod expectations do not apply.
  const compare = o.via !== 'nodeport';
  let st = readState(labDir);
  const started = !running(st);
  if (started) {
    await up(labDir, 2, process.stderr, o.ipFamily && o.ipFamily !== 'ipv4' ? { ipFamily: parseIpFamily(o.ipFamily) } : {});
    st = readState(labDir)!;
  }
  const runner = new ScenarioRunner({
    kube: labClient(st!),
    state: st!,
    ...(ports ? { ports } : {}),
    ...(protocols ? { protocols } : {}),
    overrideProbes: ports !== undefined || protocols !== undefined,
    ...(o.concurrency !== undefined ? { concurrency: Number(o.concurrency) } : {}),
    timeoutMs: Number(o.timeout),
    firstTimeoutMs: Number(o.firstTimeout),
    via: o.via as 'pod' | 'service' | 'nodeport',
    // Default: the lab's families (both on a dual-stack lab).
    ...(o.ipFamily !== undefined ? { ipFamilies: families[o.ipFamily]! } : {}),
  });
  let failed = 0;
  try {
    const steps = await runner.run(sc, (i, r) => {
      if (o.output !== 'table') return;
      process.stdout.write(`step ${i + 1} (policies realized in ${r.realizeMs} ms, probed in ${r.probeMs} ms)\n`);
      // One table per probe and family probed (a dual-stack lab: IPv4's, then IPv6's).
      const tables = [...new Set(r.results.map((c) => c.ipFamily))].flatMap((family) => r.probes.map((p) => ({ family, p })));
      for (const { family, p } of tables) {
        const cells = r.results.filter((c) => c.ipFamily === family && c.protocol === p.protocol && c.port === p.port && c.sourcePort === p.sourcePort);
        const title = `${family ? `${family} ` : ''}${p.protocol}/${p.port}${p.sourcePort ? ` from source port ${p.sourcePort}` : ''}`;
        const off = cells.filter((c) => c.unavailable);
        const unavailable = off.length > 0 ? ` (${off.length} unavailable: ${off[0]!.unavailable ?? ''})` : '';
        const traced = cells.some((c) => c.via === 'trace') ? ' (by ofproto/trace, no packet sent: o allowed, x blocked)' : '';
        process.stdout.write(`\n${title}${traced}${unavailable}\n${formatTruthTable(cells, r.pods, compare ? r.pods : [FABRIC_SOURCE])}\n`);
        if (compare && p.expect && off.length < cells.length) {
          const wrong = mismatches(cells, p);
          failed += wrong.length;
          process.stdout.write(wrong.length === 0 ? 'as expected\n' : `${wrong.length} cells differ from the expectation: ${wrong.map((c) => `${c.from} -> ${c.to} ${c.allowed ? 'allowed' : 'blocked'}`).join(', ')}\n`);
        }
      }
      process.stdout.write('\n');
    });
    if (o.output === 'json') {
      if (compare) for (const s of steps) for (const p of s.probes) if (p.expect) failed += mismatches(s.results, p).length;
      process.stdout.write(`${JSON.stringify({ steps: steps.map((s) => ({ results: s.results })) }, null, 2)}\n`);
    }
  } finally {
    runner.close();
    if (started) await down(labDir, process.stderr);
  }
  if (failed > 0) process.exitCode = 2;
}

/** `10m`, `90s`, `1500ms` or a bare number of seconds, in ms. */
function parseDuration(v: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new LabError('INVALID_ARGUMENT', `${flag} must be a duration such as 10m, 90s or 1500ms, got ${JSON.stringify(v)}`, v, flag);
  return Math.round(Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h']);
}

interface ChaosCliOptions {
  duration: string;
  seed?: string;
  suites: string;
  output: string;
}

async function chaos(labDir: string, o: ChaosCliOptions): Promise<void> {
  if (o.output !== 'json' && o.output !== 'table') throw new LabError('INVALID_ARGUMENT', `-o must be json or table, got ${o.output}`, o.output, '-o');
  const durationMs = parseDuration(o.duration, '--duration');
  const seed = o.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(o.seed);
  if (!Number.isInteger(seed)) throw new LabError('INVALID_ARGUMENT', `--seed must be an integer, got ${JSON.stringify(o.seed)}`, o.seed, '--seed');
  const scenarios = loadScenarios(join(REPO_ROOT, 'tools/lab/conformance'), o.suites.split(',').map((x) => x.trim()), parseScenario);
  const started = !running(readState(labDir));
  if (started) await up(labDir, 2, process.stderr);
  let report: ChaosReport;
  try {
    process.stderr.write(`switchyard-lab chaos: ${(durationMs / 1000).toFixed(0)} s, seed ${seed}, ${scenarios.length} scenarios\n`);
    report = await runChaos({ labDir, durationMs, seed, scenarios, log: (l) => process.stderr.write(`${l}\n`) });
  } finally {
    if (started) await down(labDir, process.stderr);
  }
  process.stdout.write(o.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatChaosReport(report));
  if (!report.ok) process.exitCode = 2;
}

const program = new Command('switchyard-lab').description('a multi-node Switchyard cluster on one machine').option('--lab-dir <dir>', 'state directory', DEFAULT_LAB_DIR);
const dir = (): string => program.opts<{ labDir: string }>().labDir;
program
  .command('up')
  .option('--nodes <n>', 'number of nodes', '2')
  .option('--mode <mode>', 'trafficEncapMode of the agents: encap, noEncap, hybrid (fabric split into two subnets)', 'encap')
  .option('--encryption <mode>', 'trafficEncryptionMode of the agents: none, wireGuard (userspace wireguard-go per node)', 'none')
  .option('--ip-family <family>', 'ipv4; dual: every node dual-stack (an IPv6 pod CIDR fd00:10:<i>::/64 beside the IPv4 one) and a dual-stack Service range; ipv6: every node IPv6-only (the pod CIDR fd00:10:<i>::/64 alone, pods with an IPv6 address only) and an IPv6 Service range fd00:10:96::/108. dual and ipv6 add the IPv6 underlay fd00:77::<i>/64 (hybrid: the second half of the nodes in fd00:78::<i>/64; encap tunnels IPv6 over IPv4; noEncap and hybrid route it on the IPv6 underlay); with --encryption wireGuard, IPv6 pod traffic is encrypted too (an IPv6-only node sends to its peers\' IPv6 underlay address)', 'ipv4')
  .option('--no-controller', 'no switchyard-controller: pod networking only, no policies')
  .option('--feature-gates <list>', 'feature gates of every agent and the controller, e.g. ServiceExternalIP=true')
  .option('--proxy-all', "antreaProxy.proxyAll on every agent: the nodes' own processes reach ClusterIPs and node ports through OVS")
  .option('--runtime <runtime>', 'process (the programs from the checkout), or podman: the controller and agents in containers from the images `npm run images` built, as switchyard.yml describes them', 'process')
  .action((o: { nodes: string; mode: string; encryption: string; controller: boolean; featureGates?: string; proxyAll?: boolean; ipFamily: string; runtime: string }) =>
    up(dir(), Number(o.nodes), process.stdout, { mode: parseMode(o.mode), encryption: parseEncryption(o.encryption), controller: o.controller, ...(o.featureGates ? { featureGates: parseFeatureGates(o.featureGates) } : {}), ...(o.proxyAll ? { proxyAll: true } : {}), ...(o.ipFamily !== 'ipv4' ? { ipFamily: parseIpFamily(o.ipFamily) } : {}), ...(o.runtime !== 'process' ? { runtime: parseRuntime(o.runtime) } : {}) }));
program
  .command('restart-agent <node>')
  .description("restart one node's agent (the supervisor starts it again); waits until it answers")
  .option('--kill', 'SIGKILL instead of SIGTERM')
  .action((node: string, o: { kill?: boolean }) => restartAgentCmd(dir(), node, o.kill ? 'SIGKILL' : 'SIGTERM'));
program
  .command('stop-agent <node>')
  .description("stop one node's agent and keep it stopped (no respawn) until start-agent; OVS and its flows stay")
  .option('--kill', 'SIGKILL (a crash) instead of SIGTERM (a graceful stop)')
  .action((node: string, o: { kill?: boolean }) => stopAgentCmd(dir(), node, o.kill ? 'SIGKILL' : 'SIGTERM'));
program
  .command('start-agent <node>')
  .description("start again an agent stop-agent stopped; waits until it answers")
  .action((node: string) => startAgentCmd(dir(), node));
program
  .command('restart-ovs <node>')
  .description("restart one node's ovs-vswitchd under its running agent; waits until it answers")
  .option('--kill', 'SIGKILL instead of SIGTERM')
  .action((node: string, o: { kill?: boolean }) => restartOvsCmd(dir(), node, o.kill ? 'SIGKILL' : 'SIGTERM'));
program
  .command('chaos')
  .description('apply and probe conformance scenarios in a loop while killing agents, the controller, ovsdb-server and ovs-vswitchd and churning pods; report recovery times and leftovers (exit 2 on a failure)')
  .option('--duration <d>', 'how long faults are injected, e.g. 10m, 120s', '10m')
  .option('--seed <n>', 'seed of the choices (printed; default random)')
  .option('--suites <list>', 'conformance suites to draw scenarios from', 'k8s-netpol,antrea-native')
  .option('-o, --output <format>', 'table or json', 'table')
  .action((o: ChaosCliOptions) => chaos(dir(), o));
program.command('down').action(() => down(dir()));
program.command('status').action(() => status(dir()));
program
  .command('probe')
  .description('apply a scenario, probe every ordered pod pair, delete the scenario, print the matrix')
  .requiredOption('-f, --file <scenario.yaml>', 'multi-document YAML; a `--- # step` line starts the next step')
  .option('--ports <list>', 'ports to probe, e.g. 80,81 (default: the Probe document, else the pods\' declared ports)')
  .option('--protocols <list>', 'TCP,UDP,SCTP (SCTP is judged by ofproto/trace: o/x in the table, "via": "trace" in JSON)')
  .option('-o, --output <format>', 'json or table', 'table')
  .option('--concurrency <n>', 'probes in flight (default: every cell of a step at once)')
  .option('--timeout <ms>', 'how long a probe waits before its cell counts as blocked', '1000')
  .option('--first-timeout <ms>', 'the first pass\'s shorter window; a cell silent in it is probed again with --timeout', '300')
  .option('--ip-family <family>', 'ipv4, ipv6 or dual: the families probed, each cell once per family (default: the lab\'s; a lab started here gets this family)')
  .option('--via <how>', "pod: probe the pod IPs; service: through a ClusterIP Service made for each target pod (TCP/UDP; SCTP stays traced on the pod address); nodeport: from the fabric host through a NodePort Service (externalTrafficPolicy Local) of each pod on its node's address (one row, 'fabric'; no expectations compared)", 'pod')
  .action((o: ProbeCliOptions) => probe(dir(), o));
program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`switchyard-lab: ${(e as Error).message}\n`);
  process.exit(1);
});

export type { LabState };
