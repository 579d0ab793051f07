/**
 * Dataplane verdicts without sending a packet, pure part: building `ovs-appctl ofproto/trace`
 * flows for a pod-to-pod first packet and reading the trace's output (which OpenFlow ports the
 * bridge decided to output to, or whether every pass ended in a drop). The lab uses it for SCTP,
 * which this kernel cannot carry (no sctp module), so probes are impossible.
 */

/** A trace that cannot be read as a verdict. */
export class TraceError extends Error {
  constructor(
    readonly code: 'UNREADABLE_TRACE' | 'TRACE_FAILED' | 'NO_POD_INTERFACE' | 'NO_NODE_PORT',
    message: string,
    /** The offending value (the trace text, the pod or port name). */
    readonly value?: unknown,
  ) {
    super(message);
    this.name = 'TraceError';
  }
}

/** One pass of the trace: the first, and one per recirculation (ct() with table=). */
export interface TracePass {
  /** Fields of the pass's `Flow:` line (`key=value`; bare words like `sctp` map to ''). */
  flow: Record<string, string>;
  /** Fields of the pass's `Final flow:` line; equals `flow` when the trace says `unchanged`. */
  finalFlow: Record<string, string>;
  /** OpenFlow ports the bridge output to in this pass (`output:N`, `-> output port is N`). */
  outputs: number[];
  /** The pass's `Datapath actions:` text. */
  datapathActions: string;
  /** Table of the last `drop` action the pipeline executed in this pass, if any. */
  dropTable?: number;
}

/** What a whole trace says. */
export interface TraceResult {
  passes: TracePass[];
  /** Every OpenFlow output port over all passes, in order. */
  outputs: number[];
  /**
   * True when the packet went nowhere: no pass output to any port and the last pass's datapath
   * actions are `drop` with no recirculation left.
   */
  dropped: boolean;
}

/** Splits a `Flow:` line's body into fields (`sctp,in_port=4,dl_src=...`). */
export function parseFlowFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf('=');
    if (eq < 0) out[p] = '';
    else out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

/**
 * Reads `ovs-appctl ofproto/trace` output (OVS 3.1 text). Output decisions are taken from the
 * OpenFlow level, not from "Datapath actions": those name datapath port numbers, and a trace of
 * a tunnel output after a ct() recirculation reports "Not tunneling to our own address" because
 * the resumed flow carries the tun_dst set before the ct() as its input tunnel (a trace artifact;
 * real packets leave through the tunnel).
 */
export function parseTrace(text: string): TraceResult {
  const passes: TracePass[] = [];
  let cur: TracePass | undefined;
  let lastTable: number | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const t = line.trim();
    if (line.startsWith('Flow: ')) {
      const flow = parseFlowFields(line.slice('Flow: '.length));
      cur = { flow, finalFlow: flow, outputs: [], datapathActions: '' };
      passes.push(cur);
      lastTable = undefined;
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('Final flow: ')) {
      const body = line.slice('Final flow: '.length);
      cur.finalFlow = body.trim() === 'unchanged' ? cur.flow : parseFlowFields(body);
      continue;
    }
    if (line.startsWith('Datapath actions: ')) {
      cur.datapathActions = line.slice('Datapath actions: '.length).trim();
      continue;
    }
    // A table line: "17. ip,nw_dst=10.10.2.0/24, priority 200, cookie 0x..." (possibly indented under resubmit).
    const tm = /^(\d+)\. /.exec(t);
    if (tm) {
      lastTable = Number(tm[1]);
      continue;
    }
    const direct = /^output:(\d+)$/.exec(t);
    const viaReg = /^-> output port is (\d+)$/.exec(t);
    const m = direct ?? viaReg;
    if (m) cur.outputs.push(Number(m[1]));
    else if (t === 'drop' && lastTable !== undefined) cur.dropTable = lastTable;
  }
  if (passes.length === 0) throw new TraceError('UNREADABLE_TRACE', 'no "Flow:" line in the ofproto/trace output', text);
  const last = passes[passes.length - 1]!;
  if (last.datapathActions === '') throw new TraceError('UNREADABLE_TRACE', 'the last trace pass has no "Datapath actions:" line', text);
  const outputs = passes.flatMap((p) => p.outputs);
  const dropped = outputs.length === 0 && last.datapathActions === 'drop';
  return { passes, outputs, dropped };
}

/** The first packet of an association from one pod to another, as ofproto/trace takes it. */
export interface TracePacket {
  inPort: number;
  ethSrc: string;
  ethDst: string;
  ipSrc: string;
  ipDst: string;
  ttl: number;
  srcPort: number;
  dstPort: number;
  protocol: 'sctp' | 'tcp' | 'udp';
  /** Tunnel metadata of a packet arriving from a tunnel port. */
  tunnel?: { id: string; src: string; dst: string };
}

