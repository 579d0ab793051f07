/**
 * Node bring-up on OVS: the bridge (datapath, fail_mode secure, OpenFlow15), the gateway internal
 * port with the node's gateway address, the tunnel port, and the cookie round number kept in the
 * bridge's external_ids.
 */
import { ops, unwrap, type OvsdbClient, type VSwitch } from '@switchyard/ovsdb';
import { cookieMaskForRound, nextRound } from '@switchyard/openflow-pipeline';
import type { FlowTransport } from '@switchyard/openflow';
import { parseCidr } from '@switchyard/ipam/cidr';
import { AgentError } from './errors';
import type { NodeNetwork } from './netops';

/**
 * Tunnel encapsulations and their header overhead over IPv4 (Antrea's values). GRE: the inner
 * Ethernet header 14, the outer IPv4 header 20 and a GRE header of 8 (4 and the key field, which
 * `key=flow` always puts there): 42, as Antrea's `greOverhead` has it since it counted the key.
 */
export const TUNNEL_OVERHEAD = { geneve: 50, vxlan: 50, gre: 42, stt: 50 } as const;
export type TunnelType = keyof typeof TUNNEL_OVERHEAD;
/**
 * What an IPv6 underlay adds to each tunnel's overhead: the outer IPv6 header is 40 bytes against
 * IPv4's 20 (Antrea's `ipv6ExtraOverhead`): Geneve and VXLAN over IPv6 cost 70 bytes, GRE 62.
 */
export const IPV6_UNDERLAY_EXTRA_OVERHEAD = 20;

/** Bridge external_ids key of the cookie round number (Antrea's key). */
export const ROUND_KEY = 'roundNum';

/** What bring-up needs. */
export interface BridgeSetupOptions {
  bridge: string;
  datapathType: 'system' | 'netdev';
  gatewayName: string;
  tunnelName: string;
  tunnelType: TunnelType;
  /** UDP port of the tunnel; 0 = the type's default. */
  tunnelPort: number;
  tunnelCsum: boolean;
  /**
   * The tunnel's own address (`local_ip`): set on an IPv6 underlay (an IPv6-only node without an
   * IPv4 address), where the tunnel runs from the node's IPv6 address; absent, OVS picks the source
   * by route and takes tunnel traffic to any local address (as Antrea without a transport interface).
   */
  tunnelLocalIP?: string;
  /** The IPv4 pod CIDR; absent on an IPv6-only node (the gateway gets no IPv4 address then). */
  podCIDR: string | undefined;
  /** Dual-stack or IPv6-only: the IPv6 pod CIDR; the gateway also gets its first address. */
  podCIDRv6?: string;
  /** MTU of the pod and gateway interfaces (link MTU minus tunnel overhead). */
  mtu: number;
  /** Whether the node needs a tunnel port (encap, hybrid). Default true. */
  tunnel?: boolean;
  /**
   * The gateway's address with prefix; default the first address of the pod CIDR. networkPolicyOnly
   * gives it the node IP (/32): pods are routed by the primary CNI, the gateway only carries them.
   */
  gatewayAddress?: string;
}

/** The node as brought up. */
export interface NodeInfo {
  gateway: {
    name: string;
    ofport: number;
    /** IPv4 address (absent on an IPv6-only node), and with prefix. */
    ip?: string;
    mac: string;
    ipCidr?: string;
    /** Dual-stack or IPv6-only: the gateway's IPv6 address (the pods' IPv6 default gateway) and with prefix. */
    ipv6?: { ip: string; ipCidr: string };
  };
  /** Absent in noEncap and networkPolicyOnly. */
  tunnel?: { name: string; ofport: number; type: TunnelType };
}

/**
 * Options of the tunnel interface: flow-based remote and key, as Antrea configures it (the remote is
 * each flow's `tun_dst` or `tun_ipv6_dst`); `local_ip` on an IPv6 underlay.
 */
export function tunnelInterfaceOptions(o: Pick<BridgeSetupOptions, 'tunnelPort' | 'tunnelCsum' | 'tunnelType' | 'tunnelLocalIP'>): Record<string, string> {
  const options: Record<string, string> = { remote_ip: 'flow', key: 'flow' };
  if (o.tunnelLocalIP !== undefined) options.local_ip = o.tunnelLocalIP;
  if (o.tunnelPort !== 0 && o.tunnelType !== 'gre') options.dst_port = String(o.tunnelPort);
  if (o.tunnelCsum) options.csum = 'true';
  return options;
}

/** Refuses configurations the chosen datapath cannot run. */
export function checkDatapathSupport(o: Pick<BridgeSetupOptions, 'datapathType' | 'tunnelType'>): void {
  if (!(o.tunnelType in TUNNEL_OVERHEAD)) {
    throw new AgentError('INVALID_CONFIG', `unknown tunnel type ${JSON.stringify(o.tunnelType)}`, o.tunnelType, 'tunnelType');
  }
  if (o.tunnelType === 'stt' && o.datapathType === 'netdev') {
    throw new AgentError(
      'UNSUPPORTED_TUNNEL',
      'tunnelType stt needs the kernel datapath (ovsDatapathType system): the userspace datapath has no STT',
      o.tunnelType,
      'tunnelType',
    );
  }
}

