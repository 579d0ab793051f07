/**
 * Dataplane verdicts by `ovs-appctl ofproto/trace` on the lab's node bridges, for cells that
 * cannot be probed (SCTP: this kernel has no sctp module). No packet is sent: the first packet of
 * the association is traced through the installed OpenFlow tables of the sender's node, and for a
 * peer on another node, as it arrives from the tunnel on the receiver's node.
 */
import { Cidr, parseIp } from '@switchyard/ipam/cidr';
import { JsonRpcPeer, RpcError, openStream } from '@switchyard/ovsdb';
import { run } from '@switchyard/testbed';
import type { LabNodeState } from './lab';
import { agentGet } from './probe';
import { TraceError, arrivingFromGateway, arrivingFromTunnel, parseTrace, traceArgv, verdictOf, type TracePacket, type TraceResult, type TraceVerdict } from './trace';
import type { IpFamily } from './scenario';

/** The pipeline's bridge, tunnel port and gateway interface as the lab's agents configure them. */
const BRIDGE = 'br-int';
const TUNNEL_PORT = 'antrea-tun0';
const GATEWAY_PORT = 'sy-gw0';
/** Source port of a traced association when the cell names none (any ephemeral port does). */
const EPHEMERAL_PORT = 40000;

/** A pod's attachment on its node (from the agent's `/podinterfaces`). */
export interface TracedPod {
  ref: string;
  node: string;
  ip: string;
  mac: string;
  ofport: number;
  /** The pod's gateway address (its next hop off its subnet). */
  gateway: string;
  prefixLength: number;
  /** A dual-stack pod's IPv6 address and prefix length (an IPv6-only pod's one address is `ip`). */
  ipv6?: { ip: string; prefixLength: number };
}

/** Per node: the ports a trace needs. */
interface NodePorts {
  node: LabNodeState;
  tunnelOfport: number | undefined;
  gateway: { ofport: number; mac: string };
}

/** What the traces of one step read: nodes' ports and pods' attachments. */
export interface TraceTopology {
  nodes: Map<string, NodePorts>;
  pods: Map<string, TracedPod>;
}

interface PodInterfaceJson {
  podName: string;
  podNamespace: string;
  ipCidr: string;
  gateway: string;
  ipv6?: { ipCidr: string; gateway: string };
  mac: string;
  ofport: number;
}

/** OVSDB Interface rows (name -> ofport, mac_in_use) of a node. */
async function interfaces(dbRemote: string): Promise<Map<string, { ofport: number; mac: string }>> {
  const r = await run(['ovs-vsctl', `--db=${dbRemote}`, '--timeout=20', '--format=json', '--columns=name,ofport,mac_in_use', 'list', 'Interface']);
  const j = JSON.parse(r.stdout) as { data: [string, number | unknown, string | unknown][] };
  return new Map(j.data.map(([name, ofport, mac]) => [name, { ofport: typeof ofport === 'number' ? ofport : -1, mac: typeof mac === 'string' ? mac : '' }]));
}

/**
 * Judges cells on a lab's node bridges with ofproto/trace. The traces go over one unixctl session
 * per node (JSON-RPC 1.0 on the vswitchd control socket, what `ovs-appctl` speaks), pipelined, so a
 * trace costs a request instead of an `ovs-appctl` process; `close()` ends the sessions.
 */
export class DataplaneTracer {
  private readonly sessions = new Map<string, Promise<JsonRpcPeer>>();

  constructor(private readonly nodes: LabNodeState[]) {}

  /** Ends the unixctl sessions (a later trace opens them again). */
  close(): void {
    for (const s of this.sessions.values()) void s.then((peer) => peer.close(), () => undefined);
    this.sessions.clear();
  }

  /** The node's unixctl session, opened on first use and opened again after it closed. */
  private async session(n: LabNodeState): Promise<JsonRpcPeer> {
    let s = this.sessions.get(n.name);
    if (s) {
      const peer = await s.catch(() => undefined);
      if (peer && !peer.isClosed) return peer;
    }
    s = openStream({ kind: 'unix', path: n.vswitchdCtl }).then((stream) => new JsonRpcPeer(stream));
    this.sessions.set(n.name, s);
    return s;
  }

  /** Reads every node's tunnel and gateway ports and every pod's attachment (once per step). */
  async topology(): Promise<TraceTopology> {
    const nodes = new Map<string, NodePorts>();
    const pods = new Map<string, TracedPod>();
    await Promise.all(
      this.nodes.map(async (n) => {
        const [ifs, list] = await Promise.all([interfaces(n.dbRemote), agentGet<PodInterfaceJson[]>(n.apiSocket, '/podinterfaces')]);
        const gw = ifs.get(GATEWAY_PORT);
        if (!gw || gw.ofport < 0 || !gw.mac) throw new TraceError('NO_NODE_PORT', `${n.name}: no ${GATEWAY_PORT} with an ofport and a MAC in OVSDB`, GATEWAY_PORT);
        const tun = ifs.get(TUNNEL_PORT);
        nodes.set(n.name, { node: n, tunnelOfport: tun && tun.ofport >= 0 ? tun.ofport : undefined, gateway: gw });
        for (const p of list) {
          const [ip, len] = p.ipCidr.split('/') as [string, string];
          const ref = `${p.podNamespace}/${p.podName}`;
          const v6 = p.ipv6?.ipCidr.split('/');
          pods.set(ref, { ref, node: n.name, ip, mac: p.mac, ofport: p.ofport, gateway: p.gateway, prefixLength: Number(len), ...(v6 ? { ipv6: { ip: v6[0]!, prefixLength: Number(v6[1]) } } : {}) });
        }
      }),
    );
    return { nodes, pods };
  }

