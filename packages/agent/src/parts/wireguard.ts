/**
 * The WireGuard part (trafficEncryptionMode wireGuard): runs the node's WireGuard device
 * (userspace wireguard-go), keeps its private key on disk and rotates it, publishes the public key
 * on the Node, and keeps the device's peers in line with the other Nodes. The routes part sends
 * remote pod CIDRs to the device; the pipeline hands that traffic to the gateway.
 *
 * The device outlives the agent, as a kernel device would: wireguard-go runs detached (own
 * session, output to a file), its pid and start time are recorded, and a restarted agent adopts
 * the running device through its UAPI socket instead of starting another, so pod traffic between
 * nodes does not stop while the agent is away. {@link removeWireGuardDevice} ends it.
 *
 * wireguard-go puts its UAPI socket in the fixed directory /var/run/wireguard. Several lab nodes
 * share one file system, so the device runs in a private mount namespace with the node's own
 * directory mounted there; the agent reaches the socket at that directory's real path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import type { AgentContext } from '../context';
import { AgentError } from '../errors';
import type { AgentController, ControllerHealth } from '../lifecycle';
import { NodeNetwork, netnsPath } from '../netops';
import {
  WIREGUARD_DEVICE,
  WIREGUARD_PUBLIC_KEY_ANNOTATION,
  generatePrivateKey,
  keyRotationDecision,
  loadOrCreatePrivateKey,
  parseUapiGet,
  publicKeyOf,
  readKeyFile,
  uapiRequest,
  uapiSetInterface,
  uapiSetPeers,
  wireGuardNodeFacts,
  wireGuardPeersOf,
  writePrivateKey,
  type SkippedPeer,
  type WireGuardNodeFacts,
  type WireGuardPeer,
} from '../wireguard';
import { NODES, PRIME_LIST_MS, listWithin } from './kube-resources';

/** How long wireguard-go may take to answer on its socket after it was started. */
const DEVICE_READY_MS = 10_000;
/** How long a device may take to go once its link is deleted (wireguard-go exits within a second). */
const DEVICE_GONE_MS = 5000;
const KEY_FILE = 'private.key';

/** The running wireguard-go as recorded on disk: a pid is only trusted with its start time. */
export interface DeviceProcess {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  start: string;
}

/** The start time of process `pid`, or undefined when there is none. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const isRunning = (p: DeviceProcess): boolean => processStartTime(p.pid) === p.start;

/** The directory of the node's WireGuard state: key, device record, run directory. */
const wireGuardDir = (dataDir: string): string => join(dataDir, 'wireguard');
const recordFile = (dataDir: string): string => join(wireGuardDir(dataDir), 'device.json');
const runDirOf = (dataDir: string): string => join(wireGuardDir(dataDir), 'run');
const socketOf = (dataDir: string): string => join(runDirOf(dataDir), `${WIREGUARD_DEVICE}.sock`);

