// A testbed run: a run-unique name prefix, every resource recorded, everything removed on cleanup.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, start, waitFor, type RunOptions, type RunResult } from './exec';
import { isAlive, pidfileProcess, processRef, removeRecord, signalProcess, writeRecord, type RunRecord } from './registry';
import { cleanupRecord, reapStale } from './reap';
import type { ChildProcess } from 'node:child_process';

/** A network namespace made by the testbed. */
export interface Netns {
  readonly name: string;
  /** Path usable with setns/nsenter and as a CNI_NETNS value. */
  readonly path: string;
  exec(argv: readonly string[], opts?: Omit<RunOptions, 'netns'>): Promise<RunResult>;
}

/** One isolated OVS instance (ovsdb-server + optional ovs-vswitchd, userspace datapath). */
export interface OvsInstance {
  readonly dir: string;
  /** The netns ovs-vswitchd (and its tap devices) live in. */
  readonly netns: Netns;
  /** Path of the OVSDB unix socket. */
  readonly dbSocket: string;
  /** `unix:<dbSocket>`, as ovs-vsctl's --db takes it. */
  readonly dbRemote: string;
  readonly vswitchdCtl: string;
  readonly ovsdbCtl: string;
  /** The OpenFlow management socket of `bridge`. */
  mgmtSocket(bridge: string): string;
  vsctl(...args: string[]): Promise<string>;
  ofctl(...args: string[]): Promise<string>;
  /** ovs-appctl against ovs-vswitchd. */
  appctl(...args: string[]): Promise<string>;
  /** Adds a netdev bridge and waits for its management socket. */
  addBridge(name: string, opts?: { failSecure?: boolean; protocols?: string }): Promise<void>;
  startDb(): Promise<void>;
  stopDb(signal?: NodeJS.Signals): Promise<void>;
  startVswitchd(): Promise<void>;
  stopVswitchd(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

/** A pod: a netns with one veth into an OVS bridge. */
export interface Pod {
  readonly netns: Netns;
  readonly hostIf: string;
  readonly podIf: string;
  /** Address without prefix length. */
  readonly ip: string;
  readonly mac: string;
  readonly ofport: number;
  exec(argv: readonly string[], opts?: Omit<RunOptions, 'netns'>): Promise<RunResult>;
  spawn(argv: readonly string[]): ChildProcess;
}

const VSWITCH_SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

/** Stops the daemon a pidfile names (only if that process was started with this pidfile), SIGKILL after 10 s. */
async function killPidfile(file: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const ref = pidfileProcess(file);
  if (!ref || !signalProcess(ref, signal)) {
    rmSync(file, { force: true });
    return;
  }
  await waitFor(`pid ${ref.pid} to exit`, () => !isAlive(ref.pid, ref.start), { timeoutMs: 10_000 }).catch(() => signalProcess(ref, 'SIGKILL'));
  rmSync(file, { force: true });
}

/** Start and stop of one OVS instance's daemons. */
export interface OvsDaemons {
  startDb(): Promise<void>;
  stopDb(signal?: NodeJS.Signals): Promise<void>;
  startVswitchd(): Promise<void>;
  stopVswitchd(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Both daemons start at niceness -10, as Debian's service (ovs-ctl's `--ovsdb-server-priority` and
 * `--ovs-vswitchd-priority` defaults) starts them: with the userspace datapath, ovs-vswitchd's main
 * thread forwards the packets of every veth port, and on a busy machine (a CI run's parallel lanes)
 * it should not wait behind test workers. Only root may lower a niceness; others start at their own.
 */
const DAEMON_NICE: readonly string[] = process.getuid?.() === 0 ? ['nice', '-n', '-10'] : [];

/**
 * The daemons of the OVS instance in `dir` (its conf.db, sockets, pidfiles and logs) running in
 * netns `netns`, as {@link Testbed.startOvs} starts them. Usable from another process than the
 * one that made the instance (the lab's `restart-ovs`): a daemon is stopped only through its
 * pidfile, and only if the process still carries that `--pidfile=` argument.
 */
export function ovsDaemons(dir: string, netns: string): OvsDaemons {
  const f = (n: string): string => join(dir, n);
  const env = { ...process.env, OVS_RUNDIR: dir, OVS_LOGDIR: dir, OVS_DBDIR: dir };
  const dbSocket = f('db.sock');
  return {
    startDb: async () => {
      await run([...DAEMON_NICE, 'ovsdb-server', `--remote=punix:${dbSocket}`, `--pidfile=${f('ovsdb.pid')}`, '--detach', `--log-file=${f('ovsdb.log')}`, `--unixctl=${f('ovsdb.ctl')}`, f('conf.db')], { netns, env });
      await waitFor('ovsdb socket', () => existsSync(dbSocket));
    },
    stopDb: (signal) => killPidfile(f('ovsdb.pid'), signal),
    startVswitchd: async () => {
      await run([...DAEMON_NICE, 'ovs-vswitchd', `unix:${dbSocket}`, `--pidfile=${f('vswitchd.pid')}`, '--detach', `--log-file=${f('vswitchd.log')}`, `--unixctl=${f('vswitchd.ctl')}`], { netns, env });
    },
    stopVswitchd: (signal) => killPidfile(f('vswitchd.pid'), signal),
  };
}

export interface TestbedOptions {
  /** Directory for OVS instances; defaults to a fresh dir under the OS temp dir. */
  baseDir?: string;
  /** Reap leftovers of dead runs before starting (default true). */
  reap?: boolean;
}

/** A run of the testbed; create one per test suite and call cleanup() in afterAll. */
export class Testbed {
  readonly prefix: string;
  readonly baseDir: string;
  private readonly record: RunRecord;
  private counter = 0;
  private readonly children = new Set<ChildProcess>();
  private readonly instances: OvsInstance[] = [];

  private constructor(prefix: string, baseDir: string) {
    this.prefix = prefix;
    this.baseDir = baseDir;
    this.record = {
      prefix,
      ownerPid: process.pid,
      ownerStart: processRef(process.pid)?.start ?? '',
      pidfiles: [],
      procs: [],
      netns: [],
      links: [],
      dirs: [baseDir],
    };
  }

  static async create(opts: TestbedOptions = {}): Promise<Testbed> {
    if (opts.reap !== false) await reapStale();
    // 'sy' + 4 base-36 chars: short enough that prefix + kind + counter fits IFNAMSIZ (15).
    const prefix = `sy${(randomBytes(4).readUInt32BE() % 36 ** 4).toString(36).padStart(4, '0')}`;
    const baseDir = opts.baseDir ?? join(tmpdir(), `switchyard-testbed-${prefix}`);
    mkdirSync(baseDir, { recursive: true });
    const tb = new Testbed(prefix, baseDir);
    writeRecord(tb.record);
    return tb;
  }

  /** A run-unique name: `<prefix><kind><n>`, at most 15 characters for interface names. */
  name(kind: string): string {
    const n = (this.counter++).toString(36);
    const name = `${this.prefix}${kind}${n}`;
    if (name.length > 15) throw new Error(`testbed name too long for an interface: ${name}`);
    return name;
  }

  /** Records an interface made in the default netns so cleanup (or the reaper) deletes it. */
  trackLink(name: string): void {
    this.record.links.push(name);
    writeRecord(this.record);
  }

  /**
   * Records a running process (pid and start time) so cleanup (or the reaper) kills it, and only
   * it: once it has exited, a process that reuses its pid is left alone.
   */
  trackPid(pid: number): void {
    const ref = processRef(pid);
    if (!ref) return;
    // Drop the entries of processes that have exited (an agent restarted many times, say).
    this.record.procs = [...this.record.procs.filter((p) => isAlive(p.pid, p.start)), ref];
    writeRecord(this.record);
  }

  async createNetns(kind = 'n'): Promise<Netns> {
    const name = this.name(kind);
    this.record.netns.push(name);
    writeRecord(this.record);
    await run(['ip', 'netns', 'add', name]);
    await run(['ip', 'link', 'set', 'lo', 'up'], { netns: name });
    return {
      name,
      path: `/var/run/netns/${name}`,
      exec: (argv, opts) => run(argv, { ...opts, netns: name }),
    };
  }

  /** Starts an isolated OVS instance in its own directory and (by default) its own netns. */
  async startOvs(opts: { netns?: Netns; vswitchd?: boolean } = {}): Promise<OvsInstance> {
    const netns = opts.netns ?? (await this.createNetns('o'));
    const dir = join(this.baseDir, `ovs${this.counter++}`);
    mkdirSync(dir, { recursive: true });
    const f = (n: string) => join(dir, n);
    const dbSocket = f('db.sock');
    const dbRemote = `unix:${dbSocket}`;
    this.record.pidfiles.push(f('ovsdb.pid'), f('vswitchd.pid'));
    writeRecord(this.record);
    const env = { ...process.env, OVS_RUNDIR: dir, OVS_LOGDIR: dir, OVS_DBDIR: dir };
    if (!existsSync(f('conf.db'))) await run(['ovsdb-tool', 'create', f('conf.db'), VSWITCH_SCHEMA]);

    const { startDb, startVswitchd, stopDb, stopVswitchd } = ovsDaemons(dir, netns.name);
    const vsctl = async (...args: string[]) =>
      (await run(['ovs-vsctl', `--db=${dbRemote}`, '--timeout=20', ...args], { env })).stdout;
    await startDb();
    await vsctl('--no-wait', 'init');
    if (opts.vswitchd !== false) await startVswitchd();

    const instance: OvsInstance = {
      dir,
      netns,
      dbSocket,
      dbRemote,
      vswitchdCtl: f('vswitchd.ctl'),
      ovsdbCtl: f('ovsdb.ctl'),
      mgmtSocket: (bridge) => f(`${bridge}.mgmt`),
      vsctl,
      ofctl: async (...args) => (await run(['ovs-ofctl', ...args], { env })).stdout,
      appctl: async (...args) => (await run(['ovs-appctl', '-t', f('vswitchd.ctl'), ...args], { env })).stdout,
      addBridge: async (name, o = {}) => {
        await vsctl(
          'add-br',
          name,
          '--',
          'set',
          'bridge',
          name,
          'datapath_type=netdev',
          `protocols=${o.protocols ?? 'OpenFlow10,OpenFlow13,OpenFlow15'}`,
          ...(o.failSecure ? ['fail_mode=secure'] : []),
        );
        await waitFor(`${name}.mgmt`, () => existsSync(f(`${name}.mgmt`)));
      },
      startDb,
      stopDb,
      startVswitchd,
      stopVswitchd,
      stop: async () => {
        await killPidfile(f('vswitchd.pid'));
        await killPidfile(f('ovsdb.pid'));
      },
    };
    this.instances.push(instance);
    return instance;
  }

  /**
   * Puts a node on an underlay: a veth from the node's netns into `fabric`'s Linux bridge (`br0`,
   * made by the caller), its node end a port of a new OVS bridge `br-phy` that carries `nodeIP`
   * (the userspace datapath sends tunnels from there). The kernel does not answer ARP for the node
   * IP on the veth OVS owns (its MAC would win the peers' neighbour caches, and Geneve sent to it
   * would land in the kernel, not in OVS). Transmit checksum offload is off on both ends. An IPv6
   * `nodeIP` (an IPv6 underlay) is added without duplicate address detection, usable at once.
   */
  async attachUnderlay(ovs: OvsInstance, fabric: Netns, nodeIP: string, prefixLength = 24): Promise<void> {
    const inNode = this.name('u');
    const inFabric = this.name('u');
    this.trackLink(inNode);
    this.trackLink(inFabric);
    await run(['ip', 'link', 'add', inNode, 'type', 'veth', 'peer', 'name', inFabric]);
    await run(['ip', 'link', 'set', inNode, 'netns', ovs.netns.name]);
    await run(['ip', 'link', 'set', inFabric, 'netns', fabric.name]);
    await fabric.exec(['ip', 'link', 'set', inFabric, 'master', 'br0', 'up']);
    await fabric.exec(['ethtool', '-K', inFabric, 'tx', 'off'], { allowFailure: true });
    await ovs.addBridge('br-phy');
    await ovs.vsctl('add-port', 'br-phy', inNode);
    for (const argv of [['sysctl', '-qw', `net.ipv4.conf.${inNode}.arp_ignore=1`], ['ip', 'link', 'set', inNode, 'up'], ['ethtool', '-K', inNode, 'tx', 'off'], ['ip', 'addr', 'add', `${nodeIP}/${prefixLength}`, 'dev', 'br-phy', ...(nodeIP.includes(':') ? ['nodad'] : [])], ['ip', 'link', 'set', 'br-phy', 'up']]) {
      await ovs.netns.exec(argv);
    }
  }

  /**
   * Creates a pod: a netns with `eth0` (address `ipCidr`), whose host end is a port of `bridge`.
   * Transmit checksum offload is turned off on both ends, as the userspace datapath's conntrack needs.
   */
  async addPod(
    ovs: OvsInstance,
    opts: { bridge: string; ipCidr: string; gateway?: string; mac?: string; ofport?: number },
  ): Promise<Pod> {
    const netns = await this.createNetns('p');
    const hostIf = this.name('v');
    const node = ovs.netns.name;
    await run(['ip', 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns.name], {
      netns: node,
    });
    const batch = [
      ...(opts.mac ? [`link set eth0 address ${opts.mac}`] : []),
      `addr add ${opts.ipCidr} dev eth0`,
      'link set eth0 up',
      ...(opts.gateway ? [`route add default via ${opts.gateway} dev eth0`] : []),
    ].join('\n');
    await run(['ip', '-batch', '-'], { netns: netns.name, input: `${batch}\n` });
    await run(['ethtool', '-K', 'eth0', 'tx', 'off'], { netns: netns.name });
    await run(['ip', 'link', 'set', hostIf, 'up'], { netns: node });
    await run(['ethtool', '-K', hostIf, 'tx', 'off'], { netns: node });
    const portArgs = opts.ofport ? ['--', 'set', 'interface', hostIf, `ofport_request=${opts.ofport}`] : [];
    await ovs.vsctl('add-port', opts.bridge, hostIf, ...portArgs);
    const ofport = Number((await ovs.vsctl('get', 'interface', hostIf, 'ofport')).trim());
    const link = (await run(['ip', '-j', 'link', 'show', 'eth0'], { netns: netns.name })).stdout;
    const mac = (JSON.parse(link) as Array<{ address: string }>)[0]?.address ?? '';
    const ip = opts.ipCidr.split('/')[0] ?? opts.ipCidr;
    return {
      netns,
      hostIf,
      podIf: 'eth0',
      ip,
      mac,
      ofport,
      exec: (argv, o) => netns.exec(argv, o),
      spawn: (argv) => this.spawn(argv, netns.name),
    };
  }

  /** Starts a long-running process owned (and killed at cleanup) by this run. */
  spawn(argv: readonly string[], netns?: string): ChildProcess {
    const child = start(argv, netns ? { netns } : {});
    this.children.add(child);
    if (child.pid) this.trackPid(child.pid);
    child.on('exit', () => this.children.delete(child));
    return child;
  }

  /** Removes every process, namespace, interface and directory this run made. */
  async cleanup(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    // All at once: each daemon takes a moment to exit after SIGTERM.
    await Promise.all(this.instances.map((inst) => inst.stop().catch(() => undefined)));
    await cleanupRecord(this.record);
    removeRecord(this.prefix);
  }
}
