/**
 * The node's WireGuard device as a process that outlives the agent: wireguard-go started detached
 * and recorded (pid + start time in `<dataDir>/wireguard/device.json`), adopted by the next agent
 * while that record still names a running, answering process, and removed by deleting the link
 * and, if need be, ending the recorded process (never a pid alone).
 *
 * wireguard-go puts its UAPI socket in the fixed directory /var/run/wireguard. Several lab nodes
 * share one file system, so the device runs in a private mount namespace with the node's own
 * directory mounted there; the agent reaches the socket at that directory's real path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { Logger } from '@switchyard/runtime';
import { AgentError } from '../../errors';
import { NodeNetwork, netnsPath } from '../../netops';
import { WIREGUARD_DEVICE, uapiRequest } from './wireguard';

/** How long wireguard-go may take to answer on its socket after it was started. */
const DEVICE_READY_MS = 10_000;

/** How long a device may take to go once its link is deleted (wireguard-go exits within a second). */
const DEVICE_GONE_MS = 5000;

/** The running wireguard-go as recorded on disk: a pid is only trusted with its start time. */
export interface DeviceProcess {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  start: string;
}

/** The start time of process `pid`, or undefined when there is none (or only its zombie: it has exited). */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'; the first is the state.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the recorded process still runs (its pid has the recorded start time). */
export const isRunning = (p: DeviceProcess): boolean => processStartTime(p.pid) === p.start;

/**
 * A WireGuard device of the node: its link name and the directory of its state (key, device
 * record, run directory, output). The node's own device (trafficEncryptionMode) is one; other
 * features run theirs with the same functions.
 */
export interface WireGuardDeviceLocation {
  name: string;
  dir: string;
}

/** The directory of the node's WireGuard state: key, device record, run directory, output. */
export const wireGuardDir = (dataDir: string): string => join(dataDir, 'wireguard');
/** The node's device between nodes. */
export const nodeWireGuardDevice = (dataDir: string): WireGuardDeviceLocation => ({ name: WIREGUARD_DEVICE, dir: wireGuardDir(dataDir) });
const recordFile = (d: WireGuardDeviceLocation): string => join(d.dir, 'device.json');
const runDirOf = (d: WireGuardDeviceLocation): string => join(d.dir, 'run');
const logFileOf = (d: WireGuardDeviceLocation): string => join(d.dir, 'wireguard-go.log');
/** A device's UAPI socket, at the real path of the directory wireguard-go sees as /var/run/wireguard. */
export const deviceSocket = (d: WireGuardDeviceLocation): string => join(runDirOf(d), `${d.name}.sock`);
/** The node device's UAPI socket. */
export const wireGuardSocket = (dataDir: string): string => deviceSocket(nodeWireGuardDevice(dataDir));

function readRecord(d: WireGuardDeviceLocation): DeviceProcess | undefined {
  try {
    const r = JSON.parse(readFileSync(recordFile(d), 'utf8')) as Partial<DeviceProcess>;
    return typeof r.pid === 'number' && r.pid > 0 && typeof r.start === 'string' ? { pid: r.pid, start: r.start } : undefined;
  } catch {
    return undefined;
  }
}

