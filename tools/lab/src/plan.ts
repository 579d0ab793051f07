/** Pure lab planning: names, addresses and scheduling, kept apart from the I/O so they are unit-tested. */

/** Where a lab keeps its state unless told otherwise. */
export const DEFAULT_LAB_DIR = '/tmp/switchyard-lab';

/** One node of the lab as planned before anything is made. */
export interface NodePlan {
  /** `node1`..`nodeN`, so scenarios can pin pods. */
  name: string;
  /** 1-based index. */
  index: number;
  /** Pod CIDR `10.10.<i>.0/24`; `--ip-family ipv6`: the node's only pod CIDR, `fd00:10:<i>::/64`. */
  podCIDR: string;
  /** `--ip-family dual`: the IPv6 pod CIDR `fd00:10:<i>::/64` (a ULA range), beside the IPv4 one. */
  podCIDRv6?: string;
  /**
   * Underlay address on the node's br-phy, the tunnels' endpoint: `192.168.77.<i>`; with
   * `--ip-family ipv6` the IPv6 one, `fd00:77::<i>` (an IPv6 underlay: the node has no IPv4
   * address, its Node the IPv6 InternalIP alone, and the Geneve tunnels run over IPv6).
   */
  nodeIP: string;
  /**
   * `--ip-family dual` and `ipv6`: the node's IPv6 underlay address `fd00:77::<i>` on br-phy (dual:
   * beside the IPv4 `nodeIP`, the tunnels IPv4; ipv6: `nodeIP` itself); its IPv6 node ports are
   * served there, and noEncap and hybrid route IPv6 pod traffic to it.
   */
  nodeIPv6?: string;
  /**
   * `hybrid` with `nodeIPv6`: the fabric router's IPv6 address in the node's IPv6 subnet
   * (`<prefix>:fe`), the node's route to the other IPv6 subnet. Other modes keep one IPv6 subnet
   * and no such route.
   */
  fabricGatewayV6?: string;
  /** The node's fabric subnet (`<prefix>.0/24`; `--ip-family ipv6`: `fd00:77::/64`), its transport subnet for `hybrid`. */
  subnet: string;
  /** The fabric router's address in that subnet (`<prefix>.254`; `--ip-family ipv6`: `<prefix>::fe`): the route to the other subnet, and the fabric host pods can reach. */
  fabricGateway: string;
  /** Bearer token the node's agent presents to the API server and the controller. */
  token: string;
}

/** Error in the lab's input (bad node count, unknown node). */
export class LabError extends Error {
  constructor(
    readonly code: 'INVALID_NODES' | 'INVALID_MODE' | 'UNKNOWN_NODE' | 'NOT_RUNNING' | 'ALREADY_RUNNING' | 'START_FAILED' | 'NOT_BUILT' | 'CORRUPT_STATE' | 'INVALID_ARGUMENT',
    message: string,
    readonly value?: unknown,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'LabError';
  }
}

/** Underlay subnet of every node (a Linux bridge in the fabric netns), and of the first half in `hybrid`. */
export const FABRIC_PREFIX = '192.168.77';
/** The second underlay subnet (`hybrid`: the second half of the nodes), on the same fabric bridge, routed by the fabric netns. */
export const FABRIC_PREFIX_2 = '192.168.78';
/** Host part of the fabric router's address in each subnet. */
export const FABRIC_GATEWAY_HOST = 254;
/** The IPv6 underlay of a dual-stack lab (`/64`, on the same fabric bridge): node i at `<prefix>:<i>`, the fabric host at `<prefix>:fe`. */
export const FABRIC_PREFIX_V6 = 'fd00:77:';
/** The fabric host's IPv6 address (a dual-stack lab), the IPv6 twin of `<FABRIC_PREFIX>.254`. */
export const FABRIC_HOST_V6 = `${FABRIC_PREFIX_V6}:${FABRIC_GATEWAY_HOST.toString(16)}`;
/** The second IPv6 underlay subnet (`hybrid` with `--ip-family dual|ipv6`: the second half of the nodes, as `FABRIC_PREFIX_2`), routed by the fabric netns. */
export const FABRIC_PREFIX_V6_2 = 'fd00:78:';

/** The agents' `trafficEncapMode` the lab can run. */
export type LabMode = 'encap' | 'noEncap' | 'hybrid';
export const LAB_MODES: readonly LabMode[] = ['encap', 'noEncap', 'hybrid'];

/** Checks a `--mode` value. */
/** The agents' trafficEncryptionMode in the lab (ipsec needs the kernel datapath these machines lack). */
export type LabEncryption = 'none' | 'wireGuard';
export const LAB_ENCRYPTIONS: readonly LabEncryption[] = ['none', 'wireGuard'];