  /** The text of one ofproto/trace of `p` on `n`'s bridge (the fixtures of the parser's tests come from here). */
  async traceText(n: LabNodeState, p: TracePacket): Promise<string> {
    const [method, ...params] = traceArgv(BRIDGE, p) as [string, ...string[]];
    try {
      return await (await this.session(n)).request<string>(method, params, { timeoutMs: 20_000 });
    } catch (e) {
      const why = e instanceof RpcError && typeof e.error === 'string' ? e.error : (e as Error).message;
      throw new TraceError('TRACE_FAILED', `${n.name}: ofproto/trace failed: ${why.trim()}`, p);
    }
  }

  private async trace(n: LabNodeState, p: TracePacket): Promise<TraceResult> {
    return parseTrace(await this.traceText(n, p));
  }

  /**
   * The first packet from pod `from` to pod `to` as it leaves `from` (in_port, MACs, addresses,
   * ports), or a reason when a pod is not attached. A pod sends straight to a peer of its subnet
   * on the same node, else to its gateway's MAC.
   */
  packetOf(topo: TraceTopology, from: string, to: string, protocol: 'SCTP' | 'TCP' | 'UDP', port: number, sourcePort?: number, family?: IpFamily): { a: TracedPod; b: TracedPod; pkt: TracePacket } | string {
    const a = topo.pods.get(from);
    const b = topo.pods.get(to);
    if (!a || !b) return `trace: no pod interface for ${!a ? from : to} on any node`;
    const na = topo.nodes.get(a.node)!;
    // The addresses of the family traced: `ip` is IPv4 on a dual-stack node, the one address otherwise.
    const addr = (p: TracedPod): { ip: string; prefixLength: number } | undefined =>
      family === undefined || (family === 'IPv6') === p.ip.includes(':') ? p : family === 'IPv6' ? p.ipv6 : undefined;
    const sa = addr(a);
    const sb = addr(b);
    if (!sa || !sb) return `trace: no ${family} address for ${!sa ? from : to}`;
    const direct = a.node === b.node && Cidr.of(parseIp(sa.ip), sa.prefixLength).contains(parseIp(sb.ip));
    const pkt: TracePacket = {
      protocol: protocol.toLowerCase() as TracePacket['protocol'],
      inPort: a.ofport,
      ethSrc: a.mac,
      ethDst: direct ? b.mac : na.gateway.mac,
      ipSrc: sa.ip,
      ipDst: sb.ip,
      ttl: 64,
      srcPort: sourcePort ?? EPHEMERAL_PORT,
      dstPort: port,
    };
    return { a, b, pkt };
  }

  /**
   * The verdict for the first packet from pod `from` to pod `to` on `protocol`/`port`: allowed
   * when it reaches `to`'s port (through the tunnel and the peer's pipeline for another node),
   * blocked when a pipeline drops it, `allowed: null` with the reason when the traces cannot say.
   */
  async judge(topo: TraceTopology, from: string, to: string, protocol: 'SCTP' | 'TCP' | 'UDP', port: number, sourcePort?: number, family?: IpFamily): Promise<TraceVerdict> {
    const got0 = this.packetOf(topo, from, to, protocol, port, sourcePort, family);
    if (typeof got0 === 'string') return { allowed: null, unavailable: got0, nodes: [] };
    const { a, b, pkt } = got0;
    const na = topo.nodes.get(a.node)!;
    const nb = topo.nodes.get(b.node)!;
    try {
      const sent = await this.trace(na.node, pkt);
      if (a.node === b.node) return this.read(sent, b.ofport, [a.node], `${a.node} output`);
      if (sent.dropped) return this.read(sent, -1, [a.node], `${a.node} output`);
      let arriving: TracePacket;
      if (na.tunnelOfport !== undefined && nb.tunnelOfport !== undefined && sent.outputs.includes(na.tunnelOfport)) {
        // encap (and hybrid across fabric subnets): Geneve to the peer's tunnel port.
        arriving = arrivingFromTunnel(sent, na.node, { tunnelOfport: nb.tunnelOfport }, pkt);
      } else if (sent.outputs.includes(na.gateway.ofport)) {
        // Routed by the hosts (noEncap, hybrid inside a subnet): in through the peer's gateway.
        arriving = arrivingFromGateway(sent, { gatewayOfport: nb.gateway.ofport, gatewayMac: nb.gateway.mac, podMac: b.mac }, pkt);
      } else {
        return { allowed: null, unavailable: `trace: ${a.node} sent ${from} -> ${to} to port(s) ${sent.outputs.join(',') || 'none'}, neither the tunnel nor the gateway`, nodes: [a.node] };
      }
      const got = await this.trace(nb.node, arriving);
      return this.read(got, b.ofport, [a.node, b.node], `${b.node} output`);
    } catch (e) {
      if (e instanceof TraceError) return { allowed: null, unavailable: `trace: ${e.message}`, nodes: [a.node] };
      throw e;
    }
  }

  private read(r: TraceResult, want: number, nodes: string[], what: string): TraceVerdict {
    const v = verdictOf(r, want);
    if (v.allowed === null) return { allowed: null, unavailable: `trace: ${what} to port(s) ${v.unexpected?.join(',') || 'none'}, not the pod's port ${want}`, nodes };
    return { allowed: v.allowed, nodes, ...(v.dropTable !== undefined ? { dropTable: v.dropTable } : {}) };
  }
}
