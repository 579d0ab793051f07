/**
 * The external IP part's sink with EgressSeparateSubnet on: an Egress IP whose pool has
 * `subnetInfo` is taken through its subnet (the VLAN sub-interface or the transport device, the
 * subnet's route table and the IP's source rule, then the proxy entry and gratuitous ARP on that
 * link); every other IP goes to the plain proxy-ARP sink as before. What it set up is recorded
 * under the data directory, so a restarted agent adopts it (changes nothing that is right) and
 * `--uninstall` removes it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { Logger } from '@switchyard/runtime';
import { AgentError } from '../../errors';
import { ipv4Of } from '../../ipv4';
import { ipv6Of } from '../../ipv6';
import type { ExternalIPSink } from '../external-ip/controller';
import { assignTables, desiredHostState, planSubnetSync, subnetKey, subnetLink, type EgressSubnet, type SubnetIP, type SubnetProblem } from './subnet';
import type { SubnetHostOps } from './subnet-host';

/** The record of the subnets in use: `{ dev, ips: [{ ip, subnet }], tables: { <subnetKey>: <table> } }`. */
export const subnetsFile = (dataDir: string): string => join(dataDir, 'egress', 'subnets.json');

export interface SubnetRecord {
  /** The transport device the VLAN links hang off. */
  dev: string;
  ips: SubnetIP[];
  tables: Record<string, number>;
}

const isSubnet = (s: unknown): s is EgressSubnet => {
  const x = s as Partial<EgressSubnet> | undefined;
  return typeof x?.gateway === 'string' && typeof x.prefixLength === 'number' && typeof x.vlan === 'number';
};

/** The record a previous run left, or none (a missing or unreadable file is no record). */
export function readSubnets(dataDir: string): SubnetRecord | undefined {
  const file = subnetsFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<SubnetRecord>;
    if (typeof r.dev !== 'string' || !Array.isArray(r.ips)) return undefined;
    const tables = Object.fromEntries(Object.entries(r.tables ?? {}).filter(([, t]) => typeof t === 'number'));
    return { dev: r.dev, ips: r.ips.filter((x) => (ipv4Of(x?.ip) !== undefined || ipv6Of(x?.ip) !== undefined) && isSubnet(x.subnet)), tables };
  } catch {
    return undefined;
  }
}