/** Checks `--encryption`. */
export function parseEncryption(v: string): LabEncryption {
  if (!(LAB_ENCRYPTIONS as readonly string[]).includes(v)) throw new LabError('INVALID_MODE', `--encryption must be one of ${LAB_ENCRYPTIONS.join(', ')}, got ${v}`, v, '--encryption');
  return v as LabEncryption;
}

/** `--feature-gates A=true,B=false` (antrea-agent.conf / antrea-controller.conf featureGates). */
export function parseFeatureGates(v: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const item of v.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(true|false)$/.exec(item);
    if (!m) throw new LabError('INVALID_ARGUMENT', `--feature-gates takes Name=true|false pairs separated by commas, got ${JSON.stringify(item)}`, item, '--feature-gates');
    gates[m[1]!] = m[2] === 'true';
  }
  return gates;
}

/**
 * The lab's IP families: `ipv4` (the lab as before), `dual` (every node dual-stack: an IPv4 and an
 * IPv6 pod CIDR) or `ipv6` (every node IPv6-only: an IPv6 pod CIDR alone, IPv6 Services). dual adds
 * an IPv6 underlay address per node beside the IPv4 one (the tunnels stay IPv4; noEncap and hybrid
 * route IPv6 on it); ipv6 gives each node the IPv6 underlay address alone (no IPv4 address on the
 * underlay, the Geneve tunnels and WireGuard over IPv6).
 */
export type LabIpFamily = 'ipv4' | 'dual' | 'ipv6';
export const LAB_IP_FAMILIES: readonly LabIpFamily[] = ['ipv4', 'dual', 'ipv6'];

/** Checks `--ip-family`. */
export function parseIpFamily(v: string): LabIpFamily {
  if (!(LAB_IP_FAMILIES as readonly string[]).includes(v)) throw new LabError('INVALID_ARGUMENT', `--ip-family must be one of ${LAB_IP_FAMILIES.join(', ')}, got ${v}`, v, '--ip-family');
  return v as LabIpFamily;
}

/** The Service ClusterIP range of a dual-stack lab: the API server's default IPv4 range, then an IPv6 /108 (the longest kube-apiserver takes). */
export const DUAL_SERVICE_CIDR = '10.96.0.0/12,fd00:10:96::/108';
/** The Service ClusterIP range of an IPv6-only lab: the dual-stack lab's IPv6 range alone (Services default to IPv6; IPv4 is refused). */
export const IPV6_SERVICE_CIDR = 'fd00:10:96::/108';

/** The API server's `serviceCIDR` for a lab of `ipFamily` (undefined: its default, IPv4). */
export function serviceCIDROf(ipFamily: LabIpFamily): string | undefined {
  return ipFamily === 'dual' ? DUAL_SERVICE_CIDR : ipFamily === 'ipv6' ? IPV6_SERVICE_CIDR : undefined;
}

/** The IPv6 pod CIDR of node `index` in a dual-stack or IPv6-only lab. */
export const podCIDRv6Of = (index: number): string => `fd00:10:${index.toString(16)}::/64`;

export function parseMode(v: string): LabMode {
  if (!(LAB_MODES as readonly string[]).includes(v)) throw new LabError('INVALID_MODE', `--mode must be one of ${LAB_MODES.join(', ')}, got ${v}`, v, '--mode');
  return v as LabMode;
}

/**
 * Plans `n` nodes: names, pod CIDRs and underlay addresses. `encap`/`noEncap`: every node in
 * 192.168.77.0/24 (and fd00:77::/64 with `--ip-family dual|ipv6`; `ipv6`: in fd00:77::/64 alone).
 * `hybrid`: the fabric is split, the first ceil(n/2) nodes in 192.168.77.0/24 and the others in
 * 192.168.78.0/24 (node index as host part in both), the IPv6 underlay likewise in fd00:77::/64
 * and fd00:78::/64, so peers in the same half are routed and peers in the other half tunnelled, in
 * each family (the agent's hybrid rule: the transport subnet of the family).
 */