async function waitGone(p: DeviceProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isRunning(p)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** SIGKILLs the recorded process, only while its start time still matches, and waits for it to go. */
async function killRecorded(p: DeviceProcess): Promise<void> {
  if (!isRunning(p)) return;
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitGone(p, DEVICE_GONE_MS);
}

/**
 * Removes the node's WireGuard device (agent uninstall, lab teardown): deletes the link, which
 * makes wireguard-go exit, then SIGKILLs the recorded process (pid checked against its start time)
 * if it is still there, and removes the record and the socket. Returns whether anything was there.
 */
export async function removeWireGuardDevice(o: { dataDir: string; nodeNetns?: string; logger?: Logger; device?: WireGuardDeviceLocation }): Promise<boolean> {
  const d = o.device ?? nodeWireGuardDevice(o.dataDir);
  const rec = readRecord(d);
  const net = new NodeNetwork(o.nodeNetns);
  let deleted: boolean;
  try {
    deleted = await net.deleteHostLink(d.name);
  } finally {
    net.close();
  }
  let killed = false;
  if (rec && !(await waitGone(rec, DEVICE_GONE_MS))) {
    killed = true;
    await killRecorded(rec);
  }
  rmSync(recordFile(d), { force: true });
  rmSync(deviceSocket(d), { force: true });
  o.logger?.info({ device: d.name, linkDeleted: deleted, pid: rec?.pid, killed }, 'WireGuard device removed');
  return deleted || rec !== undefined;
}

/** The last lines wireguard-go wrote (for errors and health). */
export function deviceLogTail(d: WireGuardDeviceLocation): string {
  try {
    return readFileSync(logFileOf(d), 'utf8').trim().split('\n').slice(-3).join(' | ') || '(no output)';
  } catch {
    return '(no output)';
  }
}

/**
 * Takes over the device a previous agent left: its recorded process still runs (same pid and start
 * time) and answers on the socket. A recorded process that does not answer is ended by its record
 * and undefined returned, as for a gone one.
 */
export async function adoptWireGuardDevice(o: { device: WireGuardDeviceLocation; log: Logger }): Promise<DeviceProcess | undefined> {
  const d = o.device;
  const rec = readRecord(d);
  if (!rec) return undefined;
  if (!isRunning(rec)) {
    o.log.info({ pid: rec.pid }, 'the recorded wireguard-go is gone; starting a new device');
    return undefined;
  }
  try {
    await uapiRequest(deviceSocket(d), 'get=1\n\n', 2000);
  } catch (e) {
    o.log.warn({ pid: rec.pid, err: e instanceof Error ? e.message : String(e) }, 'the recorded wireguard-go does not answer on its socket; ending it and starting a new device');
    await killRecorded(rec);
    return undefined;
  }
  o.log.info({ device: d.name, pid: rec.pid, socket: deviceSocket(d) }, 'WireGuard device adopted (left running by the previous agent)');
  return rec;
}

/**
 * Starts wireguard-go in the foreground in the node's namespace, in a private mount namespace
 * whose /var/run/wireguard is this node's run directory, detached from the agent (own session,
 * output to a file: a pipe would kill it with SIGPIPE once the agent is gone), and records its pid
 * and start time (nsenter, unshare and sh exec into it, so the pid is wireguard-go's). Resolves
 * once the device answers on its socket. `onExit` hears of its exit while this agent runs.
 */
export async function startWireGuardDevice(o: {
  device: WireGuardDeviceLocation;
  nodeNetns: string | undefined;
  wireGuardGo: string;
  log: Logger;
  onExit: (code: number | null, signal: string | null) => void;
}): Promise<DeviceProcess> {
  const d = o.device;
  const runDir = runDirOf(d);
  const socket = deviceSocket(d);
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  rmSync(socket, { force: true });
  const script = 'mkdir -p /var/run/wireguard && mount --bind "$1" /var/run/wireguard && exec "$2" -f "$3"';
  const argv = [
    ...(o.nodeNetns !== undefined ? ['nsenter', `--net=${netnsPath(o.nodeNetns)}`] : []),
    'unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', runDir, o.wireGuardGo, d.name,
  ];
  const [cmd, ...args] = argv as [string, ...string[]];
  const out = openSync(logFileOf(d), 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, LOG_LEVEL: 'error', WG_PROCESS_FOREGROUND: '1' } });
  } finally {
    closeSync(out);
  }
  child.unref();
  let exited = false;
  let spawnError: string | undefined;
  child.on('exit', (code, signal) => {
    exited = true;
    o.onExit(code, signal);
  });
  child.on('error', (e) => {
    exited = true;
    spawnError = e.message;
    o.onExit(null, null);
  });
  const start = child.pid !== undefined ? processStartTime(child.pid) : undefined;
  const device = child.pid !== undefined && start !== undefined ? { pid: child.pid, start } : undefined;
  if (device) writeFileDurableSync(recordFile(d), `${JSON.stringify(device)}\n`, { mode: 0o600 });
  const deadline = Date.now() + DEVICE_READY_MS;
  for (;;) {
    if (exited || !device) throw new AgentError('WIREGUARD', `wireguard-go exited before its device was ready: ${spawnError ?? deviceLogTail(d)}`, argv, 'wireGuard');
    if (existsSync(socket)) {
      try {
        await uapiRequest(socket, 'get=1\n\n', 1000);
        break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) throw new AgentError('WIREGUARD', `${d.name} did not answer on ${socket} within ${DEVICE_READY_MS} ms`, argv, 'wireGuard');
    await new Promise((r) => setTimeout(r, 50));
  }
  o.log.info({ device: d.name, pid: device.pid, socket }, 'WireGuard device up (wireguard-go, detached)');
  return device;
}