/** The br_flow argument of ofproto/trace for `p`. */
export function traceFlow(p: TracePacket): string {
  // An IPv6 underlay (the lab's `--ip-family ipv6`): the outer addresses are tun_ipv6_src/dst.
  const tun6 = p.tunnel?.dst.includes(':') === true;
  const tun = p.tunnel ? `,tun_id=${p.tunnel.id},${tun6 ? 'tun_ipv6_src' : 'tun_src'}=${p.tunnel.src},${tun6 ? 'tun_ipv6_dst' : 'tun_dst'}=${p.tunnel.dst}` : '';
  // IPv6: `sctp6`/`tcp6`/`udp6` and ipv6_src/dst; nw_ttl is the hop limit.
  const v6 = p.ipSrc.includes(':');
  const addrs = v6 ? `ipv6_src=${p.ipSrc},ipv6_dst=${p.ipDst}` : `nw_src=${p.ipSrc},nw_dst=${p.ipDst}`;
  return `${p.protocol}${v6 ? '6' : ''},in_port=${p.inPort}${tun},dl_src=${p.ethSrc},dl_dst=${p.ethDst},${addrs},nw_ttl=${p.ttl},${p.protocol}_src=${p.srcPort},${p.protocol}_dst=${p.dstPort}`;
}

/**
 * Every ct() with `table=` recirculates; each resumed pass needs a conntrack state. A first
 * packet sees `trk,new` every time (ConntrackZone, then the commit in a policy rule or in
 * ConntrackCommit). More than the pipeline uses is harmless: unused ones are ignored.
 */
export const CT_NEXT_PASSES = 4;

/** argv (after `ovs-appctl -t <ctl>`) of one trace of `p` on `bridge`. */
export function traceArgv(bridge: string, p: TracePacket): string[] {
  const argv = ['ofproto/trace', bridge, traceFlow(p)];
  for (let i = 0; i < CT_NEXT_PASSES; i++) argv.push('--ct-next', 'trk,new');
  return argv;
}

/**
 * The packet as it arrives at the peer node's tunnel port, from the sender's trace: the last
 * pass's final flow (after the L3Forwarding rewrite: gateway MAC source, global virtual MAC
 * destination, tun_dst or tun_ipv6_dst, TTL decremented); the outer source is the sender's node IP.
 */
export function arrivingFromTunnel(sent: TraceResult, sender: { nodeIP: string }, at: { tunnelOfport: number }, original: TracePacket): TracePacket {
  const f = sent.passes[sent.passes.length - 1]!.finalFlow;
  const need = (k: string): string => {
    const v = f[k];
    if (v === undefined || v === '') throw new TraceError('UNREADABLE_TRACE', `the sender's final flow has no ${k}`, f);
    return v;
  };
  return {
    ...original,
    inPort: at.tunnelOfport,
    ethSrc: need('dl_src'),
    ethDst: need('dl_dst'),
    ttl: Number(need('nw_ttl')),
    // tun_ipv6_dst on an IPv6 underlay (the sender's node IP is IPv6 then).
    tunnel: { id: f.tun_id ?? '0', src: sender.nodeIP, dst: sender.nodeIP.includes(':') ? need('tun_ipv6_dst') : need('tun_dst') },
  };
}

/**
 * The packet as the peer node's host routes it into its bridge through the gateway port (paths
 * through the host: noEncap, hybrid inside a fabric subnet): source MAC = that gateway's, the
 * destination = the pod's (the host resolved it), TTL one less than it left the sender's bridge
 * for each host on the way (the sender's host and the peer's).
 */
export function arrivingFromGateway(sent: TraceResult, at: { gatewayOfport: number; gatewayMac: string; podMac: string }, original: TracePacket): TracePacket {
  const ttl = Number(sent.passes[sent.passes.length - 1]!.finalFlow.nw_ttl ?? original.ttl);
  return { ...original, inPort: at.gatewayOfport, ethSrc: at.gatewayMac, ethDst: at.podMac, ttl: ttl - 2 };
}

/** Which way a judged cell went: the verdict and the traces it rests on (for reports). */
export interface TraceVerdict {
  allowed: boolean | null;
  /** Why the traces could not judge the cell (`allowed` is null then). */
  unavailable?: string;
  /** Nodes traced, in order (sender, then receiver for inter-node cells). */
  nodes: string[];
  /** Table of the drop when blocked. */
  dropTable?: number;
}

/**
 * Verdict of one trace toward `wantPort`: allowed when the bridge output to it, blocked when the
 * packet was dropped everywhere, otherwise not judgeable (output somewhere unexpected).
 */
export function verdictOf(r: TraceResult, wantPort: number): { allowed: boolean | null; dropTable?: number; unexpected?: number[] } {
  if (r.outputs.includes(wantPort)) return { allowed: true };
  if (r.dropped) {
    const dt = [...r.passes].reverse().find((p) => p.dropTable !== undefined)?.dropTable;
    return { allowed: false, ...(dt !== undefined ? { dropTable: dt } : {}) };
  }
  return { allowed: null, unexpected: r.outputs };
}
