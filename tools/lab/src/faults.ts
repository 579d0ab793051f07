/**
 * Faults a running lab can be given from outside the supervisor (`switchyard-lab restart-agent`,
 * `restart-ovs`, `chaos`): each signals a process only through what the lab recorded for it
 * (pid and start time, or the OVS pidfile), waits until the component is back, and returns how
 * long it was gone.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isAlive, ovsDaemons, run, signalProcess, waitFor } from '@switchyard/testbed';
import { agentHeldFile, type LabNodeState, type LabState } from './lab';
import { LabError } from './plan';
import { readState } from './client';
import { agentGet } from './probe';

/** The lab's supervisor is running: its pid is alive with the start time state.json recorded. */
export const labRunning = (st: LabState | undefined): st is LabState => st !== undefined && isAlive(st.pid, st.pidStart || undefined);

function runningLab(labDir: string): LabState {
  const st = readState(labDir);
  if (!labRunning(st)) throw new LabError('NOT_RUNNING', 'no lab is running');
  return st;
}

function nodeOf(st: LabState, node: string): LabNodeState {
  const n = st.nodes.find((x) => x.name === node);
  if (!n) throw new LabError('UNKNOWN_NODE', `no node ${node} in this lab (${st.nodes.map((x) => x.name).join(', ')})`, node, 'node');
  return n;
}

/** A node's agent answers its local API with every part healthy. */
export async function agentHealthy(n: LabNodeState): Promise<boolean> {
  if (!existsSync(n.apiSocket)) return false;
  const h = await agentGet<{ status: string }>(n.apiSocket, '/healthz?verbose').catch(() => undefined);
  return h?.status === 'ok';
}

/** A pino line in short: its message, its error's message and its other small fields. */
function logLine(l: string): string {
  try {
    const { msg, err, level: _l, time, component: _c, pid: _p, hostname: _h, ...rest } = JSON.parse(l) as Record<string, unknown> & { msg?: string; err?: { message?: string }; time?: number };
    const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
    return `${time ? new Date(time).toISOString().slice(11, 23) : ''} ${msg ?? ''}${err?.message ? `: ${err.message}` : ''}${extra ? ` (${extra})` : ''}`.slice(0, 300);
  } catch {
    return l.slice(0, 300);
  }
}

/**
 * Why a node's agent is not healthy, for a fault's report: its verbose health answer (or why
 * there is none) and its last warnings and errors from agent.log beside its API socket.
 */
export async function agentHealthReport(n: LabNodeState, lines = 8): Promise<string> {
  const health = !existsSync(n.apiSocket)
    ? 'no API socket'
    : await agentGet<unknown>(n.apiSocket, '/healthz?verbose').then((h) => JSON.stringify(h), (e: unknown) => `health unreadable: ${(e as Error).message}`);
  let log: string[] = [];
  try {
    log = readFileSync(join(dirname(n.apiSocket), 'agent.log'), 'utf8')
      .split('\n')
      .filter((l) => /"level":(4|5|6)\d/.test(l))
      .slice(-lines)
      .map(logLine);
  } catch {
    log = ['(no agent.log)'];
  }
  return `${n.name}: ${health}; last warnings: ${log.join(' | ') || 'none'}`;
}

/** Signals a node's agent; the supervisor starts it again. Resolves with the new pid once it answers. */
export async function restartAgent(labDir: string, node: string, signal: NodeJS.Signals): Promise<{ oldPid: number; pid: number; ms: number }> {
  const st = runningLab(labDir);
  const n = nodeOf(st, node);
  const old = n.agentPid;
  const t0 = Date.now();
  if (!signalProcess({ pid: old, start: n.agentStart }, signal)) throw new LabError('NOT_RUNNING', `${node}'s agent (pid ${old}) is not running`, old, 'agentPid');
  let pid = old;
  await waitFor(`${node}'s agent to be started again`, async () => {
    pid = readState(labDir)?.nodes.find((x) => x.name === node)?.agentPid ?? old;
    return pid !== old && isAlive(pid) && existsSync(n.apiSocket) && (await agentGet(n.apiSocket, '/agentinfo').then(() => true, () => false));
  }, { timeoutMs: 60_000, intervalMs: 100 });
  return { oldPid: old, pid, ms: Date.now() - t0 };
}

/**
 * Stops a node's agent and keeps it stopped (SIGTERM: a graceful stop; SIGKILL: a crash): the
 * supervisor leaves it down until {@link startAgent}. OVS, its flows and the node's routes stay.
 * Resolves once the process is gone.
 */