export function planNodes(n: number, tokenFor: (name: string) => string, mode: LabMode = 'encap', layout: NodeLayout = {}, ipFamily: LabIpFamily = 'ipv4'): NodePlan[] {
  const ipBase = layout.nodeIPBase ?? 0;
  if (!Number.isInteger(n) || n < 1 || n + ipBase > 250) throw new LabError('INVALID_NODES', `--nodes must be an integer in 1..${250 - ipBase}, got ${String(n)}`, n, '--nodes');
  const firstHalf = Math.ceil(n / 2);
  const podPrefix = layout.podCIDRPrefix ?? '10.10';
  return Array.from({ length: n }, (_, k) => {
    const index = k + 1;
    const name = `node${index}`;
    const second = mode === 'hybrid' && index > firstHalf;
    const prefix = second ? FABRIC_PREFIX_2 : FABRIC_PREFIX;
    const prefix6 = second ? FABRIC_PREFIX_V6_2 : FABRIC_PREFIX_V6;
    const podCIDRv6 = layout.podCIDRv6Prefix !== undefined ? `${layout.podCIDRv6Prefix}:${index.toString(16)}::/64` : podCIDRv6Of(index);
    const podCIDR = ipFamily === 'ipv6' ? podCIDRv6 : `${podPrefix}.${index}.0/24`;
    const underlay6 = { nodeIPv6: `${prefix6}:${(ipBase + index).toString(16)}`, ...(mode === 'hybrid' ? { fabricGatewayV6: `${prefix6}:${FABRIC_GATEWAY_HOST.toString(16)}` } : {}) };
    if (ipFamily === 'ipv6') {
      // An IPv6 underlay: the IPv6 address is the node IP (the tunnels' endpoint), and there is no IPv4 one.
      return { name, index, podCIDR, ...underlay6, nodeIP: underlay6.nodeIPv6, subnet: `${prefix6}:/64`, fabricGateway: `${prefix6}:${FABRIC_GATEWAY_HOST.toString(16)}`, token: tokenFor(name) };
    }
    const dual = ipFamily === 'dual' ? { podCIDRv6, ...underlay6 } : {};
    return { name, index, podCIDR, ...dual, nodeIP: `${prefix}.${ipBase + index}`, subnet: `${prefix}.0/24`, fabricGateway: `${prefix}.${FABRIC_GATEWAY_HOST}`, token: tokenFor(name) };
  });
}

/**
 * br-phy's node IP and the route to the other fabric subnet (hybrid's second half) through the
 * fabric router. An IPv6-only lab's node has no IPv4 address there (an IPv6 underlay).
 */
export function brPhyAddressing(plan: NodePlan): string[][] {
  const v4 = !plan.nodeIP.includes(':');
  return [
    ...(v4 ? [['ip', 'addr', 'replace', `${plan.nodeIP}/24`, 'dev', 'br-phy']] : []),
    ['ip', 'link', 'set', 'br-phy', 'up'],
    ...(v4 ? [['ip', 'route', 'replace', `${plan.subnet.startsWith(FABRIC_PREFIX_2) ? FABRIC_PREFIX : FABRIC_PREFIX_2}.0/24`, 'via', plan.fabricGateway, 'dev', 'br-phy']] : []),
    // Dual-stack and IPv6-only: the IPv6 underlay address (dual: beside the IPv4 one; no DAD: usable at
    // once), and the route to the other IPv6 subnet (hybrid's second half) through the fabric router.
    ...(plan.nodeIPv6 !== undefined ? [['ip', '-6', 'addr', 'replace', `${plan.nodeIPv6}/64`, 'dev', 'br-phy', 'nodad']] : []),
    ...(plan.fabricGatewayV6 !== undefined ? [['ip', '-6', 'route', 'replace', `${plan.nodeIPv6!.startsWith(FABRIC_PREFIX_V6_2) ? FABRIC_PREFIX_V6 : FABRIC_PREFIX_V6_2}:/64`, 'via', plan.fabricGatewayV6, 'dev', 'br-phy']] : []),
  ];
}

/**
 * A node's InternalIPs (its Node's `status.addresses`, its agent's `--node-ip`): the IPv4 node IP,
 * then the IPv6 one with `--ip-family dual`; with `ipv6` the IPv6 one alone (an IPv6 underlay).
 */
export function nodeInternalIPs(plan: Pick<NodePlan, 'nodeIP' | 'nodeIPv6'>): string[] {
  return plan.nodeIPv6 !== undefined && plan.nodeIPv6 !== plan.nodeIP ? [plan.nodeIP, plan.nodeIPv6] : [plan.nodeIP];
}

/**
 * Where a cluster's nodes sit when several clusters share one fabric (multi-cluster lab): pod CIDRs
 * `<podCIDRPrefix>.<i>.0/24` (default 10.10) and node IPs `<fabric>.<nodeIPBase + i>` (default 0);
 * dual-stack, IPv6 pod CIDRs `<podCIDRv6Prefix>:<i>::/64` (default fd00:10) and node IPv6 addresses
 * `<fabric v6>:<nodeIPBase + i>`.
 */
