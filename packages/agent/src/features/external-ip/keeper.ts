/**
 * The proxy-ARP keeper: a tiny `sh` the agent starts in the node's namespace that is told, over its
 * stdin, every external IP before the agent answers for it and after it stops. When the agent dies
 * (SIGKILL, a crash, OOM) the kernel closes the pipe, the keeper's `read` sees end of file, and it
 * deletes the proxy neighbour of every IP it still holds, then exits: the node stops answering ARP
 * (and, for IPv6 IPs, Neighbor Solicitations) within milliseconds, long before the agent's member Lease runs out on the other nodes' clocks.
 *
 * A shell and not a second Node process: it costs 1.6 MiB resident (dash) and no start-up time,
 * and it has nothing to do but wait. It runs in its own process group and ignores SIGINT and SIGHUP, so a
 * signal meant for the agent's group (a terminal's Ctrl-C, a supervisor killing the group) does
 * not take it down before the agent's pipe closes. If the keeper itself exits while the agent
 * runs, the agent starts another and tells it every IP held again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '@switchyard/runtime';
import { check, NAME_RE } from '../../host-network/checks';
import { netnsPath } from '../../netops';
import { externalIPFamily } from './ownership';

/**
 * `$1` is the transport device. Lines on stdin: `+ <ip>` (held), `- <ip>` (no longer held). At end
 * of input, every IP still held loses its proxy entry (`ip neigh del proxy` takes either family). The
 * IPs were checked by the agent (IPv4, or IPv6 in RFC 5952 form: no space or shell pattern in either).
 */
export const KEEPER_SH = `trap '' INT HUP
held=' '
while read -r op ip; do
  case "$op" in
    +) case "$held" in *" $ip "*) ;; *) held="$held$ip " ;; esac ;;
    -) n=' '; for x in $held; do [ "$x" = "$ip" ] || n="$n$x "; done; held="$n" ;;
  esac
done
for ip in $held; do ip neigh del proxy "$ip" dev "$1" 2>/dev/null; done
exit 0`;

export interface ProxyArpKeeperOptions {
  /** The transport device the proxy entries are on. */
  dev: string;
  /** The node's netns (name or path); undefined: the agent's own namespace (a real node). */
  nodeNetns: string | undefined;
  logger: Logger;
  /** How the keeper is started (tests); default `spawn`. */
  spawnKeeper?: (argv: readonly string[]) => ChildProcess;
}

const defaultSpawn = (argv: readonly string[]): ChildProcess =>
  spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], detached: true });

/** The agent's end of the keeper: {@link hold} before answering for an IP, {@link drop} after. */
export class ProxyArpKeeper {
  private child: ChildProcess | undefined;
  private readonly held = new Set<string>();
  private closed = false;
  /** How many times a keeper exited while the agent ran (its health). */
  restarts = 0;

  constructor(private readonly o: ProxyArpKeeperOptions) {
    check(NAME_RE, o.dev, 'transport interface');
  }

  /** The command line: `sh` in the node namespace (through nsenter in the lab). */
  get argv(): string[] {
    const prefix = this.o.nodeNetns === undefined ? [] : ['nsenter', `--net=${netnsPath(this.o.nodeNetns)}`];
    return [...prefix, 'sh', '-c', KEEPER_SH, 'switchyard-proxy-arp-keeper', this.o.dev];
  }

  /** The keeper's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The IPs the keeper would release if the agent died now. */
  get holding(): string[] {
    return [...this.held].sort();
  }

  private start(): ChildProcess {
    const child = (this.o.spawnKeeper ?? defaultSpawn)(this.argv);
    // It must not keep the agent's event loop alive, nor die with a write after its exit.
    child.unref();
    child.stdin?.on('error', () => undefined);
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.on('error', (err) => this.o.logger.error({ err }, 'proxy ARP keeper could not be started: a crash of this agent would leave its external IPs answered'));
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.closed) return;
      this.restarts++;
      this.o.logger.warn({ code, signal, held: this.holding }, 'proxy ARP keeper exited while the agent runs: starting another');
      // A killed keeper released nothing: the proxy entries are still there, and the new keeper is told every IP held.
      if (this.held.size > 0) void this.send([...this.held].map((ip) => `+ ${ip}`)).catch(() => undefined);
    });
    this.child = child;
    return child;
  }

  private send(lines: readonly string[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    const child = this.child ?? this.start();
    const stdin = child.stdin;
    if (!stdin) return Promise.reject(new Error('proxy ARP keeper has no stdin'));
    // Resolved once the line is in the pipe: from then on the kernel delivers it even if the agent dies.
    return new Promise((resolve, reject) => stdin.write(`${lines.join('\n')}\n`, (err) => (err ? reject(err) : resolve())));
  }

  /** Tells the keeper `ip` is answered here (call before adding the proxy entry). */
  async hold(ip: string): Promise<void> {
    check((v) => externalIPFamily(v) !== undefined, ip, 'external IP');
    this.held.add(ip);
    await this.send([`+ ${ip}`]);
  }

  /** Tells the keeper `ip` is no longer answered here (call after removing the proxy entry). */
  async drop(ip: string): Promise<void> {
    if (!this.held.delete(ip)) return;
    await this.send([`- ${ip}`]);
  }

  /**
   * Ends the keeper: it releases what it still holds (nothing after a graceful stop, which released
   * every IP first) and exits. Resolves once it has.
   */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    await exited;
  }
}