function readRecord(dataDir: string): DeviceProcess | undefined {
  try {
    const r = JSON.parse(readFileSync(recordFile(dataDir), 'utf8')) as Partial<DeviceProcess>;
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
export async function removeWireGuardDevice(o: { dataDir: string; nodeNetns?: string; logger?: Logger }): Promise<boolean> {
  const rec = readRecord(o.dataDir);
  const net = new NodeNetwork(o.nodeNetns);
  let deleted: boolean;
  try {
    deleted = await net.deleteHostLink(WIREGUARD_DEVICE);
  } finally {
    net.close();
  }
  let killed = false;
  if (rec && !(await waitGone(rec, DEVICE_GONE_MS))) {
    killed = true;
    await killRecorded(rec);
  }
  rmSync(recordFile(o.dataDir), { force: true });
  rmSync(socketOf(o.dataDir), { force: true });
  o.logger?.info({ device: WIREGUARD_DEVICE, linkDeleted: deleted, pid: rec?.pid, killed }, 'WireGuard device removed');
  return deleted || rec !== undefined;
}

export class WireGuardTunnel implements AgentController {
  readonly name = 'wireguard';
  /** The device's process: recorded, and either started by this agent or adopted from a previous one. */
  private device: DeviceProcess | undefined;
  /** Set when this agent started the device (exit events come only for our own children). */
  private child: ChildProcess | undefined;
  private childExit: { code: number | null; signal: string | null } | undefined;
  private stopping = false;
  private informer: Informer | undefined;
  private readonly nodes = new Map<string, WireGuardNodeFacts>();
  private running: Promise<void> | undefined;
  private dirty = false;
  private keyCheckDue = false;
  private keyTimer: TimerHandle | undefined;
  private keyWatcher: FSWatcher | undefined;
  private privateKey = '';
  private warned = new Set<string>();
  /** This node's public key (base64), once started. */
  publicKey: string | undefined;
  /** Whether this agent adopted a device a previous agent left running. */
  adopted = false;
  /** The peers last set on the device. */
  peers: WireGuardPeer[] = [];
  /** Nodes whose annotation holds no usable key. */
  skipped: SkippedPeer[] = [];
  /** Why the key file was not used (it holds no key); cleared once it is right again. */
  keyProblem: string | undefined;
  /** Key rotations this agent made. */
  rotations = 0;
  lastError: unknown;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
  ) {}

  /** The UAPI socket of the device (in the node's own run directory). */
  get socketPath(): string {
    return socketOf(this.ctx.options.dataDir);
  }
  private get dir(): string {
    return wireGuardDir(this.ctx.options.dataDir);
  }
  private get keyFile(): string {
    return join(this.dir, KEY_FILE);
  }
  private get clock(): Clock {
    return this.ctx.options.clock ?? systemClock;
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const { privateKey, created } = loadOrCreatePrivateKey(this.keyFile, this.clock.now());
    this.privateKey = privateKey;
    this.publicKey = publicKeyOf(privateKey);
    log.info({ publicKey: this.publicKey, created }, created ? 'WireGuard key pair generated' : 'WireGuard key loaded');
    if (!(await this.adoptDevice())) await this.startDevice();
    // Only what differs: an adopted device with the right key and port is left untouched.
    const set = uapiSetInterface(privateKey, o.wireGuardPort, parseUapiGet(await uapiRequest(this.socketPath, 'get=1\n\n')));
    if (set) await uapiRequest(this.socketPath, set);
    await this.ctx.net.setLinkUp(WIREGUARD_DEVICE, this.ctx.mtu);
    await this.publish();
    // Peers from the Nodes listed now: the restarted agent's tunnels are back before the watch runs.
    try {
      for (const n of await listWithin(this.kube, '/api/v1/nodes', PRIME_LIST_MS)) this.onNode(wireGuardNodeFacts(n));
      await this.idle();
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Nodes not listed at start; WireGuard peers follow from the watch');
    }
    this.watchKey();
  }

  async sync(): Promise<void> {
    const o = this.ctx.options;
    this.informer = new Informer(
      this.kube,
      NODES,
      (e) => {
        const f = wireGuardNodeFacts(e.object);
        if (e.type === 'DELETED') {
          this.nodes.delete(f.name);
          this.schedule();
        } else this.onNode(f);
      },
      { clock: o.clock ?? systemClock, logger: this.ctx.log },
    );
    this.informer.start();
  }

  /**
   * Stops watching; the device stays up with its peers (as a kernel device would), so pod
   * traffic between nodes goes on while no agent runs. The next agent adopts it;
   * {@link removeWireGuardDevice} removes it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.keyTimer?.cancel();
    this.keyWatcher?.close();
    await this.informer?.stop();
    await this.idle();
  }

  health(): ControllerHealth {
    if (this.childExit) return { ok: false, detail: `wireguard-go exited (code ${this.childExit.code}, signal ${this.childExit.signal}): ${this.logTail()}` };
    if (!this.publicKey || !this.device) return { ok: false, detail: 'not started' };
    if (!isRunning(this.device)) return { ok: false, detail: `wireguard-go (pid ${this.device.pid}) is gone: ${this.logTail()}` };
    const held = `${WIREGUARD_DEVICE}: ${this.peers.length} peers${this.skipped.length ? `, ${this.skipped.length} skipped (bad key)` : ''}`;
    if (this.keyProblem !== undefined) return { ok: false, detail: `${held}; key file ${this.keyFile}: ${this.keyProblem}` };
    if (this.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: true, detail: held };
  }

  /** Resolves when every Node change and key check seen so far is done. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Checks the key file now (as its removal, or the rotation timer, would). */
  checkKey(): Promise<void> {
    this.keyCheckDue = true;
    this.kick();
    return this.idle();
  }

  private logTail(): string {
    try {
      return readFileSync(join(this.dir, 'wireguard-go.log'), 'utf8').trim().split('\n').slice(-3).join(' | ');
    } catch {
      return '(no output)';
    }
  }

  /**
   * Takes over the device a previous agent left: its recorded process still runs (same pid and
   * start time) and answers on the socket. A recorded process that does not answer is ended by
   * its record; a gone one is forgotten.
   */
  private async adoptDevice(): Promise<boolean> {
    const { options: o, log } = this.ctx;
    const rec = readRecord(o.dataDir);
    if (!rec) return false;
    if (!isRunning(rec)) {
      log.info({ pid: rec.pid }, 'the recorded wireguard-go is gone; starting a new device');
      return false;
    }
    try {
      await uapiRequest(this.socketPath, 'get=1\n\n', 2000);
    } catch (e) {
      log.warn({ pid: rec.pid, err: e instanceof Error ? e.message : String(e) }, 'the recorded wireguard-go does not answer on its socket; ending it and starting a new device');
      await killRecorded(rec);
      return false;
    }
    this.device = rec;
    this.adopted = true;
    log.info({ device: WIREGUARD_DEVICE, pid: rec.pid, socket: this.socketPath }, 'WireGuard device adopted (left running by the previous agent)');
    return true;
  }

  /**
   * Starts wireguard-go in the foreground in the node's namespace, in a private mount namespace
   * whose /var/run/wireguard is this node's run directory, detached from the agent (own session,
   * output to a file: a pipe would kill it with SIGPIPE once the agent is gone), and records its
   * pid and start time (nsenter, unshare and sh exec into it, so the pid is wireguard-go's).
   * Resolves once the device answers on its socket.
   */
  private async startDevice(): Promise<void> {
    const { options: o, log } = this.ctx;
    const runDir = runDirOf(o.dataDir);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    rmSync(this.socketPath, { force: true });
    const script = 'mkdir -p /var/run/wireguard && mount --bind "$1" /var/run/wireguard && exec "$2" -f "$3"';
    const argv = [
      ...(o.nodeNetns !== undefined ? ['nsenter', `--net=${netnsPath(o.nodeNetns)}`] : []),
      'unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', runDir, o.wireGuardGo, WIREGUARD_DEVICE,
    ];
    const [cmd, ...args] = argv as [string, ...string[]];
    const out = openSync(join(this.dir, 'wireguard-go.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, LOG_LEVEL: 'error', WG_PROCESS_FOREGROUND: '1' } });
    } finally {
      closeSync(out);
    }
    child.unref();
    this.child = child;
    let spawnError: string | undefined;
    child.on('exit', (code, signal) => {
      this.childExit = { code, signal };
      if (!this.stopping) log.error({ code, signal, output: this.logTail() }, 'wireguard-go exited: inter-node pod traffic stops until the agent restarts');
    });
    child.on('error', (e) => {
      spawnError = e.message;
      this.childExit = { code: null, signal: null };
    });
    const start = child.pid !== undefined ? processStartTime(child.pid) : undefined;
    if (child.pid !== undefined && start !== undefined) {
      this.device = { pid: child.pid, start };
      writeFileAtomic.sync(recordFile(o.dataDir), `${JSON.stringify(this.device)}\n`, { mode: 0o600 });
    }
    const deadline = Date.now() + DEVICE_READY_MS;
    for (;;) {
      if (this.childExit) throw new AgentError('WIREGUARD', `wireguard-go exited before its device was ready: ${spawnError ?? this.logTail()}`, argv, 'wireGuard');
      if (existsSync(this.socketPath)) {
        try {
          await uapiRequest(this.socketPath, 'get=1\n\n', 1000);
          break;
        } catch {
          // not listening yet
        }
      }
      if (Date.now() > deadline) throw new AgentError('WIREGUARD', `${WIREGUARD_DEVICE} did not answer on ${this.socketPath} within ${DEVICE_READY_MS} ms`, argv, 'wireGuard');
      await new Promise((r) => setTimeout(r, 50));
    }
    log.info({ device: WIREGUARD_DEVICE, pid: child.pid, socket: this.socketPath }, 'WireGuard device up (wireguard-go, detached)');
  }

  private async publish(): Promise<void> {
    const o = this.ctx.options;
    await this.kube.request('PATCH', `/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { metadata: { annotations: { [WIREGUARD_PUBLIC_KEY_ANNOTATION]: this.publicKey } } }, 'application/merge-patch+json');
    this.ctx.log.info({ node: o.nodeName, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION, publicKey: this.publicKey }, 'WireGuard public key published');
  }

  /**
   * Key rotation triggers: the key file's directory is watched (removing or replacing the file
   * asks for a check at once), and with a rotation period a timer on the agent's clock checks
   * again when the key comes of age.
   */
  private watchKey(): void {
    try {
      this.keyWatcher = watch(this.dir, (_event, file) => {
        if (file === KEY_FILE) this.requestKeyCheck();
      });
      this.keyWatcher.on('error', (e) => this.ctx.log.warn({ err: e.message, dir: this.dir }, 'WireGuard key directory watch failed; the rotation period still applies'));
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e), dir: this.dir }, 'WireGuard key directory not watched; the rotation period still applies');
    }
    this.requestKeyCheck();
  }

  private requestKeyCheck(): void {
    if (this.stopping) return;
    this.keyCheckDue = true;
    this.kick();
  }

  private armKeyTimer(ms: number): void {
    this.keyTimer?.cancel();
    if (this.stopping) return;
    this.keyTimer = this.clock.setTimeout(() => this.requestKeyCheck(), ms);
  }

  /** Applies the rotation decision for the key file as it is now. */
  private async rotateIfDue(): Promise<void> {
    const { options: o, log } = this.ctx;
    const period = o.wireGuardKeyRotationMs;
    const d = keyRotationDecision({ file: readKeyFile(this.keyFile), current: this.privateKey, nowMs: this.clock.now(), ...(period !== undefined ? { periodMs: period } : {}) });
    if (d.action === 'keep') {
      this.keyProblem = undefined;
      if (d.nextCheckInMs !== undefined) this.armKeyTimer(d.nextCheckInMs);
      return;
    }
    if (d.action === 'refuse') {
      if (this.keyProblem === undefined) log.error({ file: this.keyFile }, `WireGuard key file ${this.keyFile}: ${d.reason}; the device keeps its key`);
      this.keyProblem = d.reason;
      return;
    }
    this.keyProblem = undefined;
    let next: string;
    if (d.action === 'generate') {
      next = generatePrivateKey();
      // On disk first: an agent that dies from here on comes back with the new key.
      writePrivateKey(this.keyFile, next, this.clock.now());
    } else next = d.privateKey;
    const previous = this.publicKey;
    // The device drops its sessions (they were made with the old key); each peer handshakes
    // again once it has the new public key from the Node.
    const set = uapiSetInterface(next, o.wireGuardPort, { listenPort: o.wireGuardPort });
    if (set) await uapiRequest(this.socketPath, set);
    this.privateKey = next;
    this.publicKey = publicKeyOf(next);
    this.rotations++;
    await this.publish();
    log.info({ previous, publicKey: this.publicKey, reason: d.reason }, `WireGuard key rotated: ${d.reason}`);
    this.dirty = true; // this node's own key is part of the peer checks
    if (period !== undefined) this.armKeyTimer(period);
  }

  private onNode(f: WireGuardNodeFacts): void {
    this.nodes.set(f.name, f);
    this.schedule();
  }

  private schedule(): void {
    this.dirty = true;
    this.kick();
  }

  private kick(): void {
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** One at a time: key changes and peer changes both talk to the device. */
  private async loop(): Promise<void> {
    while (this.dirty || this.keyCheckDue) {
      if (this.keyCheckDue) {
        this.keyCheckDue = false;
        try {
          await this.rotateIfDue();
        } catch (e) {
          this.lastError = e;
          this.ctx.log.error({ err: e }, 'WireGuard key check failed');
        }
        continue;
      }
      this.dirty = false;
      try {
        await this.apply();
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e;
        this.ctx.log.error({ err: e }, 'WireGuard peers not applied');
      }
    }
  }

  private async apply(): Promise<void> {
    const { options: o, log } = this.ctx;
    const self = { name: o.nodeName, ...(this.publicKey !== undefined ? { publicKey: this.publicKey } : {}) };
    const { peers, skipped } = wireGuardPeersOf([...this.nodes.values()], self, o.wireGuardPort);
    for (const s of skipped) {
      const k = `${s.node}\0${s.value}`;
      if (!this.warned.has(k)) log.warn({ node: s.node, value: s.value, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION }, `WireGuard peer skipped: Node ${s.node} annotation ${WIREGUARD_PUBLIC_KEY_ANNOTATION}=${JSON.stringify(s.value)}: ${s.reason}`);
      this.warned.add(k);
    }
    this.skipped = skipped;
    if (JSON.stringify(peers) === JSON.stringify(this.peers) && this.lastError === undefined) return;
    const current = parseUapiGet(await uapiRequest(this.socketPath, 'get=1\n\n')).peers;
    const set = uapiSetPeers(peers, current);
    if (set) await uapiRequest(this.socketPath, set);
    this.peers = peers;
    log.info({ peers: peers.map((p) => `${p.node}@${p.endpoint} ${p.allowedIPs.join(',')}`), changed: set !== undefined }, set ? 'WireGuard peers set' : 'WireGuard peers already as wanted');
  }
}
