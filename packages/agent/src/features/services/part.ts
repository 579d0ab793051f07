/**
 * The services part (AntreaProxy, with a Kubernetes API): watches Services and EndpointSlices and
 * keeps the pipeline's Service ports in line with them. The ones listed at start are primed into
 * the first round, so a restart does not drop the Service groups until the watches catch up.
 */
import { join } from 'node:path';
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { ServiceController, type StaleUdpEndpoint } from './services';
import { DatapathPurger } from '../../flow-sync';
import { CT_ZONE, CT_ZONE_V6, SNAT_CT_ZONE, SNAT_CT_ZONE_V6 } from '@switchyard/openflow-pipeline';
import { ENDPOINT_SLICES, PRIME_LIST_MS, SERVICES, listWithin } from '../../kube-resources';
import type { NodeDatapath } from '../node/part';
import { ServiceHostNetwork } from './host-proxy';
import { NetnsListener } from '../../host-network/netns-listener';
import { SERVICE_ROUTE_PROTO, netnsPath } from '../../netops';
import { isIpv4WithPrefix } from '../../ipv4';
import { isIpv6WithPrefix } from '../../ipv6';
import { AgentError } from '../../errors';

/** The Node label naming its zone (topology-aware routing). */
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** Where the Services part records each Service port's group id (kept across restarts). */
export const serviceGroupIdsFile = (dataDir: string): string => join(dataDir, 'services', 'group-ids.json');

export class ServiceProxy implements Part {
  readonly name = 'services';
  readonly services: ServiceController;
  private informers: Informer[] = [];

  /** Node port rules, routes to external addresses and health-check ports on the host. */
  readonly host: ServiceHostNetwork;
  /** ovs-vswitchd's control socket, for flushing stale UDP connections. */
  private readonly conntrack: DatapathPurger;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows' | 'onSwitchRestart'>,
  ) {
    const o = ctx.options;
    o.nodePortAddresses.forEach((c, i) => {
      if (!isIpv4WithPrefix(c) && !isIpv6WithPrefix(c)) throw new AgentError('INVALID_CONFIG', `antreaProxy.nodePortAddresses[${i}]: ${JSON.stringify(c)} is not an IPv4 or IPv6 CIDR`, c, `antreaProxy.nodePortAddresses[${i}]`);
    });
    const ipv6NodePorts = ctx.podCIDRv6 !== undefined && o.nodeIPv6 !== undefined;
    if (ipv6NodePorts && o.nodePortAddresses.length > 0 && !o.nodePortAddresses.some((c) => c.includes(':'))) {
      ctx.log.warn({ nodePortAddresses: o.nodePortAddresses }, 'antreaProxy.nodePortAddresses has no IPv6 range: no IPv6 node ports are served');
    }
    this.host = new ServiceHostNetwork({
      ops: ctx.net, listener: new NetnsListener(o.nodeNetns === undefined ? undefined : netnsPath(o.nodeNetns)),
      gatewayName: o.gatewayName, nodePortAddresses: o.nodePortAddresses, routeProto: SERVICE_ROUTE_PROTO, proxyAll: o.proxyAll, logger: ctx.log,
      ...(ipv6NodePorts ? { ipv6: true } : {}),
    });
    this.conntrack = new DatapathPurger(o.ovsRunDir);
    this.services = new ServiceController({
      nodeName: o.nodeName, logger: ctx.log, proxyLoadBalancerIPs: o.proxyLoadBalancerIPs, skipServices: o.skipServices, ...(ctx.podCIDRv6 !== undefined ? { ipv6: true } : {}), ...(ctx.podCIDR === undefined && !ctx.policyOnly ? { ipv6Only: true } : {}),
      // IPv6 node ports need an IPv6 address of the node (the host DNATs what it receives there).
      ...(ipv6NodePorts ? { ipv6NodePorts: true } : {}),
      groupIdsFile: serviceGroupIdsFile(o.dataDir),
      sink: { setServices: (s) => node.flows.set('services', s), setHost: (s, h) => this.host.sync(s, h), flushStale: (stale) => this.flushStale(stale) },
      ...(o.clock ? { clock: o.clock } : {}),
    });
  }

  /** The stale UDP endpoints' entries in both Service zones (DNAT, and SNAT for external traffic), of the endpoint's family. */
  private async flushStale(stale: StaleUdpEndpoint[]): Promise<void> {
    for (const s of stale) {
      const v6 = s.endpoint.ip.includes(':');
      const [zone, snatZone, src, dst] = v6 ? [CT_ZONE_V6, SNAT_CT_ZONE_V6, 'ct_ipv6_src', 'ct_ipv6_dst'] : [CT_ZONE, SNAT_CT_ZONE, 'ct_nw_src', 'ct_nw_dst'];
      const reply = `${src}=${s.endpoint.ip},ct_nw_proto=17,ct_tp_src=${s.endpoint.port}`;
      for (const f of s.frontends) await this.conntrack.flushConntrack(zone, `${dst}=${f.ip},ct_nw_proto=17,ct_tp_dst=${f.port}`, reply);
      // External traffic SNATed to it: its reply goes from the endpoint to the SNAT address.
      await this.conntrack.flushConntrack(snatZone, '', reply);
    }
    this.ctx.log.info({ endpoints: stale.map((s) => `${s.endpoint.ip}:${s.endpoint.port}`) }, 'stale UDP Service connections flushed');
  }

  async start(): Promise<void> {
    try {
      // Its zone, for topology hints (a Node without the label: hints are not followed).
      const self = await this.kube.request<{ metadata: { labels?: Record<string, string> } }>('GET', `/api/v1/nodes/${encodeURIComponent(this.ctx.options.nodeName)}`);
      this.services.nodeZone = self.metadata.labels?.[ZONE_LABEL];
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'own Node not read: topology hints are not followed');
    }
    try {
      const [svcs, slices] = await Promise.all([listWithin(this.kube, '/api/v1/services', PRIME_LIST_MS), listWithin(this.kube, '/apis/discovery.k8s.io/v1/endpointslices', PRIME_LIST_MS)]);
      this.node.flows.prime('services', this.services.prime(svcs, slices));
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Services not listed before the first round; they follow from the watch');
    }
  }

  async sync(): Promise<void> {
    const clock = this.ctx.options.clock ?? systemClock;
    const logger = this.ctx.log;
    // The primed Services' host part (their flows went in with the first round).
    try {
      await this.host.sync(this.services.specs, this.services.healthChecks);
    } catch (e) {
      logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'Service host rules not applied; retried at the next change');
      this.services.resync();
    }
    this.informers = [
      new Informer(this.kube, SERVICES, this.services.onServiceEvent, { clock, logger }),
      new Informer(this.kube, ENDPOINT_SLICES, this.services.onSliceEvent, { clock, logger }),
    ];
    for (const i of this.informers) i.start();
    // A restarted ovs-vswitchd took the gateway's routes and neighbours with its tap device.
    this.node.onSwitchRestart(async () => {
      this.host.invalidate();
      this.services.resync();
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.services.stop();
    await this.host.stop();
    this.conntrack.close();
  }

  health(): PartHealth {
    const s = this.services;
    const served = this.host.healthChecks().length;
    const held = `${s.specs.length} Service ports${s.healthChecks.length ? `, ${served}/${s.healthChecks.length} health-check node ports served` : ''}`;
    if (s.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${s.lastError instanceof Error ? s.lastError.message : String(s.lastError)}` };
    return { ok: true, detail: held };
  }
}
