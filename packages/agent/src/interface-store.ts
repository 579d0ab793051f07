/**
 * The pod interface store: one entry per attached container, mirrored in the OVS port's
 * external_ids so it can be rebuilt from OVSDB when the agent restarts.
 */
import { ops, unwrap, type OvsdbClient } from '@switchyard/ovsdb';

/** A pod's interface as the agent set it up. */
export interface PodInterface {
  containerId: string;
  podName: string;
  podNamespace: string;
  /** CNI_IFNAME inside the pod. */
  ifname: string;
  /** CNI_NETNS path. */
  netns: string;
  /** Host side of the veth (also the OVS port name). */
  hostIfName: string;
  /** IPv4 address with prefix length; on an IPv6-only node the pod's one address, IPv6 (and `gateway` IPv6; no `ipv6`). */
  ipCidr: string;
  gateway: string;
  /** Dual-stack: the IPv6 address with prefix length and its gateway (the node gateway's IPv6 address). */
  ipv6?: { ipCidr: string; gateway: string };
  mac: string;
  mtu: number;
  ofport: number;
  /** The IPPool the address came from (AntreaIPAM); absent for a pod-CIDR address. */
  ipPool?: string;
}

/** external_ids keys (Antrea's names where Antrea has one). */
export const EXTERNAL_IDS = {
  type: 'antrea-type',
  containerId: 'container-id',
  podName: 'pod-name',
  podNamespace: 'pod-namespace',
  ip: 'ip-address',
  mac: 'attached-mac',
  netns: 'netns',
  ifname: 'if-name',
  gateway: 'gateway-ip',
  mtu: 'mtu',
  ipPool: 'ippool',
} as const;

/** Port external_ids describing a pod interface. */
export function podExternalIds(p: PodInterface): Record<string, string> {
  return {
    [EXTERNAL_IDS.type]: 'container',
    [EXTERNAL_IDS.containerId]: p.containerId,
    [EXTERNAL_IDS.podName]: p.podName,
    [EXTERNAL_IDS.podNamespace]: p.podNamespace,
    // Dual-stack as Antrea writes it: both addresses (and gateways) comma-separated, IPv4 first.
    [EXTERNAL_IDS.ip]: p.ipv6 ? `${p.ipCidr},${p.ipv6.ipCidr}` : p.ipCidr,
    [EXTERNAL_IDS.mac]: p.mac,
    [EXTERNAL_IDS.netns]: p.netns,
    [EXTERNAL_IDS.ifname]: p.ifname,
    [EXTERNAL_IDS.gateway]: p.ipv6 ? `${p.gateway},${p.ipv6.gateway}` : p.gateway,
    [EXTERNAL_IDS.mtu]: String(p.mtu),
    ...(p.ipPool !== undefined ? { [EXTERNAL_IDS.ipPool]: p.ipPool } : {}),
  };
}

/** A pod port read back from OVSDB; `ofport` -1 when vswitchd could not attach it. */
export interface StoredPort {
  portName: string;
  iface: PodInterface | undefined;
  ofport: number;
}

/** Reads every container port with its interface's ofport (one transaction). */
export async function readPodPorts(client: OvsdbClient): Promise<StoredPort[]> {
  const r = unwrap(
    await client.transact('Open_vSwitch', [
      ops.select('Port', [['external_ids', 'includes', new Map([[EXTERNAL_IDS.type, 'container']])]], ['name', 'external_ids']),
      ops.select('Interface', [], ['name', 'ofport']),
    ]),
  );
  const [portRes, ifRes] = r.results;
  const ofports = new Map<string, number>();
  if (ifRes?.op === 'select') for (const row of ifRes.rows) ofports.set(row.name as string, (row.ofport as number | null) ?? -1);
  const out: StoredPort[] = [];
  if (portRes?.op !== 'select') return out;
  for (const row of portRes.rows) {
    const name = row.name as string;
    const ids = row.external_ids as ReadonlyMap<string, string>;
    const ofport = ofports.get(name) ?? -1;
    const get = (k: string): string | undefined => ids.get(k);
    const containerId = get(EXTERNAL_IDS.containerId);
    const podName = get(EXTERNAL_IDS.podName);
    const podNamespace = get(EXTERNAL_IDS.podNamespace);
    const [ipCidr, ipv6Cidr] = (get(EXTERNAL_IDS.ip) ?? '').split(',');
    const mac = get(EXTERNAL_IDS.mac);
    const netns = get(EXTERNAL_IDS.netns);
    const [gateway, gatewayV6] = (get(EXTERNAL_IDS.gateway) ?? '').split(',');
    const complete = containerId && podName && podNamespace && ipCidr && mac && netns && gateway;
    out.push({
      portName: name,
      ofport,
      iface: complete
        ? {
            containerId,
            podName,
            podNamespace,
            ifname: get(EXTERNAL_IDS.ifname) ?? 'eth0',
            netns,
            hostIfName: name,
            ipCidr,
            gateway,
            ...(ipv6Cidr && gatewayV6 ? { ipv6: { ipCidr: ipv6Cidr, gateway: gatewayV6 } } : {}),
            mac,
            mtu: Number(get(EXTERNAL_IDS.mtu) ?? 1450),
            ofport,
            ...(get(EXTERNAL_IDS.ipPool) !== undefined ? { ipPool: get(EXTERNAL_IDS.ipPool) as string } : {}),
          }
        : undefined,
    });
  }
  return out;
}

/** In-memory index of pod interfaces by container id. */
export class InterfaceStore {
  private readonly byContainer = new Map<string, PodInterface>();

  get(containerId: string): PodInterface | undefined {
    return this.byContainer.get(containerId);
  }

  set(p: PodInterface): void {
    this.byContainer.set(p.containerId, p);
  }

  delete(containerId: string): boolean {
    return this.byContainer.delete(containerId);
  }

  list(): PodInterface[] {
    return [...this.byContainer.values()];
  }

  get size(): number {
    return this.byContainer.size;
  }
}
