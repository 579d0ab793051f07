/**
 * The node route controller: every other Node of the cluster becomes a remote node of the
 * pipeline (tunnel flows in encap, gateway flows where the host routes) and, per traffic mode, a
 * host route to its pod CIDR. It also keeps the node's pod -> external MASQUERADE rule in step
 * with the set of pod CIDRs (traffic between pod CIDRs is never masqueraded).
 *
 * A pod CIDR claimed by two Nodes goes to the Node that claimed it first; the later claim is
 * refused (logged) until the first Node is gone or changes its CIDR.
 */
import type { RemoteNode, TrafficMode } from '@switchyard/openflow-pipeline';
import { Cidr, parseCidr, parseIp } from '@switchyard/ipam/cidr';
import { canonicalIp } from '@switchyard/apis/types';
import type { InformerEvent, KubeObject } from '@switchyard/kube';
import { RECONCILE_RETRY, Reconciler, silentLogger, systemClock, type BackoffPolicy, type Clock, type Logger } from '@switchyard/runtime';

/** What the controller needs of a Node object. */
export interface NodeFacts {
  name: string;
  /** IPv4 pod CIDR (spec.podCIDRs, else spec.podCIDR). */
  podCIDR: string | undefined;
  /** IPv4 InternalIP (else the first IPv4 address). */
  nodeIP: string | undefined;
  /** Dual-stack: the IPv6 entry of spec.podCIDRs. */
  podCIDRv6?: string;
  /**
   * The IPv6 InternalIP: the next hop of the host route to `podCIDRv6` where the host routes IPv6
   * (noEncap, hybrid), and the tunnel destination of a node on an IPv6 underlay ({@link tunnelIPOf}).
   */
  nodeIPv6?: string;
}

/** Reads the facts of a Node object (JSON as the API server sent it). */
export function nodeFacts(o: KubeObject): NodeFacts {
  const spec = (o.spec ?? {}) as { podCIDR?: string; podCIDRs?: string[] };
  const status = (o.status ?? {}) as { addresses?: { type?: string; address?: string }[] };
  const v4 = (s: string | undefined): s is string => typeof s === 'string' && s !== '' && !s.includes(':');
  const podCIDR = (spec.podCIDRs ?? []).find(v4) ?? (v4(spec.podCIDR) ? spec.podCIDR : undefined);
  const addrs = status.addresses ?? [];
  const nodeIP = addrs.find((a) => a.type === 'InternalIP' && v4(a.address))?.address ?? addrs.find((a) => a.type !== 'Hostname' && v4(a.address))?.address;
  const podCIDRv6 = (spec.podCIDRs ?? []).find((c) => typeof c === 'string' && c.includes(':'));
  const nodeIPv6 = canonicalIp6(addrs.find((a) => a.type === 'InternalIP' && typeof a.address === 'string' && a.address.includes(':'))?.address);
  return { name: o.metadata.name ?? '', podCIDR, nodeIP, ...(podCIDRv6 !== undefined ? { podCIDRv6 } : {}), ...(nodeIPv6 !== undefined ? { nodeIPv6 } : {}) };
}

/**
 * Where this node's tunnel reaches Node `n` (its transport address), or undefined when it cannot:
 * - a node with IPv4 pods (IPv4, dual-stack): `n`'s IPv4 address, as always (the tunnels are IPv4);
 * - an IPv6-only node on an IPv6 underlay (its own `nodeIP` is IPv6, it has no IPv4 address): `n`'s
 *   IPv6 InternalIP; a Node without one is out of reach;
 * - an IPv6-only node with an IPv4 node IP: `n`'s IPv4 address, else its IPv6 InternalIP (a peer
 *   on an IPv6 underlay is reached over IPv6, from this node's IPv6 address).
 */
export function tunnelIPOf(n: Pick<NodeFacts, 'nodeIP' | 'nodeIPv6'>, self: { podCIDR: string | undefined; nodeIP?: string }): string | undefined {
  const v4 = n.nodeIP ? n.nodeIP : undefined;
  if (self.podCIDR !== undefined) return v4;
  if (self.nodeIP?.includes(':')) return n.nodeIPv6;
  return v4 ?? n.nodeIPv6;
}

/** A Node refused because another Node holds its pod CIDR. */
export interface RefusedNode {
  name: string;
  podCIDR: string;
  heldBy: string;
}