/** Ensures bridge, gateway and tunnel port; puts the gateway address up. Idempotent. */
export async function bringUpNode(vs: VSwitch, net: NodeNetwork, o: BridgeSetupOptions): Promise<NodeInfo> {
  checkDatapathSupport(o);
  if (o.podCIDR === undefined && o.podCIDRv6 === undefined && o.gatewayAddress === undefined) throw new AgentError('INVALID_CONFIG', 'no pod CIDR of either family', undefined, 'podCIDR');
  await vs.ensureBridge(o.bridge, {
    datapathType: o.datapathType,
    failMode: 'secure',
    protocols: ['OpenFlow10', 'OpenFlow13', 'OpenFlow15'],
  });
  await vs.ensurePort(o.bridge, o.gatewayName, {
    type: 'internal',
    externalIds: { 'antrea-type': 'gateway' },
    mtuRequest: o.mtu,
  });
  const withTunnel = o.tunnel ?? true;
  if (withTunnel) {
    await vs.ensurePort(o.bridge, o.tunnelName, {
      type: o.tunnelType,
      options: tunnelInterfaceOptions(o),
      externalIds: { 'antrea-type': 'tunnel' },
    });
  } else {
    // A mode change from encap: the old tunnel port goes.
    await vs.deletePort(o.bridge, o.tunnelName).catch(() => undefined);
  }
  const [gwOfport, tunOfport] = await Promise.all([vs.waitForOfport(o.gatewayName), withTunnel ? vs.waitForOfport(o.tunnelName) : Promise.resolve(undefined)]);
  const cidr = o.podCIDR === undefined ? undefined : parseCidr(o.podCIDR);
  const ipCidr = o.gatewayAddress ?? (cidr ? `${cidr.gateway().toString()}/${cidr.prefix}` : undefined);
  const gwIp = ipCidr?.split('/')[0];
  const mac = await net.configureGateway(o.gatewayName, ipCidr, o.mtu);
  let ipv6: { ip: string; ipCidr: string } | undefined;
  if (o.podCIDRv6 !== undefined) {
    const c6 = parseCidr(o.podCIDRv6);
    ipv6 = { ip: c6.gateway().toString(), ipCidr: `${c6.gateway().toString()}/${c6.prefix}` };
    await net.configureGatewayV6(o.gatewayName, ipv6.ipCidr);
  }
  // Pinned in OVSDB: with the userspace datapath the gateway is a tap device that dies with
  // ovs-vswitchd, and the one a restarted vswitchd creates must keep the MAC the flows use.
  await vs.ensurePort(o.bridge, o.gatewayName, { type: 'internal', externalIds: { 'antrea-type': 'gateway' }, mtuRequest: o.mtu, mac });
  return {
    gateway: { name: o.gatewayName, ofport: gwOfport, ...(ipCidr !== undefined && gwIp !== undefined ? { ip: gwIp, ipCidr } : {}), mac, ...(ipv6 ? { ipv6 } : {}) },
    ...(tunOfport !== undefined ? { tunnel: { name: o.tunnelName, ofport: tunOfport, type: o.tunnelType } } : {}),
  };
}

/** Reads the round number the previous agent run used (undefined on a fresh bridge). */
export async function readRound(client: OvsdbClient, bridge: string): Promise<number | undefined> {
  const r = unwrap(await client.transact('Open_vSwitch', [ops.select('Bridge', [['name', '==', bridge]], ['external_ids'])]));
  const res = r.results[0];
  const ids = res?.op === 'select' ? (res.rows[0]?.external_ids as ReadonlyMap<string, string> | undefined) : undefined;
  const v = ids?.get(ROUND_KEY);
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 && n <= 0xffff ? n : undefined;
}

/** Persists the round number in the bridge's external_ids (other keys kept). */
export async function writeRound(client: OvsdbClient, bridge: string, round: number): Promise<void> {
  unwrap(
    await client.transact('Open_vSwitch', [
      ops.mutate('Bridge', [['name', '==', bridge]], [
        ['external_ids', 'delete', [ROUND_KEY]],
        ['external_ids', 'insert', new Map([[ROUND_KEY, String(round)]])],
      ]),
    ]),
  );
}

/**
 * Picks this run's round (the one after the persisted one) and persists it at once: if this run
 * dies half-way, the next one uses yet another round and deletes everything not its own.
 */
export async function startRound(client: OvsdbClient, bridge: string): Promise<{ round: number; previous: number | undefined }> {
  const previous = await readRound(client, bridge);
  const round = nextRound(previous ?? 0);
  await writeRound(client, bridge, round);
  return { round, previous };
}

/**
 * This run's round when the agent restarts on a switch that kept running: the persisted round, if
 * the switch still holds flows of it (the run then adopts them, see FlowSync.initialSync), else a
 * new round as {@link startRound} picks it (fresh bridge, or ovs-vswitchd lost its flows).
 */
export async function resumeRound(
  client: OvsdbClient,
  bridge: string,
  sw: Pick<FlowTransport, 'dumpFlows'>,
): Promise<{ round: number; previous: number | undefined; adopt: boolean }> {
  const previous = await readRound(client, bridge);
  if (previous !== undefined && (await sw.dumpFlows({ ...cookieMaskForRound(previous), table: 0 })).length > 0) {
    return { round: previous, previous, adopt: true };
  }
  return { ...(await startRound(client, bridge)), adopt: false };
}

/**
 * MTU for pod interfaces: the link MTU minus the tunnel overhead (when traffic is encapsulated),
 * 20 bytes more when the tunnel runs over IPv6 (`ipv6Underlay`: a node whose transport address is
 * IPv6). Antrea deducts the 20 on every node with an IPv6 address; here a dual-stack node's tunnels
 * run over IPv4, so only an IPv6 underlay pays it.
 */
export function podMtu(linkMtu: number, tunnelType: TunnelType, encapsulated = true, ipv6Underlay = false): number {
  return encapsulated ? linkMtu - TUNNEL_OVERHEAD[tunnelType] - (ipv6Underlay ? IPV6_UNDERLAY_EXTRA_OVERHEAD : 0) : linkMtu;
}