export async function stopAgent(labDir: string, node: string, signal: NodeJS.Signals): Promise<{ pid: number; ms: number }> {
  const n = nodeOf(runningLab(labDir), node);
  if (existsSync(agentHeldFile(n))) throw new LabError('NOT_RUNNING', `${node}'s agent is already stopped (start it with start-agent)`, node, 'node');
  writeFileSync(agentHeldFile(n), `${new Date().toISOString()} ${signal}\n`);
  const t0 = Date.now();
  if (!signalProcess({ pid: n.agentPid, start: n.agentStart }, signal)) {
    rmSync(agentHeldFile(n), { force: true });
    throw new LabError('NOT_RUNNING', `${node}'s agent (pid ${n.agentPid}) is not running`, n.agentPid, 'agentPid');
  }
  await waitFor(`${node}'s agent to exit`, () => !isAlive(n.agentPid, n.agentStart || undefined), { timeoutMs: 30_000, intervalMs: 50 });
  return { pid: n.agentPid, ms: Date.now() - t0 };
}

/** Lets the supervisor start a node's agent that {@link stopAgent} stopped. Resolves with the new pid once it answers. */
export async function startAgent(labDir: string, node: string): Promise<{ pid: number; ms: number }> {
  const n = nodeOf(runningLab(labDir), node);
  if (!existsSync(agentHeldFile(n))) throw new LabError('ALREADY_RUNNING', `${node}'s agent was not stopped with stop-agent`, node, 'node');
  const old = n.agentPid;
  const t0 = Date.now();
  rmSync(agentHeldFile(n), { force: true });
  let pid = old;
  await waitFor(`${node}'s agent to be started again`, async () => {
    pid = readState(labDir)?.nodes.find((x) => x.name === node)?.agentPid ?? old;
    return pid !== old && isAlive(pid) && existsSync(n.apiSocket) && (await agentGet(n.apiSocket, '/agentinfo').then(() => true, () => false));
  }, { timeoutMs: 60_000, intervalMs: 100 });
  return { pid, ms: Date.now() - t0 };
}

/**
 * Stops a node's ovs-vswitchd (SIGTERM, or SIGKILL) and starts it again as a package upgrade or
 * a crash would, then the node's own network configuration gives br-phy its address again. The
 * agent keeps running and puts back what vswitchd lost. Resolves once br-phy is addressed.
 */
export async function restartVswitchd(labDir: string, node: string, signal: NodeJS.Signals): Promise<{ ms: number }> {
  const n = nodeOf(runningLab(labDir), node);
  const ovs = ovsDaemons(dirname(n.vswitchdCtl), n.netns);
  const t0 = Date.now();
  await ovs.stopVswitchd(signal);
  await ovs.startVswitchd();
  await waitFor(`${node}'s br-phy`, async () => (await run(['ip', 'link', 'show', 'br-phy'], { netns: n.netns, allowFailure: true })).code === 0, { timeoutMs: 20_000, intervalMs: 50 });
  for (const argv of n.underlay) await run(argv, { netns: n.netns });
  return { ms: Date.now() - t0 };
}

/** Stops a node's ovsdb-server (SIGTERM, or SIGKILL) and starts it again on the same database. */
export async function restartOvsdb(labDir: string, node: string, signal: NodeJS.Signals): Promise<{ ms: number }> {
  const n = nodeOf(runningLab(labDir), node);
  const ovs = ovsDaemons(dirname(n.vswitchdCtl), n.netns);
  const t0 = Date.now();
  await ovs.stopDb(signal);
  await ovs.startDb();
  return { ms: Date.now() - t0 };
}

/** Signals the controller; the supervisor starts it again. Resolves once the new one serves its port. */
export async function restartController(labDir: string, signal: NodeJS.Signals): Promise<{ oldPid: number; pid: number; ms: number }> {
  const st = runningLab(labDir);
  if (!st.controllerPort || !st.controllerPid) throw new LabError('NOT_RUNNING', 'this lab runs without a controller');
  const old = st.controllerPid;
  const t0 = Date.now();
  if (!signalProcess({ pid: old, start: st.controllerStart ?? '' }, signal)) throw new LabError('NOT_RUNNING', `the controller (pid ${old}) is not running`, old, 'controllerPid');
  let pid = old;
  await waitFor('the controller to be started again', async () => {
    pid = readState(labDir)?.controllerPid ?? old;
    if (pid === old || !isAlive(pid)) return false;
    return (await run(['curl', '-sk', '-o', '/dev/null', '-w', '%{http_code}', `https://127.0.0.1:${st.controllerPort}/healthz`], { allowFailure: true, timeoutMs: 3000 })).stdout !== '000';
  }, { timeoutMs: 60_000, intervalMs: 100 });
  return { oldPid: old, pid, ms: Date.now() - t0 };
}