/**
 * The remote nodes for a set of Nodes, in a stable order. `claims` is the pod CIDR -> Node name
 * ownership carried from the previous call: an owner keeps its CIDR while it exists. A dual-stack
 * `self` (with `podCIDRv6`) gives each peer its IPv6 pod CIDR too, under the same first-claim rule
 * (a peer whose IPv6 CIDR is held by another Node keeps its IPv4 one only); an IPv4-only `self`
 * leaves IPv6 out, so its remote nodes are the IPv4-only ones. An IPv6-only `self` (no `podCIDR`)
 * takes every peer with an IPv6 pod CIDR that its tunnel reaches ({@link tunnelIPOf}: with an
 * IPv6 `self.nodeIP`, an IPv6 underlay, at the peer's IPv6 InternalIP); the remote node's `nodeIP`
 * is that tunnel address.
 */
export function remoteNodesOf(
  nodes: readonly NodeFacts[],
  self: { name: string; podCIDR: string | undefined; podCIDRv6?: string; nodeIP?: string },
  claims: Map<string, string>,
): { remote: RemoteNode[]; refused: RefusedNode[] } {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  // Drop claims whose owner is gone or moved to another CIDR.
  for (const [cidr, owner] of claims) if (byName.get(owner)?.podCIDR !== cidr && canonical6(byName.get(owner)?.podCIDRv6) !== cidr) claims.delete(cidr);
  if (self.podCIDR !== undefined) claims.set(self.podCIDR, self.name);
  const self6 = canonical6(self.podCIDRv6);
  if (self6 !== undefined) claims.set(self6, self.name);
  const remote: RemoteNode[] = [];
  const refused: RefusedNode[] = [];
  for (const n of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (self.podCIDR === undefined) {
      // An IPv6-only node: its peers by their IPv6 pod CIDR alone (an IPv4 one is of no use here),
      // each at the address its tunnel reaches (IPv6 on an IPv6 underlay).
      const v6 = canonical6(n.podCIDRv6);
      const via = tunnelIPOf(n, self);
      if (n.name === self.name || v6 === undefined || via === undefined) continue;
      const owner6 = claims.get(v6);
      if (owner6 !== undefined && owner6 !== n.name) {
        refused.push({ name: n.name, podCIDR: v6, heldBy: owner6 });
        continue;
      }
      claims.set(v6, n.name);
      remote.push({ name: n.name, podCIDRv6: v6, nodeIP: via, ...(n.nodeIPv6 !== undefined ? { nodeIPv6: n.nodeIPv6 } : {}) });
      continue;
    }
    if (n.name === self.name || !n.podCIDR || !n.nodeIP) continue;
    let cidr: string;
    try {
      cidr = parseCidr(n.podCIDR).toString();
    } catch {
      continue; // not a CIDR; the Node object is not ours to fix
    }
    const owner = claims.get(cidr);
    if (owner !== undefined && owner !== n.name) {
      refused.push({ name: n.name, podCIDR: cidr, heldBy: owner });
      continue;
    }
    claims.set(cidr, n.name);
    let v6: string | undefined;
    if (self6 !== undefined) {
      v6 = canonical6(n.podCIDRv6);
      const owner6 = v6 === undefined ? undefined : claims.get(v6);
      if (v6 !== undefined && owner6 !== undefined && owner6 !== n.name) {
        refused.push({ name: n.name, podCIDR: v6, heldBy: owner6 });
        v6 = undefined;
      }
      if (v6 !== undefined) claims.set(v6, n.name);
    }
    remote.push({
      name: n.name, podCIDR: cidr, ...(v6 !== undefined ? { podCIDRv6: v6 } : {}), nodeIP: n.nodeIP,
      ...(v6 !== undefined && n.nodeIPv6 !== undefined ? { nodeIPv6: n.nodeIPv6 } : {}), gatewayIP: parseCidr(cidr).gateway().toString(),
    });
  }
  return { remote, refused };
}

