/**
 * The agent's side of switchyard-netns (native/switchyard-netns.c): one long-lived child that
 * enters network namespaces for the agent (setns is per thread and Node.js has no binding for it),
 * so a pod's setup is one line on a pipe instead of an nsenter/sh/ip/ethtool chain of processes.
 * The child is started on first use, started again after it exits, and holds the agent's event
 * loop open only while a request is pending.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { AgentError } from '../errors';
import { NetlinkError } from './rtnetlink';

/** The helper's file name beside the agent's program (dist/ of this package once built). */
export const NETNS_HELPER_NAME = 'switchyard-netns';

/** The helper beside the running program (`dist/agent-cli.js` -> `dist/switchyard-netns`), if it is there. */
export function locateNetnsHelper(program = process.argv[1]): string | undefined {
  if (!program) return undefined;
  const p = join(dirname(program), NETNS_HELPER_NAME);
  return existsSync(p) ? p : undefined;
}

/** What {@link NetnsHelper.podLink} sets up (values already validated by the caller). */
export interface PodLinkRequest {
  /** The node namespace's path; undefined: the helper's own (the agent's). */
  nodeNetns: string | undefined;
  hostIfName: string;
  podNetns: string;
  ifname: string;
  /** The IPv4 address, prefix length and default gateway; absent for an IPv6-only pod (then `ipv6` is required). */
  ip: string | undefined;
  prefix: number | undefined;
  gateway: string | undefined;
  txOffloadOff: boolean;
  /** Dual-stack or IPv6-only: the pod's IPv6 address, prefix length and default gateway (IPv6 stays on in the pod). */
  ipv6?: { ip: string; prefix: number; gateway: string };
}

/** {@link NetnsHelper.podVeth}: the pod link request, and the veth pair's MTU and the pod end's MAC. */
export interface PodVethRequest extends PodLinkRequest {
  mtu: number;
  /** `aa:bb:cc:dd:ee:ff`. */
  mac: string;
}

interface Pending {
  resolve: () => void;
  reject: (e: Error) => void;
  /** The host end named in a podveth request: a refused creation answers as a {@link NetlinkError} about it. */
  hostIfName?: string;
}

/** One child and the requests it owes answers to. */
interface Session {
  child: ChildProcess;
  pending: Map<number, Pending>;
  stderr: string;
}

export class NetnsHelper {
  private session: Session | undefined;
  private next = 1;

  constructor(readonly path: string) {}

  /** The host end's sysctls and offload in the node namespace, then the pod end's address, links, route, IPv6 and offload in the pod's. */
  podLink(r: PodLinkRequest): Promise<void> {
    const fields = ['podlink', r.nodeNetns ?? '-', r.hostIfName, r.podNetns, r.ifname, ...v4Fields(r), r.txOffloadOff ? '1' : '0', ...v6Fields(r)];
    for (const f of fields) if (/[\t\n]/.test(f) || f === '') throw new AgentError('INVALID_CONFIG', 'a switchyard-netns field is empty or holds a tab or newline', f);
    return this.request(fields);
  }

  /**
   * Creates the veth pair (the host end up and promiscuous in the node namespace, the pod end in
   * the pod's), then does what {@link podLink} does, the pod end brought up first: its carrier
   * follows the creation within microseconds. A refused creation rejects with a
   * {@link NetlinkError} carrying the kernel's errno, as the agent's own rtnetlink request would.
   */
  podVeth(r: PodVethRequest): Promise<void> {
    const fields = ['podveth', r.nodeNetns ?? '-', r.hostIfName, r.podNetns, r.ifname, ...v4Fields(r), r.txOffloadOff ? '1' : '0', String(r.mtu), r.mac, ...v6Fields(r)];
    for (const f of fields) if (/[\t\n]/.test(f) || f === '') throw new AgentError('INVALID_CONFIG', 'a switchyard-netns field is empty or holds a tab or newline', f);
    return this.request(fields, r.hostIfName);
  }

  /**
   * One unsolicited Neighbor Advertisement for the pod's IPv6 address `ip` from `ifname` in the
   * pod's namespace, to all nodes with Override set (IPv6's gratuitous ARP): neighbours holding a
   * stale entry for a reused address learn the pod's MAC.
   */
  neighborAdvertisement(podNetns: string, ifname: string, ip: string): Promise<void> {
    const fields = ['podna', podNetns, ifname, ip];
    for (const f of fields) if (/[\t\n]/.test(f) || f === '') throw new AgentError('INVALID_CONFIG', 'a switchyard-netns field is empty or holds a tab or newline', f);
    return this.request(fields);
  }

