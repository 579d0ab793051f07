/**
 * trafficEncryptionMode ipsec: one OVS tunnel port per peer Node carrying `remote_ip` and `psk`,
 * which OVS's ovs-monitor-ipsec turns into strongSwan connections. Pure parts (names, rows, MTU,
 * the PSK) and the port reconciler over OVSDB.
 */
import { createHash } from 'node:crypto';
import type { VSwitch } from '@switchyard/ovsdb';
import type { RemoteNode } from '@switchyard/openflow-pipeline';
import type { Logger } from '@switchyard/runtime';
import type { TunnelType } from '../../bridge';
import { AgentError } from '../../errors';

/** Environment variable holding the pre-shared key (Antrea's name; the manifest fills it from a Secret). */
export const IPSEC_PSK_ENV = 'ANTREA_IPSEC_PSK';

/** Bytes ESP can add to a packet, header and trailer (Antrea's IPSecESPOverhead), on top of the tunnel's. */
export const IPSEC_ESP_OVERHEAD = 38;

/** external_ids of a per-peer IPsec tunnel port: the interface type and the peer Node (Antrea's keys). */
export const IPSEC_EXTERNAL_IDS = { type: 'antrea-type', nodeName: 'node-name' } as const;
/** Value of `antrea-type` on per-peer IPsec tunnel ports. */
export const IPSEC_TUNNEL_TYPE = 'ipsec-tunnel';

const NAME_MAX = 15;
const PREFIX_MAX = 8;

/**
 * The tunnel port name for a peer Node, as Antrea builds it: the last 8 characters of the Node
 * name (leading hyphens dropped), a hyphen, then the start of sha1(`node/<name>`), 15 characters in
 * all (the Linux interface name limit).
 */
export function ipsecTunnelPortName(nodeName: string): string {
  const hash = createHash('sha1').update(`node/${nodeName}`).digest('hex');
  const prefix = nodeName.length > PREFIX_MAX ? nodeName.slice(nodeName.length - PREFIX_MAX).replace(/^-+/, '') : nodeName;
  return `${prefix}-${hash.slice(0, NAME_MAX - PREFIX_MAX - 1)}`;
}

/**
 * How peers authenticate: a pre-shared key, or certificates signed by the IPsec CA (each peer
 * known by its certificate's CN, its Node name).
 */
export type IPsecAuthentication = { psk: string } | { certificate: true };

/**
 * Interface options of a peer's port: a fixed remote (the peer's node IP) and either the PSK or,
 * with certificates, `remote_name` (the CN the peer's certificate must carry); no flow-based key.
 * On an IPv6 underlay (`localIP`, this node's IPv6 address) a peer reached over IPv6 gets
 * `local_ip` too, as the flow-based tunnel port has it; ovs-monitor-ipsec then sees both ends
 * of one family (IPv6), which it requires when `local_ip` is set.
 */
export function ipsecTunnelOptions(o: { remoteIP: string; remoteName: string; auth: IPsecAuthentication; tunnelType: TunnelType; tunnelPort: number; tunnelCsum: boolean; localIP?: string | undefined }): Record<string, string> {
  const options: Record<string, string> = { remote_ip: o.remoteIP, ...('psk' in o.auth ? { psk: o.auth.psk } : { remote_name: o.remoteName }) };
  if (o.localIP !== undefined && o.remoteIP.includes(':')) options.local_ip = o.localIP;
  if (o.tunnelPort !== 0 && o.tunnelType !== 'gre') options.dst_port = String(o.tunnelPort);
  if (o.tunnelCsum) options.csum = 'true';
  return options;
}

/** Port external_ids of a peer's tunnel port. */
export function ipsecExternalIds(nodeName: string): Record<string, string> {
  return { [IPSEC_EXTERNAL_IDS.type]: IPSEC_TUNNEL_TYPE, [IPSEC_EXTERNAL_IDS.nodeName]: nodeName };
}

/**
 * Pod and gateway MTU with IPsec: the link MTU less the tunnel overhead and the ESP overhead. ESP in
 * transport mode adds the same whatever the family (the outer header is the tunnel's, counted in
 * its overhead): over an IPv6 underlay the tunnel pays its 20 more and ESP its 38, as Antrea's
 * CalculateMTUDeduction adds IPSecESPOverhead to the IPv6 encap deduction.
 */
export function ipsecPodMtu(tunnelMtu: number): number {
  return tunnelMtu - IPSEC_ESP_OVERHEAD;
}

/**
 * The PSK: the explicit option, else the environment variable. Missing or empty is an
 * `INVALID_CONFIG` naming the variable; the key itself never goes into an error or a log.
 */
export function ipsecPSK(explicit: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const psk = explicit ?? env[IPSEC_PSK_ENV];
  if (psk === undefined || psk === '') {
    throw new AgentError('INVALID_CONFIG', `trafficEncryptionMode ipsec needs the pre-shared key in the environment variable ${IPSEC_PSK_ENV} (from the IPsec PSK Secret)`, undefined, IPSEC_PSK_ENV);
  }
  // ovs-monitor-ipsec writes it between double quotes into ipsec.secrets.
  if (/["\n\r]/.test(psk)) throw new AgentError('INVALID_CONFIG', `${IPSEC_PSK_ENV} must not contain double quotes or line breaks`, undefined, IPSEC_PSK_ENV);
  return psk;
}

/** The ports a set of peers needs, keyed by port name. */
export function desiredIPsecPorts(peers: readonly RemoteNode[]): Map<string, RemoteNode> {
  return new Map(peers.map((p) => [ipsecTunnelPortName(p.name), p]));
}

/**
 * Keeps one tunnel port per peer on the bridge: creates or updates the ports of the given peers,
 * deletes the per-peer ports of Nodes that are gone (also those a previous run left), and returns
 * the peers with their port's ofport for the pipeline.
 */
export class IPsecTunnelPorts {
  constructor(
    private readonly o: { vswitch: VSwitch; bridge: string; tunnelType: TunnelType; tunnelPort: number; tunnelCsum: boolean; auth: IPsecAuthentication; logger: Logger; localIP?: string | undefined },
  ) {}

  async sync(peers: readonly RemoteNode[]): Promise<RemoteNode[]> {
    const { vswitch: vs, bridge } = this.o;
    const desired = desiredIPsecPorts(peers);
    for (const port of await vs.findPortsByExternalIds({ [IPSEC_EXTERNAL_IDS.type]: IPSEC_TUNNEL_TYPE })) {
      if (!desired.has(port.name)) {
        await vs.deletePort(bridge, port.name);
        this.o.logger.info({ port: port.name, node: port.externalIds.get(IPSEC_EXTERNAL_IDS.nodeName) }, 'IPsec tunnel port of a gone Node removed');
      }
    }
    const out: RemoteNode[] = [];
    for (const [name, peer] of desired) {
      const { created } = await vs.ensurePort(bridge, name, {
        type: this.o.tunnelType,
        options: ipsecTunnelOptions({ ...this.o, remoteIP: peer.nodeIP, remoteName: peer.name }),
        externalIds: ipsecExternalIds(peer.name),
      });
      if (created) this.o.logger.info({ port: name, node: peer.name, remoteIP: peer.nodeIP }, 'IPsec tunnel port created');
      out.push({ ...peer, ipsecTunnelOfport: await vs.waitForOfport(name) });
    }
    return out;
  }
}