function writeSubnets(dataDir: string, record: SubnetRecord): void {
  const file = subnetsFile(dataDir);
  if (record.ips.length === 0) return void rmSync(file, { force: true });
  mkdirSync(dirname(file), { recursive: true });
  writeFileDurableSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** Takes every Egress subnet off the node: rules, table routes, VLAN links (their addresses and proxy entries go with them); then the record. */
export async function clearSubnets(host: SubnetHostOps, dev: string, dataDir: string): Promise<number> {
  const steps = planSubnetSync(await host.read(dev), { links: [], addresses: [], localRoutes: [], routes: [], rules: [] });
  await host.apply(steps, dev);
  rmSync(subnetsFile(dataDir), { force: true });
  return steps.length;
}

/** What the pool says of an IP's subnet: none (a plain IP), the subnet, or why it cannot be used. */
export type SubnetLookup = { subnet?: EgressSubnet; problem?: SubnetProblem } | undefined;

export interface SubnetAnnouncerOptions {
  /** The transport device (br-phy in the lab). */
  dev: string;
  dataDir: string;
  /** The proxy-ARP sink of the transport device: IPs without a subnet. */
  plain: ExternalIPSink;
  /** A proxy-ARP sink on another link (a VLAN link, or the transport device itself). */
  proxyOn: (dev: string) => ExternalIPSink;
  host: SubnetHostOps;
  /** The subnet of an IP this node is about to take: from its Egress's pool (undefined for a Service IP). */
  subnetOf: (ip: string) => SubnetLookup;
  logger: Logger;
}

export class SubnetAnnouncer implements ExternalIPSink {
  /** IPs taken through a subnet, with that subnet. */
  private readonly owned = new Map<string, EgressSubnet>();
  private tables = new Map<string, number>();
  /** IPs whose pool's subnetInfo could not be used (taken plainly), with why. */
  readonly problems = new Map<string, SubnetProblem>();

  constructor(private readonly o: SubnetAnnouncerOptions) {
    const record = readSubnets(o.dataDir);
    if (record?.dev === o.dev) {
      for (const x of record.ips) this.owned.set(x.ip, x.subnet);
      this.tables = new Map(Object.entries(record.tables));
    }
  }

  /** The IPs taken through a subnet, with their link and table (health, tests). */
  placements(): { ip: string; subnet: EgressSubnet; link: string; table: number | undefined }[] {
    return [...this.owned].map(([ip, subnet]) => ({ ip, subnet, link: subnetLink(subnet, this.o.dev), table: this.tables.get(subnetKey(subnet)) }));
  }

  async take(ip: string): Promise<void> {
    const found = this.o.subnetOf(ip);
    if (found?.problem) {
      if (this.problems.get(ip)?.message !== found.problem.message) this.o.logger.warn({ ip, ...found.problem }, 'Egress subnet not usable: the IP is announced on the transport device');
      this.problems.set(ip, found.problem);
    } else this.problems.delete(ip);
    const subnet = found?.subnet;
    const prev = this.owned.get(ip);
    if (!subnet) {
      if (prev) await this.drop(ip, prev);
      await this.o.plain.take(ip);
      return;
    }
    if (prev && subnetKey(prev) !== subnetKey(subnet)) await this.drop(ip, prev);
    // A VLAN IP is answered in its VLAN only; one announced untagged before (the gate was off) stops being so.
    if (subnet.vlan > 0) await this.o.plain.release(ip);
    this.owned.set(ip, subnet);
    let unplaced: string[];
    try {
      ({ unplaced } = await this.sync());
      if (!unplaced.includes(ip)) await this.o.proxyOn(subnetLink(subnet, this.o.dev)).take(ip);
    } catch (e) {
      // Nothing half made stays (a kernel without 802.1Q refuses the VLAN link); the pass fails naming the subnet, and is retried.
      this.owned.delete(ip);
      await this.sync().catch(() => undefined);
      const field = subnet.vlan > 0 ? 'spec.subnetInfo.vlan' : 'spec.subnetInfo';
      const why = e instanceof Error ? e.message : String(e);
      this.problems.set(ip, { field, value: subnet.vlan > 0 ? subnet.vlan : subnetKey(subnet), message: `not applied on this node: ${why}` });
      throw new AgentError('EXEC_FAILED', `Egress IP ${ip}: ${field} ${subnet.vlan > 0 ? subnet.vlan : subnetKey(subnet)} not applied on ${subnetLink(subnet, this.o.dev)}: ${why}`, ip, field, { cause: e });
    }
    if (unplaced.includes(ip)) {
      this.owned.delete(ip);
      this.problems.set(ip, { field: 'spec.subnetInfo', value: subnetKey(subnet), message: 'no Egress route table left (101..120: 20 subnets per node)' });
      await this.sync();
      await this.o.plain.take(ip);
      return;
    }
    this.o.logger.info({ ip, link: subnetLink(subnet, this.o.dev), table: this.tables.get(subnetKey(subnet)), gateway: subnet.gateway, vlan: subnet.vlan }, 'Egress IP taken through its subnet');
  }

  async release(ip: string): Promise<void> {
    this.problems.delete(ip);
    const prev = this.owned.get(ip);
    if (!prev) return this.o.plain.release(ip);
    await this.drop(ip, prev);
    await this.sync();
  }

  /** Stops answering for `ip` on its subnet's link (before the link may go). */
  private async drop(ip: string, subnet: EgressSubnet): Promise<void> {
    await this.o.proxyOn(subnetLink(subnet, this.o.dev)).release(ip);
    this.owned.delete(ip);
  }

  /** Makes the node's Egress subnets exactly those of the IPs owned, and records them. */
  async sync(): Promise<{ unplaced: string[] }> {
    const ips = [...this.owned].map(([ip, subnet]) => ({ ip, subnet }));
    const { tables, unplaced } = assignTables(ips, this.tables);
    this.tables = tables;
    const want = desiredHostState(ips, tables, this.o.dev);
    const steps = planSubnetSync(await this.o.host.read(this.o.dev), want);
    await this.o.host.apply(steps, this.o.dev);
    if (steps.length) this.o.logger.info({ steps: steps.map((s) => s.op) }, 'Egress subnets applied');
    writeSubnets(this.o.dataDir, { dev: this.o.dev, ips: ips.filter((x) => !unplaced.some((u) => u.ip === x.ip)), tables: Object.fromEntries(tables) });
    return { unplaced: unplaced.map((u) => u.ip) };
  }
}