export interface NodeLayout {
  podCIDRPrefix?: string;
  /** The first 32 bits of the IPv6 pod CIDRs, as `fd00:11` (default `fd00:10`). */
  podCIDRv6Prefix?: string;
  nodeIPBase?: number;
}

/** Round-robin scheduler for pods that come without spec.nodeName. */
export class RoundRobin {
  private next = 0;
  constructor(private readonly nodes: readonly string[]) {}
  pick(): string {
    const node = this.nodes[this.next % this.nodes.length];
    this.next++;
    if (node === undefined) throw new LabError('INVALID_NODES', 'no node to schedule on');
    return node;
  }
}

/** A declared container port of a pod, as the lab's pod server listens on it. */
export interface PodPort {
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}

interface PodSpecLike {
  containers?: { ports?: { containerPort?: number; protocol?: string }[] }[];
}

/** Every distinct declared containerPort of a pod (protocol defaults to TCP as in Kubernetes). */
export function declaredPorts(spec: PodSpecLike | undefined): PodPort[] {
  const seen = new Map<string, PodPort>();
  for (const c of spec?.containers ?? [])
    for (const p of c.ports ?? []) {
      if (typeof p.containerPort !== 'number') continue;
      const protocol = (p.protocol ?? 'TCP').toUpperCase() as PodPort['protocol'];
      seen.set(`${protocol}/${p.containerPort}`, { port: p.containerPort, protocol });
    }
  return [...seen.values()];
}

/** What the pod server prints on stdout once it listens on every port (the lab's readiness probe). */
export const POD_SERVER_READY = 'listening';

/**
 * The argv of a pod's server: one small node process answering `pong` on every declared TCP and UDP
 * port (a TCP connection gets `pong` and is closed; a datagram gets `pong` back to the port it came
 * from), printing `POD_SERVER_READY` once it listens on all of them. `undefined` when the pod
 * declares no TCP or UDP port (SCTP: no kernel module on these machines).
 *
 * One process per pod, no process per connection. A forking server (socat `TCP-LISTEN,fork` with
 * `SYSTEM:echo pong`, used before) costs two forks and an exec per connection and listens with a
 * backlog of 5: on a machine where a fork takes milliseconds, concurrent probes overflow the accept
 * queue, and the kernel drops the handshake's last ACK, so the client is connected and the server
 * never sees it ("connected, no answer"; measured here: 40 concurrent connections on loopback left
 * connections hanging for good). This server listens with a backlog of 1,024. UDP is not socat
 * either: `UDP-RECVFROM,fork` children race for the shared socket and lose datagrams. A dual-stack
 * or IPv6 pod's server listens on IPv6 sockets that take IPv4 too.
 */
export function podServerArgv(ports: readonly PodPort[], ipv6 = false): string[] | undefined {
  const served = ports.filter((p) => p.protocol === 'TCP' || p.protocol === 'UDP');
  if (served.length === 0) return undefined;
  return [process.execPath, '-e', POD_SERVER, ipv6 ? '6' : '4', ...served.map((p) => `${p.protocol}/${p.port}`)];
}

const POD_SERVER = [
  "const net = require('node:net');",
  "const dgram = require('node:dgram');",
  'const [family, ...ports] = process.argv.slice(1);',
  "const host = family === '6' ? '::' : '0.0.0.0';",
  'let waiting = ports.length;',
  `const listening = () => { if (--waiting === 0) process.stdout.write('${POD_SERVER_READY}\\n'); };`,
  "const fail = (what) => (e) => { process.stderr.write(`pod server ${what}: ${e.message}\\n`); process.exit(1); };",
  'for (const spec of ports) {',
  "  const [protocol, port] = spec.split('/');",
  "  if (protocol === 'TCP') {",
  // pong and FIN at once; what the client sends is read and dropped (unread data would turn the
  // close into a reset that can beat the answer), and a client that never closes is cut at 10 s.
  "    const srv = net.createServer((c) => { c.on('error', () => {}); c.setTimeout(10000, () => c.destroy()); c.resume(); c.end('pong\\n'); });",
  "    srv.on('error', fail(spec));",
  "    srv.listen({ host, port: Number(port), ipv6Only: false, backlog: 1024 }, listening);",
  '  } else {',
  "    const s = dgram.createSocket({ type: family === '6' ? 'udp6' : 'udp4', reuseAddr: true, ipv6Only: false });",
  "    s.on('message', (_m, from) => s.send('pong\\n', from.port, from.address));",
  "    s.on('error', fail(spec));",
  '    s.bind(Number(port), host, listening);',
  '  }',
  '}',
].join('\n');
