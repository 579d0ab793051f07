/**
 * The Egress part (with a Kubernetes API, the `egress` option and AntreaProxy): watches Egresses
 * and the Nodes, and the controller's Egress groups (the members, computed there: no Pod or
 * Namespace watch here), follows where the external IP part places each Egress IP
 * (one ownership mechanism with LoadBalancer IPs), and keeps the pipeline's Egress slice equal to
 * what applies here: the owner SNATs the members' traffic, the other nodes tunnel theirs to it. On
 * every node the Egress IPs are routed into the gateway (replies reach OVS, and the owner's proxy
 * ARP answers for them). The owner writes the Egress's status (egressNode, egressIP, IPAssigned).
 * An Egress IP without a pool (manual mode), IPv4 or IPv6, is owned by the node holding it as a local
 * address; its owner SNATs through a stand-in address and one host rule (manual-snat.ts).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { ControlplaneClient, PolicyView } from '@switchyard/controlplane-client';
import { dirname, join } from 'node:path';
import type { controlplane } from '@switchyard/apis';
import type { Condition, Egress } from '@switchyard/apis/types';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { Informer, KubeRequestError, type KubeClient } from '@switchyard/kube';
import { VIRTUAL_SERVICE_IP, VIRTUAL_SERVICE_IPV6, type EgressSpec } from '@switchyard/openflow-pipeline';
import { Reconciler, systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { NODES } from '../../kube-resources';
import { EGRESS_ROUTE_PROTO } from '../../netops';
import { EGRESSES } from '../external-ip/part';
import type { ServiceExternalIPPart } from '../external-ip/part';
import type { Assignment } from '../external-ip/ownership';
import type { NodeDatapath } from '../node/part';
import { nodeFacts, tunnelIPOf } from '../routes/node-routes';
import { egressMeters, meterConfig, readRecordedMeters, withMeters, type EgressBandwidth } from './bandwidth';
import { egressMarks, egressMembersFromGroups, egressRules, placementKey, type EgressPlacement, type EgressProblem } from './rules';
import { manualStandIn, syncManualSnat, type ManualSnat } from './manual-snat';
const CONFLICT_ATTEMPTS = 10;
/** The Egress slice last handed to the pipeline: a restarted agent's first round keeps it (its flows are adopted, not replaced). */
export const egressSpecFile = (dataDir: string): string => join(dataDir, 'egress', 'spec.json');

function readSpec(dataDir: string): EgressSpec | undefined {
  const file = egressSpecFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as Partial<EgressSpec>;
    return Array.isArray(s.exceptCIDRs) && Array.isArray(s.egresses) ? { exceptCIDRs: s.exceptCIDRs, egresses: s.egresses } : undefined;
  } catch {
    return undefined; // an unreadable record is no record: the first sync computes the slice again
  }
}
/** A Node's IPv6 addresses (`status.addresses`, any type but Hostname). */
function nodeIPv6Addresses(n: { status?: { addresses?: { type?: string; address?: string }[] } }): string[] {
  return (n.status?.addresses ?? []).flatMap((a) => (a.type !== 'Hostname' && a.address?.includes(':') ? [a.address] : []));
}
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The members of every Egress, as the controller computes them. */
export interface EgressGroupSource {
  /** Resolves once the first whole list is in (the part computes nothing before). */
  readonly synced: Promise<void>;
  groups(): controlplane.EgressGroup[];
  /** Whether the stream is up now (health). */
  connected(): boolean;
  stop(): Promise<void>;
}

/**
 * The controller's `egressgroups` watch (docs/controller.md): its own stream beside the policies',
 * an initial list then patches, resumed after a disconnect. Undefined without a controller.
 */