/** An IPv6 CIDR in canonical form; undefined for none, or text that is no IPv6 CIDR (the Node object is not ours to fix). */
function canonical6(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const c = parseCidr(text);
    return c.family === 6 ? c.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** An IPv6 address in canonical form; undefined for none or text that is no IPv6 address. */
function canonicalIp6(text: string | undefined): string | undefined {
  const ip = text === undefined ? undefined : canonicalIp(text);
  return ip?.includes(':') ? ip : undefined;
}

/** The gateway address of a peer's IPv6 pod CIDR (its first address, as the peer's agent gives its gateway). */
export function gatewayIPv6Of(podCIDRv6: string): string {
  return parseCidr(podCIDRv6).gateway().toString();
}

/** Where this node's IPv6 underlay is: its IPv6 node address and the device and prefix length that carry it. */
export interface Transport6 {
  nodeIPv6: string;
  dev: string;
  prefix: number;
}

/**
 * A peer the traffic mode routes IPv6 to directly whose IPv6 pod CIDR gets no host route: its Node
 * has no IPv6 InternalIP (`lacking: 'peer'`), or this node has no IPv6 node address (`'self'`).
 */
export interface MissingNodeIPv6 {
  name: string;
  podCIDRv6: string;
  mode: TrafficMode;
  lacking: 'peer' | 'self';
}

/**
 * Host routes to the peers' IPv6 pod CIDRs (dual-stack and IPv6-only nodes), as Antrea per family:
 * - noEncap, and hybrid for a peer whose IPv6 node address is in this node's IPv6 transport subnet:
 *   straight to the peer's IPv6 node address on the transport device (`transport6`); a peer
 *   without one (its Node has no IPv6 InternalIP) gets no route and is listed in `missing`.
 * - encap, and hybrid for the other peers: through the gateway via the peer gateway's IPv6 address
 *   (which the host resolves with a permanent neighbour entry, see {@link NodeRouteSink.syncIpv6}).
 * With WireGuard, onto its device in every mode (the peers' allowed IPs hold their IPv6 pod CIDRs,
 * so the device picks the peer as for IPv4). networkPolicyOnly routes nothing. Without `transport6` (no IPv6 node address here) noEncap routes nothing and lists
 * every peer, and hybrid tunnels every peer.
 */
export function hostRoutes6For(
  mode: TrafficMode,
  remote: readonly RemoteNode[],
  o: { gatewayName: string; transport6?: Transport6; wireGuardDev?: string },
): { routes: HostRoute[]; missing: MissingNodeIPv6[] } {
  const routes: HostRoute[] = [];
  const missing: MissingNodeIPv6[] = [];
  if (mode === 'networkPolicyOnly') return { routes, missing };
  const wg = o.wireGuardDev;
  if (wg !== undefined) return { routes: remote.flatMap((r) => (r.podCIDRv6 !== undefined ? [{ dst: r.podCIDRv6, dev: wg }] : [])), missing };
  const t = o.transport6;
  for (const r of remote) {
    if (r.podCIDRv6 === undefined) continue;
    const inSubnet = t !== undefined && r.nodeIPv6 !== undefined && sameSubnet(r.nodeIPv6, t.nodeIPv6, t.prefix);
    if (mode === 'noEncap' || (mode === 'hybrid' && inSubnet)) {
      if (t === undefined || r.nodeIPv6 === undefined) missing.push({ name: r.name, podCIDRv6: r.podCIDRv6, mode, lacking: t === undefined ? 'self' : 'peer' });
      else routes.push({ dst: r.podCIDRv6, via: r.nodeIPv6, dev: t.dev });
      continue;
    }
    routes.push({ dst: r.podCIDRv6, via: gatewayIPv6Of(r.podCIDRv6), dev: o.gatewayName, onlink: true });
  }
  return { routes, missing };
}

/** The health text of peers without an IPv6 node address where the mode needs one. */
export function missingNodeIPv6Detail(missing: readonly MissingNodeIPv6[]): string {
  return missing
    .map((m) =>
      m.lacking === 'peer'
        ? `Node ${m.name} has no IPv6 InternalIP: trafficMode ${m.mode} routes its IPv6 pod CIDR ${m.podCIDRv6} to it on the underlay, so IPv6 to its pods is not routed`
        : `this node has no IPv6 node address (nodeIPv6): trafficMode ${m.mode} routes the IPv6 pod CIDR ${m.podCIDRv6} of Node ${m.name} on the IPv6 underlay, so IPv6 to its pods is not routed`,
    )
    .join('; ');
}

/** A host route the agent owns. */
export interface HostRoute {
  dst: string;
  /** Next hop; absent = directly on `dev`. */
  via?: string;
  dev: string;
  /** Next hop is on the link even if no address covers it (routes through the gateway). */
  onlink?: boolean;
}

/**
 * Whether two addresses are in the same subnet of the given prefix length.
 * @throws CidrError for text that is not an address, or a prefix too long for its family.
 */
export function sameSubnet(a: string, b: string, prefix: number): boolean {
  return Cidr.of(parseIp(a), prefix).contains(parseIp(b));
}

/**
 * Host routes to the remote pod CIDRs: through the gateway (encap: the host's own traffic to
 * remote pods enters OVS and is tunnelled), or straight to the peer's node IP on the transport
 * link (noEncap, and hybrid within the transport subnet); with WireGuard, onto its device (which
 * picks the peer by the destination's pod CIDR) in every mode. networkPolicyOnly routes nothing: the
 * primary CNI owns routing.
 */
export function hostRoutesFor(
  mode: TrafficMode,
  remote: readonly RemoteNode[],
  o: { gatewayName: string; transportDev: string; nodeIP: string; transportPrefix: number; wireGuardDev?: string },
): HostRoute[] {
  if (mode === 'networkPolicyOnly') return [];
  const wg = o.wireGuardDev;
  // IPv6-only peers have no IPv4 pod CIDR to route (their IPv6 routes: hostRoutes6For).
  const v4 = remote.flatMap((r) => (r.podCIDR !== undefined && r.gatewayIP !== undefined ? [{ ...r, podCIDR: r.podCIDR, gatewayIP: r.gatewayIP }] : []));
  if (wg !== undefined) return v4.map((r) => ({ dst: r.podCIDR, dev: wg }));
  return v4.map((r) => {
    const direct = mode === 'noEncap' || (mode === 'hybrid' && sameSubnet(r.nodeIP, o.nodeIP, o.transportPrefix));
    return direct ? { dst: r.podCIDR, via: r.nodeIP, dev: o.transportDev } : { dst: r.podCIDR, via: r.gatewayIP, dev: o.gatewayName, onlink: true };
  });
}

/** Where the node route controller applies its results. */
export interface NodeRouteSink {
  setRemoteNodes(nodes: RemoteNode[]): Promise<unknown>;
  syncRoutes(routes: HostRoute[]): Promise<unknown>;
  /** The pod CIDRs of the whole cluster (this node's first): never masqueraded between each other. */
  syncMasquerade(podCIDRs: string[]): Promise<unknown>;
  /** The same for IPv6 (called only when `self.podCIDRv6` is set): the cluster's IPv6 pod CIDRs, this node's first. */
  syncMasquerade6?(podCIDRs: string[]): Promise<unknown>;
  /**
   * Dual-stack (called only when `self.podCIDRv6` is set): the IPv6 host routes, and the peer
   * gateways' IPv6 addresses the host must resolve to the global virtual MAC on the gateway.
   */
  syncIpv6?(routes: HostRoute[], peerGateways: string[]): Promise<unknown>;
}

/** Options of {@link NodeRouteController}. */
export interface NodeRouteControllerOptions {
  /** This node; `podCIDRv6` when it is dual-stack; no `podCIDR` (undefined) when it is IPv6-only. */
  self: { name: string; podCIDR: string | undefined; nodeIP: string; podCIDRv6?: string };
  /** The IPv6 underlay (this node's IPv6 node address, its device and prefix): IPv6 routes of noEncap and hybrid. */
  transport6?: Transport6;
  mode: TrafficMode;
  gatewayName: string;
  /** Transport device and prefix length (the node IP's subnet) for direct routes. */
  transportDev: string;
  transportPrefix: number;
  /** trafficEncryptionMode wireGuard: remote pod CIDRs are routed onto this device. */
  wireGuardDev?: string;
  sink: NodeRouteSink;
  logger?: Logger;
  /** Clock of the retry after a failed apply (tests drive it). */
  clock?: Clock;
}

/** Retry of a failed apply: nothing else may come to trigger one (the Node objects did not change; the host or the switch was away). */
export const ROUTES_RETRY: BackoffPolicy = RECONCILE_RETRY;

/**
 * Feeds Node events into the pipeline's remote nodes and the host's routes. Changes are applied
 * one at a time, latest state wins: a burst of Node events costs one flow sync and one route sync.
 */
export class NodeRouteController {
  private readonly nodes = new Map<string, NodeFacts>();
  private readonly claims = new Map<string, string>();
  private readonly log: Logger;
  /** What was last applied in full ('' = nothing, or apply again whatever the state). */
  private lastKey = '';
  private readonly reconciler: Reconciler;
  /** Remote nodes currently realized. */
  remote: RemoteNode[] = [];
  /** Nodes refused for a duplicate pod CIDR. */
  refused: RefusedNode[] = [];
  /** Peers whose IPv6 pod CIDR the mode routes on the underlay but whose Node has no IPv6 InternalIP (or this node has none). */
  missingNodeIPv6: MissingNodeIPv6[] = [];

  constructor(private readonly o: NodeRouteControllerOptions) {
    this.log = o.logger ?? silentLogger;
    // A failed apply is retried after a backoff until one succeeds: e.g. a restarted ovs-vswitchd
    // has not made the gateway's tap device yet, and the next Node event may be a minute away.
    this.reconciler = new Reconciler(() => this.apply(), {
      retry: ROUTES_RETRY,
      clock: o.clock ?? systemClock,
      onError: (e, retryInMs) => this.log.error({ err: e, retryInMs }, 'node routes not applied'),
    });
  }

  /** Failure of the last apply (kept until an apply succeeds). */
  get lastError(): unknown {
    return this.reconciler.lastError;
  }

  /** Cancels a pending retry and waits for a running apply; nothing is applied after this. */
  stop(): Promise<void> {
    return this.reconciler.stop();
  }

  /** Informer handler. */
  readonly onEvent = (e: InformerEvent): void => {
    const facts = nodeFacts(e.object);
    if (e.type === 'DELETED') this.nodes.delete(facts.name);
    else this.nodes.set(facts.name, facts);
    this.reconciler.schedule();
  };

  /** Applies the current state again even if it did not change (host routes lost underneath); resolves when applied. */
  async resync(): Promise<void> {
    this.lastKey = '';
    this.reconciler.schedule();
    await this.idle();
  }

  /** Resolves when every change seen so far has been applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  private async apply(): Promise<void> {
    const { remote, refused } = remoteNodesOf([...this.nodes.values()], this.o.self, this.claims);
    for (const r of refused) if (!this.refused.some((x) => x.name === r.name)) this.log.warn(r, 'pod CIDR already held by another Node: refused until that Node is gone');
    this.refused = refused;
    const key = JSON.stringify(remote);
    if (key === this.lastKey) return;
    // Until every step is done, a half-applied state is not taken as applied.
    this.lastKey = '';
    const routes = hostRoutesFor(this.o.mode, remote, {
      gatewayName: this.o.gatewayName,
      transportDev: this.o.transportDev,
      nodeIP: this.o.self.nodeIP,
      transportPrefix: this.o.transportPrefix,
      ...(this.o.wireGuardDev !== undefined ? { wireGuardDev: this.o.wireGuardDev } : {}),
    });
    await this.o.sink.setRemoteNodes(remote);
    await this.o.sink.syncRoutes(routes);
    // Each family the node has: its own pod CIDR first, then the peers' (never masqueraded between).
    if (this.o.self.podCIDR !== undefined) await this.o.sink.syncMasquerade([this.o.self.podCIDR, ...remote.flatMap((r) => (r.podCIDR !== undefined ? [r.podCIDR] : []))]);
    const self6 = canonical6(this.o.self.podCIDRv6);
    if (self6 !== undefined && this.o.sink.syncMasquerade6) await this.o.sink.syncMasquerade6([self6, ...remote.flatMap((r) => (r.podCIDRv6 !== undefined ? [r.podCIDRv6] : []))]);
    let routes6: HostRoute[] | undefined;
    if (this.o.self.podCIDRv6 !== undefined && this.o.sink.syncIpv6) {
      const r6 = hostRoutes6For(this.o.mode, remote, {
        gatewayName: this.o.gatewayName,
        ...(this.o.transport6 !== undefined ? { transport6: this.o.transport6 } : {}),
        ...(this.o.wireGuardDev !== undefined ? { wireGuardDev: this.o.wireGuardDev } : {}),
      });
      routes6 = r6.routes;
      for (const m of r6.missing) if (!this.missingNodeIPv6.some((x) => x.name === m.name)) this.log.error(m, missingNodeIPv6Detail([m]));
      this.missingNodeIPv6 = r6.missing;
      // Only the peer gateways (routes through our gateway) resolve to the global virtual MAC; an underlay next hop resolves by ND.
      await this.o.sink.syncIpv6(routes6, routes6.filter((r) => r.dev === this.o.gatewayName && r.via !== undefined).map((r) => r.via!));
    }
    this.remote = remote;
    this.lastKey = key;
    this.log.info(
      { remoteNodes: remote.map((r) => `${r.name}=${r.podCIDR ?? ''}${r.podCIDR !== undefined && r.podCIDRv6 !== undefined ? ',' : ''}${r.podCIDRv6 ?? ''}@${r.nodeIP}`), routes: routes.length, ...(routes6 ? { routes6: routes6.length } : {}) },
      'remote nodes realized',
    );
  }
}