  /**
   * One unsolicited Neighbor Advertisement for `ip`, an address the node answers for by proxy NDP
   * (a Service external IP, not an address of its own), from `dev` in the node namespace (its path;
   * undefined: the helper's own): `dev`'s MAC, Override set, to all nodes, from an address of `dev`
   * the kernel chooses.
   */
  nodeNeighborAdvertisement(nodeNetns: string | undefined, dev: string, ip: string): Promise<void> {
    const fields = ['nodena', nodeNetns ?? '-', dev, ip];
    for (const f of fields) if (/[\t\n]/.test(f) || f === '') throw new AgentError('INVALID_CONFIG', 'a switchyard-netns field is empty or holds a tab or newline', f);
    return this.request(fields);
  }

  /** Ends the child (by its handle); its pending requests fail. */
  close(): void {
    const s = this.session;
    this.session = undefined;
    if (!s) return;
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
    this.failAll(s, 'closed');
  }

  private request(fields: string[], hostIfName?: string): Promise<void> {
    const s = this.started();
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      s.pending.set(id, { resolve, reject, ...(hostIfName !== undefined ? { hostIfName } : {}) });
      hold(s.child, true);
      s.child.stdin!.write(`${id}\t${fields.join('\t')}\n`);
    });
  }

  private started(): Session {
    if (this.session) return this.session;
    const child = spawn(this.path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const s: Session = { child, pending: new Map(), stderr: '' };
    this.session = s;
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (s.stderr = (s.stderr + d).slice(-500)));
    child.on('error', (e) => this.lost(s, e.message));
    child.on('exit', (code, signal) => this.lost(s, `exited (${signal ?? `code ${String(code)}`})${s.stderr ? `: ${s.stderr.trim()}` : ''}`));
    // A write to a child that just died: the exit handler fails the request.
    child.stdin!.on('error', () => undefined);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [id, status, ...why] = line.split('\t');
      const p = s.pending.get(Number(id));
      if (!p) return;
      s.pending.delete(Number(id));
      if (s.pending.size === 0) hold(child, false);
      if (status === 'ok') p.resolve();
      else if (status === 'nlerr') p.reject(new NetlinkError(why[0] ?? 'EIO', 'RTM_NEWLINK veth', p.hostIfName, { cause: new Error(`switchyard-netns: ${why.slice(1).join(' ')}`) }));
      else p.reject(new AgentError('EXEC_FAILED', `switchyard-netns: ${why.join(' ')}`, this.path));
    });
    hold(child, false);
    return s;
  }

  private lost(s: Session, why: string): void {
    if (this.session === s) this.session = undefined;
    this.failAll(s, why);
  }

  private failAll(s: Session, why: string): void {
    const all = [...s.pending.values()];
    s.pending.clear();
    for (const p of all) p.reject(new AgentError('EXEC_FAILED', `switchyard-netns ${why}`, this.path));
  }
}

/** ADDRESS PREFIX GATEWAY, or `-` three times for an IPv6-only pod (whose IPv6 fields must follow). */
function v4Fields(r: PodLinkRequest): string[] {
  if (r.ip !== undefined && r.prefix !== undefined && r.gateway !== undefined) return [r.ip, String(r.prefix), r.gateway];
  if (!r.ipv6) throw new AgentError('INVALID_CONFIG', 'a switchyard-netns pod request needs an IPv4 or an IPv6 address', r.podNetns, 'ip');
  return ['-', '-', '-'];
}

/** The optional trailing fields of a dual-stack or IPv6-only pod: ADDRESS6 PREFIX6 GATEWAY6. */
function v6Fields(r: PodLinkRequest): string[] {
  return r.ipv6 ? [r.ipv6.ip, String(r.ipv6.prefix), r.ipv6.gateway] : [];
}

/** A child and its pipes keep the event loop alive only while a request waits for its answer. */
function hold(c: ChildProcess, on: boolean): void {
  const items = [c, c.stdin, c.stdout, c.stderr] as unknown as ({ ref?: () => void; unref?: () => void } | null)[];
  for (const x of items) (on ? x?.ref : x?.unref)?.call(x);
}