export function controllerEgressGroups(ctx: AgentContext, onChange: () => void): EgressGroupSource | undefined {
  const { options: o, log } = ctx;
  const cp = o.controlplane;
  if (!cp) return undefined;
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const client = new ControlplaneClient({
    url: cp.url,
    nodeName: o.nodeName,
    resource: 'egressgroups',
    view: new PolicyView(),
    ...(cp.caPem !== undefined ? { caPem: cp.caPem } : {}),
    ...(cp.serverName !== undefined ? { serverName: cp.serverName } : {}),
    ...(cp.backoff !== undefined ? { backoff: cp.backoff } : {}),
    ...(cp.tokenFile !== undefined ? { token: () => readFileSync(cp.tokenFile!, 'utf8').trim() } : cp.token !== undefined ? { token: cp.token } : {}),
    logger: log,
    onChange: () => {
      // The initial list is swapped in whole at its BOOKMARK: a change, with the view synced.
      if (client.view.synced) markSynced();
      onChange();
    },
  });
  client.start();
  return {
    synced,
    groups: () => client.view.egressGroups(),
    connected: () => client.connected,
    stop: () => client.stop(),
  };
}

export class EgressPart implements Part {
  readonly name = 'egress';
  private informers: Informer[] = [];
  private reconciler: Reconciler | undefined;
  /** By {@link placementKey}: the Egress's name for its IPv4 IP, `<name>/IPv6` for its IPv6 one. */
  private placements = new Map<string, EgressPlacement>();
  private marks = new Map<string, number>();
  private lastRoutes = '';
  private lastRoutes6 = '';
  /** The slice last handed to the pipeline. */
  spec: EgressSpec = { exceptCIDRs: [], egresses: [] };
  /** The controller's Egress groups (its `egressgroups` watch); absent without a controller. */
  groups: EgressGroupSource | undefined;
  /** Status last written per Egress (`node|ip`), so a pass writes only what changed. */
  private readonly written = new Map<string, string>();
  /** The bandwidth meters of the Egresses SNATed here, by id (the mark), as installed (EgressTrafficShaping). */
  meters = new Map<number, EgressBandwidth>();
  /** Egress IPs of a family this node has no pods of (left out). */
  familyProblems: EgressProblem[] = [];
  /** Bandwidths left out (a value OVS cannot take, or the gate off). */
  bandwidthProblems: EgressProblem[] = [];
  /** What the record last said (slice and meters), so a pass writes it only when it changed. */
  private recorded = '';
  /**
   * Every watch has listed and the external IP part has placed the IPs once: until then a pass
   * would compute from partial caches and take away the flows and meters a restart adopted.
   */
  private informersSynced = false;
  private placedOnce = false;
  /** The placements and the IPs taken as last told (a pass runs when either changes). */
  private assignedKey = '';
  /** The Egress IPs without a pool (manual mode) as last told, and the nodes holding each when several do. */
  private manualIPs = new Set<string>();
  private manualDuplicates = new Map<string, string[]>();
  /** The host SNAT rules of the manual IPs owned here, as last made, per family. */
  private readonly lastManualSnat = new Map<4 | 6, string>();

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows' | 'onSwitchRestart' | 'meters'>,
    // `owned`: the IPs this node answers ARP for; the status names this node only once it does (absent: as soon as it owns one).
    private readonly externalIP: Pick<ServiceExternalIPPart, 'onAssigned'> & Partial<Pick<ServiceExternalIPPart, 'owned'>>,
    /** Where the members come from (default: the controller's `egressgroups` watch, {@link controllerEgressGroups}). */
    private readonly groupSource?: (ctx: AgentContext, onChange: () => void) => EgressGroupSource | undefined,
  ) {}

  /** Primes the slice of the last run, so a restart replaces no Egress flow; the watches correct it at sync. */
  async start(): Promise<void> {
    const saved = readSpec(this.ctx.options.dataDir);
    if (!saved) return;
    // The meters the saved flows name, before the node part installs or adopts those flows.
    this.meters = readRecordedMeters(egressSpecFile(this.ctx.options.dataDir));
    for (const [id, b] of this.meters) await this.node.meters.adopt(id, meterConfig(b));
    this.node.flows.prime('egress', saved);
    this.spec = saved;
    // The marks (and so the meter ids) of the last run: an IP still owned keeps its mark, its flows and its meter.
    this.marks = new Map(saved.egresses.flatMap((r) => (r.local && r.mark !== undefined ? [[r.ip, r.mark] as const] : [])));
    this.recorded = JSON.stringify({ ...saved, meters: [...this.meters] });
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    const clock = o.clock ?? systemClock;
    this.reconciler = new Reconciler(() => this.apply(), { clock, onError: (err, retryInMs) => log.error({ err, retryInMs }, 'Egress not applied') });
    const changed = (): void => this.reconciler?.schedule();
    this.informers = [
      new Informer(this.kube, EGRESSES, changed, { clock, logger: log }),
      new Informer(this.kube, NODES, changed, { clock, logger: log }),
    ];
    for (const i of this.informers) i.start();
    // The members: the controller's Egress groups, kept by their own watch (initial list, then patches).
    this.groups = (this.groupSource ?? controllerEgressGroups)(this.ctx, changed);
    if (!this.groups) log.warn({}, 'Egress: no controller configured, so no Egress groups: Egresses have no members on this node');
    const groupsSynced = this.groups?.synced ?? Promise.resolve();
    void Promise.all([...this.informers.map((i) => i.synced), groupsSynced]).then(() => {
      this.informersSynced = true;
      this.reconciler?.schedule();
    });
    this.externalIP.onAssigned((a) => this.onAssigned(a));
    // A restarted ovs-vswitchd took the gateway's routes with its tap device.
    this.node.onSwitchRestart(async () => {
      this.lastRoutes = '';
      this.lastRoutes6 = '';
      this.reconciler?.schedule();
    });
  }

  private onAssigned(assignments: readonly Assignment[]): void {
    const next = new Map<string, EgressPlacement>();
    const owned = this.externalIP.owned ?? [];
    for (const a of assignments) {
      // A manual IP is SNATed here only once taken (after the node that held it before let go): never two nodes at once.
      const owner = a.manual && a.owner === this.ctx.options.nodeName && this.externalIP.owned !== undefined && !owned.includes(a.ip) ? undefined : a.owner;
      for (const e of a.egresses ?? []) next.set(placementKey(e, a.ip), { ip: a.ip, ...(owner !== undefined ? { owner } : {}) });
    }
    this.manualIPs = new Set(assignments.filter((a) => a.manual).map((a) => a.ip));
    const duplicates = new Map(assignments.flatMap((a) => (a.manual && a.holders ? [[a.ip, a.holders] as const] : [])));
    for (const [ip, nodes] of duplicates) if (this.manualDuplicates.get(ip)?.join() !== nodes.join()) this.ctx.log.warn({ ip, nodes, egressNode: nodes[0] }, 'an Egress IP without a pool is a local address of several nodes: the first by name is the egress node; take it off the others');
    this.manualDuplicates = duplicates;
    // The IPs taken count too: a new owner that waits for the old one to let go takes its IP later, and says so then.
    const key = JSON.stringify([[...next], owned, [...this.manualIPs]]);
    if (this.placedOnce && key === this.assignedKey) return;
    this.placedOnce = true;
    this.assignedKey = key;
    this.placements = next;
    this.reconciler?.schedule();
  }

  /** Resolves once every change seen so far is applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler?.idle() ?? Promise.resolve();
  }

  private async apply(): Promise<void> {
    if (!this.informersSynced || !this.placedOnce) return;
    const { options: o } = this.ctx;
    const [egInf, nodeInf] = this.informers;
    const egresses = [...egInf!.cache.values()] as unknown as Egress[];
    const nodes = [...nodeInf!.cache.values()].map(nodeFacts);
    // Each Node's address as this node's tunnel reaches it (IPv4; IPv6 on an IPv6 underlay): where members are tunnelled to their Egress IP's owner.
    const self = { podCIDR: this.ctx.podCIDR, nodeIP: o.nodeIP };
    const nodeIPs = new Map(nodes.flatMap((n) => {
      const ip = tunnelIPOf(n, self);
      return ip !== undefined ? [[n.name, ip] as const] : [];
    }));
    // The controller decided the members (the older of two Egresses keeps a pod both select); an Egress whose IP is not placed here has no rule.
    const members = egressMembersFromGroups(this.groups?.groups() ?? []);
    const owned = [...this.placements.values()].filter((p) => p.owner === o.nodeName).map((p) => p.ip);
    this.marks = egressMarks(this.marks, owned);
    // An owned manual IP is a local address here: OVS SNATs to its mark's stand-in, the host to the IP (manual-snat.ts).
    // An IP of a family this node has no pods of (an IPv4 one on an IPv6-only node, an IPv6 one on an IPv4-only node) applies to no pod here: left out, and said in the health.
    const hasFamily = (ip: string): boolean => (ip.includes(':') ? this.ctx.podCIDRv6 !== undefined : this.ctx.podCIDR !== undefined);
    const allRules = egressRules({ nodeName: o.nodeName, members, placements: this.placements, nodeIPs, marks: this.marks });
    this.familyProblems = allRules.filter((r) => !hasFamily(r.ip)).map((r) => ({ egress: r.name, message: `${r.ip} is an IPv${r.ip.includes(':') ? 6 : 4} egress IP and this node has no IPv${r.ip.includes(':') ? 6 : 4} pod CIDR: not realized here` }));
    const plainRules = allRules.filter((r) => hasFamily(r.ip)).map((r) =>
      r.local && r.mark !== undefined && this.manualIPs.has(r.ip) ? { ...r, snatIP: manualStandIn(r.mark, r.ip.includes(':') ? 6 : 4) } : r,
    );
    const manualSnat: ManualSnat[] = plainRules.flatMap((r) => (r.snatIP !== undefined ? [{ standIn: r.snatIP, ip: r.ip }] : []));
    // Bandwidth (EgressTrafficShaping): one meter per Egress SNATed here, in before the flows naming it.
    const shaped = o.egressTrafficShaping ? egressMeters(plainRules, egresses) : { meters: new Map<number, EgressBandwidth>(), problems: [] };
    this.bandwidthProblems = [
      ...shaped.problems,
      ...(o.egressTrafficShaping ? [] : plainRules.filter((r) => r.local && egresses.some((e) => e.metadata.name === r.name && e.spec?.bandwidth)).map((r) => ({ egress: r.name, message: 'spec.bandwidth is ignored: the EgressTrafficShaping feature gate is off' }))),
    ];
    for (const [id, b] of [...shaped.meters]) {
      try {
        await this.node.meters.set(id, meterConfig(b));
      } catch (err) {
        // A switch without meters (an old kernel datapath) or refusing this one: the Egress still SNATs, unlimited.
        shaped.meters.delete(id);
        const name = plainRules.find((r) => r.mark === id)?.name ?? '';
        this.bandwidthProblems.push({ egress: name, message: `spec.bandwidth: the switch refused meter ${id} (${(err as Error).message}); the Egress is not limited` });
      }
    }
    const egressRulesNow = withMeters(plainRules, shaped.meters);
    // Only diverted traffic meets the exceptions: without Egress rules they would be flows for nothing.
    // With an IPv6 Egress IP, the nodes' IPv6 addresses too (an IPv4-only cluster's slice is as before).
    const nodeIPv6s = egressRulesNow.some((r) => r.ip.includes(':')) ? [...nodeInf!.cache.values()].flatMap((n) => nodeIPv6Addresses(n as never)).map((ip) => `${ip}/128`) : [];
    // The nodes' IPv4 addresses on a node with IPv4 pods (an IPv6-only node names no IPv4 address in its flows).
    const nodeIPv4s = this.ctx.podCIDR !== undefined ? [...nodeIPs.values(), o.nodeIP].map((ip) => `${ip}/32`) : [];
    const exceptCIDRs = egressRulesNow.length === 0 ? [] : [...new Set([...nodeIPv4s, ...nodeIPv6s, ...o.egressExceptCIDRs.filter((c) => hasFamily(c.split('/')[0] ?? c))])].sort();
    await this.syncRoutes([...new Set([...[...this.placements.values()].map((p) => p.ip), ...manualSnat.map((m) => m.standIn)])].sort());
    // The host rules before the flows that SNAT to the stand-in (a packet with no rule would leave from the stand-in).
    // Per family: iptables for IPv4, ip6tables for IPv6; a family never used is never touched.
    for (const family of [4, 6] as const) {
      const rules = manualSnat.filter((m) => m.ip.includes(':') === (family === 6));
      const snatKey = JSON.stringify(rules);
      const last = this.lastManualSnat.get(family);
      if (snatKey === last || (rules.length === 0 && last === undefined)) continue;
      await syncManualSnat(this.ctx.net, rules, family);
      this.lastManualSnat.set(family, snatKey);
    }
    const spec: EgressSpec = { exceptCIDRs, egresses: egressRulesNow };
    if (JSON.stringify(spec) !== JSON.stringify(this.spec)) {
      await this.node.flows.set('egress', spec);
      this.spec = spec;
      this.ctx.log.info({ egresses: egressRulesNow.map((r) => `${r.name} ${r.ip} ${r.local ? `SNAT here (mark ${r.mark ?? '-'}${r.meter !== undefined ? `, meter ${r.meter}` : ''})` : `via ${r.ownerIP ?? 'no owner'}`}: ${r.localPods.length} local, ${r.remotePods.length} remote pods`) }, 'Egress realized');
    }
    // A meter no flow names any more goes after its flows.
    for (const id of this.meters.keys()) if (!shaped.meters.has(id)) await this.node.meters.delete(id);
    this.meters = shaped.meters;
    // The record: the slice, and the meters its flows name (a restarted agent adopts both).
    const record = JSON.stringify({ ...spec, meters: [...this.meters] });
    if (record !== this.recorded) {
      const file = egressSpecFile(o.dataDir);
      mkdirSync(dirname(file), { recursive: true });
      writeFileDurableSync(file, `${record}\n`, { mode: 0o600 });
      this.recorded = record;
    }
    for (const eg of egresses) {
      const name = eg.metadata.name ?? '';
      // The status names one IP: the IPv4 one of a dual-stack Egress (its owner writes it), else the IPv6 one.
      const placed = this.placements.get(name) ?? this.placements.get(`${name}/IPv6`);
      const manual = placed !== undefined && this.manualIPs.has(placed.ip);
      if (placed?.owner === o.nodeName && this.marks.has(placed.ip) && (this.externalIP.owned?.includes(placed.ip) ?? true)) await this.writeStatus(eg, placed.ip, manual);
      // A manual IP no node may take over from this one: the node named in the status clears it when it no longer holds the IP.
      else if (manual && eg.status?.egressNode === o.nodeName && placed.owner !== o.nodeName) await this.clearStatus(eg);
    }
  }

  /**
   * `<ip>/32 via 169.254.0.253 dev <gateway> onlink` for every IPv4 Egress IP, `<ip>/128 via
   * fc01::aabb:ccdd:eeff dev <gateway> onlink` for every IPv6 one: replies go into OVS, and proxy ARP
   * (proxy NDP) answers on the owner. The IPv6 routes are written once there is one (and then kept
   * equal to the IPv6 IPs, none included), so an IPv4-only node never reads the IPv6 table.
   */
  private async syncRoutes(ips: readonly string[]): Promise<void> {
    const { gatewayName } = this.ctx.options;
    const routes = ips.filter((ip) => !ip.includes(':')).map((ip) => ({ dst: `${ip}/32`, via: VIRTUAL_SERVICE_IP, dev: gatewayName, onlink: true }));
    const key = JSON.stringify(routes);
    if (key !== this.lastRoutes) {
      await this.ctx.net.syncRoutes(routes, EGRESS_ROUTE_PROTO);
      this.lastRoutes = key;
    }
    const routes6 = ips.filter((ip) => ip.includes(':')).map((ip) => ({ dst: `${ip}/128`, via: VIRTUAL_SERVICE_IPV6, dev: gatewayName, onlink: true }));
    const key6 = JSON.stringify(routes6);
    if (key6 === this.lastRoutes6 || (routes6.length === 0 && this.lastRoutes6 === '')) return;
    await this.ctx.net.syncIpv6Routes(routes6, undefined, EGRESS_ROUTE_PROTO);
    this.lastRoutes6 = key6;
  }

  /**
   * status.egressNode and status.egressIP of a manual Egress whose IP this node no longer holds (only
   * while they still name this node: the new holder may have written its own already).
   */
  /**
   * Read, modify, write of an Egress's status on its resourceVersion, again on 409 (up to
   * CONFLICT_ATTEMPTS). `edit` gets the fresh object and returns the status to write, or undefined
   * when nothing is to be written. True when a status was written; false when there was nothing to
   * write or the Egress is gone.
   */
  private async updateStatus(name: string, edit: (fresh: Egress) => Egress['status'] | undefined): Promise<boolean> {
    const path = `/apis/crd.antrea.io/v1beta1/egresses/${encodeURIComponent(name)}`;
    for (let i = 0; ; i++) {
      let fresh: Egress;
      try {
        fresh = await this.kube.request<Egress>('GET', path);
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return false;
        throw e;
      }
      const status = edit(fresh);
      if (status === undefined) return false;
      try {
        await this.kube.request('PUT', `${path}/status`, { ...fresh, status });
        return true;
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  /** Takes this node out of the status of a manual Egress whose IP it holds no more. */
  private async clearStatus(eg: Egress): Promise<void> {
    const name = eg.metadata.name ?? '';
    const { nodeName } = this.ctx.options;
    const cleared = await this.updateStatus(name, (fresh) => {
      if (fresh.status?.egressNode !== nodeName) return undefined;
      const { egressNode: _n, egressIP: _i, ...rest } = fresh.status;
      return rest;
    });
    if (!cleared) return;
    this.written.delete(name);
    this.ctx.log.info({ egress: name }, 'Egress IP without a pool no longer held here: status cleared');
  }

  /**
   * status.egressNode, status.egressIP and IPAssigned=True, written by the owner (read-modify-write,
   * again on 409). A manual IP (no pool) gets no IPAssigned condition, as Antrea's agent writes none
   * for it (one left from a pool is removed).
   */
  private async writeStatus(eg: Egress, ip: string, manual = false): Promise<void> {
    const name = eg.metadata.name ?? '';
    const { nodeName } = this.ctx.options;
    const said = `${eg.metadata.uid ?? ''}|${nodeName}|${ip}|${manual ? 'manual' : 'pool'}`;
    if (this.written.get(name) === said && eg.status?.egressNode === nodeName && eg.status.egressIP === ip) return;
    const now = rfc3339((this.ctx.options.clock ?? systemClock).now());
    let gone = true;
    await this.updateStatus(name, (fresh) => {
      gone = false;
      const conditions = fresh.status?.conditions ?? [];
      const old = conditions.find((c) => c.type === 'IPAssigned');
      const message = `${ip} is assigned to Node ${nodeName}`;
      const conditionDone = manual ? old === undefined : old?.status === 'True' && old.message === message;
      if (fresh.status?.egressNode === nodeName && fresh.status.egressIP === ip && conditionDone) return undefined;
      const cond: Condition = { type: 'IPAssigned', status: 'True', reason: 'Assigned', message, lastTransitionTime: old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : now };
      return { ...fresh.status, egressNode: nodeName, egressIP: ip, conditions: [...conditions.filter((c) => c.type !== 'IPAssigned'), ...(manual ? [] : [cond])] };
    });
    // Written, or already as wanted: remembered. The Egress gone: nothing to remember.
    if (!gone) this.written.set(name, said);
  }

  async stop(): Promise<void> {
    await this.reconciler?.stop();
    await this.groups?.stop();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  health(): PartHealth {
    if (!this.reconciler) return { ok: true, detail: 'not started' };
    const rules = this.spec.egresses;
    const detail = [
      `${rules.length} Egresses, SNAT here for ${rules.filter((r) => r.local).map((r) => `${r.name} (${r.ip})`).join(', ') || 'none'}`,
      ...(this.groups ? [`${this.groups.groups().length} Egress groups from the controller${this.groups.connected() ? '' : ' (stream down)'}`] : ['no controller: no members']),
      ...(this.manualDuplicates.size ? [`Egress IPs without a pool on several nodes: ${[...this.manualDuplicates].map(([ip, nodes]) => `${ip} is a local address of ${nodes.join(' and ')}; ${nodes[0] ?? ''} (the first by name) is the egress node, take it off the others`).join('; ')}`] : []),
      ...(this.meters.size ? [`bandwidth meters ${[...this.meters].map(([id, b]) => `${id} (${b.rateKbps} kbit/s, burst ${b.burstKbit} kbit)`).join(', ')}`] : []),
      ...(this.familyProblems.length ? [`not realized here: ${this.familyProblems.map((p) => `Egress ${p.egress}: ${p.message}`).join('; ')}`] : []),
      ...(this.bandwidthProblems.length ? [`bandwidth: ${this.bandwidthProblems.map((p) => `Egress ${p.egress}: ${p.message}`).join('; ')}`] : []),
    ].join('; ');
    if (this.reconciler.failing) return { ok: false, detail: `${detail}; last apply failed: ${String(this.reconciler.lastError)}` };
    return { ok: true, detail };
  }
}
