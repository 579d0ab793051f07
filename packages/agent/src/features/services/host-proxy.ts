/**
 * The host's half of external Service traffic (what kube-proxy's iptables did for NodePort when
 * AntreaProxy serves it, as Antrea's proxyAll does):
 * - node ports: a packet the node receives for one of its addresses (within `nodePortAddresses`)
 *   and a node port is DNATed to the virtual NodePort address, same port, which the host routes
 *   into OVS through the gateway; OVS load-balances it (NodePortMark, ServiceLB) and the reply
 *   comes back through the gateway, where the host's conntrack undoes the DNAT;
 * - external addresses (LoadBalancer ingress IPs, `externalIPs`): routed into OVS the same way;
 * - health-check node ports of `externalTrafficPolicy: Local` Services: HTTP 200 with the count of
 *   this node's endpoints, 503 with none, as kube-proxy answers a cloud load balancer.
 * The rules and routes are rewritten whole from the Service ports at each change. On a node with
 * an IPv6 address (dual-stack or IPv6-only) the IPv6 Service ports' node ports get the same through
 * ip6tables: the IPv6 NodePort DNAT address, its permanent neighbour and route on the gateway; with
 * proxyAll the node's own IPv6 connections to IPv6 ClusterIPs and node ports go through OVS as well.
 */
import type { Server as NetServer } from 'node:net';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { ServicePortSpec } from '@switchyard/openflow-pipeline';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IP, VIRTUAL_SERVICE_IPV6 } from '@switchyard/openflow-pipeline';
import { silentLogger, type Logger } from '@switchyard/runtime';
import type { HostRoute } from '../routes/node-routes';
import type { HealthCheckPort } from './services';

/** nat chain of the node port DNAT rules (jumped to from PREROUTING). */
export const NODEPORT_CHAIN = 'SWITCHYARD-NODEPORT';
/** nat chain masquerading what OVS SNATed to the virtual Service IP on its way out of the node (jumped to from POSTROUTING). */
export const SERVICE_MASQ_CHAIN = 'SWITCHYARD-SVC-MASQ';
/** MAC of the virtual addresses' permanent neighbour entries on the gateway (OVS rewrites it). */
export const SERVICE_VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';

const isV6 = (ip: string): boolean => ip.includes(':');

/**
 * iptables-restore input for {@link NODEPORT_CHAIN}: one DNAT rule per node port and address
 * range. Without `nodePortAddresses` every local address but loopback serves node ports.
 * `family` 6: ip6tables-restore input for the IPv6 Service ports (the IPv6 DNAT address; of
 * `nodePortAddresses`, the IPv6 ranges, and none when it has IPv4 ones only).
 */
export function nodePortRules(specs: readonly ServicePortSpec[], nodePortAddresses: readonly string[], dnatIP?: string, family: 4 | 6 = 4): string[] {
  const v6 = family === 6;
  const to = dnatIP ?? (v6 ? VIRTUAL_NODEPORT_DNAT_IPV6 : VIRTUAL_NODEPORT_DNAT_IP);
  const ports = new Map<string, { protocol: string; port: number }>();
  for (const s of specs) if (s.nodePort !== undefined && isV6(s.clusterIP) === v6) ports.set(`${s.protocol}/${s.nodePort}`, { protocol: s.protocol.toLowerCase(), port: s.nodePort });
  const ranges = nodePortAddresses.filter((c) => isV6(c) === v6);
  const dsts = nodePortAddresses.length > 0 ? ranges.map((c) => `-d ${c}`) : [v6 ? '! -d ::1/128' : '! -d 127.0.0.0/8'];
  const rules = ['*nat', `:${NODEPORT_CHAIN} - [0:0]`, `:${SERVICE_MASQ_CHAIN} - [0:0]`, `-A ${SERVICE_MASQ_CHAIN} -s ${v6 ? `${VIRTUAL_SERVICE_IPV6}/128` : `${VIRTUAL_SERVICE_IP}/32`} -j MASQUERADE`];
  for (const { protocol, port } of [...ports.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol))) {
    for (const d of dsts) {
      rules.push(`-A ${NODEPORT_CHAIN} ${d} -m addrtype --dst-type LOCAL -p ${protocol} -m ${protocol} --dport ${port} -j DNAT --to-destination ${to}`);
    }
  }
  rules.push('COMMIT');
  return rules;
}

/**
 * Host routes into OVS: the NodePort DNAT address, and each external address through the virtual
 * Service address; with proxyAll each ClusterIP too, so the node's own processes reach Services
 * through OVS (their packets leave by the gateway with its address as source, which every node
 * routes back here).
 */
export function serviceHostRoutes(specs: readonly ServicePortSpec[], gatewayName: string, o: { proxyAll?: boolean } = {}, dnatIP = VIRTUAL_NODEPORT_DNAT_IP, virtualIP = VIRTUAL_SERVICE_IP): HostRoute[] {
  const external = new Set<string>();
  for (const s of specs) for (const a of s.externalAddresses ?? []) if (!isV6(a)) external.add(a);
  // proxyAll: the node's own connections to IPv4 ClusterIPs (IPv6 ones: serviceHostRoutes6).
  if (o.proxyAll) for (const s of specs) if (!isV6(s.clusterIP)) external.add(s.clusterIP);
  return [
    { dst: `${dnatIP}/32`, dev: gatewayName },
    // Replies to what OVS SNATed to the virtual Service IP (host -> Service -> outside), after the host's unmasquerade.
    { dst: `${virtualIP}/32`, dev: gatewayName },
    ...[...external].sort().map((a) => ({ dst: `${a}/32`, via: virtualIP, dev: gatewayName, onlink: true })),
  ];
}

/**
 * IPv6 host routes into OVS (a node with an IPv6 address): the IPv6 NodePort DNAT address when an
 * IPv6 Service port has a node port, and each IPv6 external address through the virtual IPv6
 * Service address; with proxyAll each IPv6 ClusterIP too (the node's own connections leave by the
 * gateway with its IPv6 address as source); and, with any IPv6 Service, the virtual IPv6 Service
 * address itself (replies to what OVS SNATed to it on its way out of the node, after the host's
 * unmasquerade), as for IPv4.
 */
export function serviceHostRoutes6(specs: readonly ServicePortSpec[], gatewayName: string, o: { proxyAll?: boolean } = {}, dnatIP = VIRTUAL_NODEPORT_DNAT_IPV6, virtualIP = VIRTUAL_SERVICE_IPV6): HostRoute[] {
  const external = new Set<string>();
  for (const s of specs) for (const a of s.externalAddresses ?? []) if (isV6(a)) external.add(a);
  const v6 = specs.filter((s) => isV6(s.clusterIP));
  if (o.proxyAll) for (const s of v6) external.add(s.clusterIP);
  return [
    ...(v6.some((s) => s.nodePort !== undefined) ? [{ dst: `${dnatIP}/128`, dev: gatewayName }] : []),
    // Replies to what OVS SNATed to the virtual IPv6 Service address and the host then masqueraded
    // (a node port's endpoint on a routed peer in noEncap/hybrid; with proxyAll the node's own
    // connections): back into OVS after the unmasquerade, as IPv4's route does.
    ...(v6.length > 0 ? [{ dst: `${virtualIP}/128`, dev: gatewayName }] : []),
    ...[...external].sort().map((a) => ({ dst: `${a}/128`, via: virtualIP, dev: gatewayName, onlink: true })),
  ];
}

/**
 * Shell that puts the jumps to {@link NODEPORT_CHAIN} in place for one family's tool: from
 * PREROUTING always, from OUTPUT with proxyAll (the node's own connections), else removed from it.
 */
export function nodePortJumps(tool: 'iptables' | 'ip6tables', proxyAll: boolean): string {
  const jump = (chain: string): string => `{ ${tool} -w -t nat -C ${chain} -j ${NODEPORT_CHAIN} 2>/dev/null || ${tool} -w -t nat -I ${chain} -j ${NODEPORT_CHAIN}; }`;
  const output = proxyAll ? jump('OUTPUT') : `{ ${tool} -w -t nat -D OUTPUT -j ${NODEPORT_CHAIN} 2>/dev/null; true; }`;
  return `${jump('PREROUTING')} && ${output}`;
}

/** The body kube-proxy's health-check server answers with. */
export function healthCheckBody(h: HealthCheckPort): { service: { namespace: string; name: string }; localEndpoints: number; serviceProxyHealthy: boolean } {
  const [namespace = '', name = ''] = h.service.split('/');
  return { service: { namespace, name }, localEndpoints: h.localEndpoints, serviceProxyHealthy: true };
}

/** What the host part runs on the node (NodeNetwork, or a fake in unit tests). */
export interface ServiceHostOps {
  runInNode(script: string, args?: readonly string[], input?: string): Promise<string>;
  syncRoutes(routes: readonly HostRoute[], proto: number): Promise<unknown>;
  /** The node's IPv6 routes of `proto` (no neighbours: undefined); needed with `ipv6`. */
  syncIpv6Routes?(routes: readonly HostRoute[], neighbours: undefined, proto: number): Promise<unknown>;
}

/** Listening sockets in the node's namespace (NetnsListener). */
export interface ServiceListener {
  listen(port: number, host?: string): Promise<NetServer>;
  close(): void;
}

export interface ServiceHostNetworkOptions {
  ops: ServiceHostOps;
  listener: ServiceListener;
  gatewayName: string;
  /** CIDRs of the node addresses serving node ports (antreaProxy.nodePortAddresses); empty: all. */
  nodePortAddresses: readonly string[];
  /** Route protocol number of the routes this part owns. */
  routeProto: number;
  /**
   * antreaProxy.proxyAll: the node's own traffic to ClusterIPs and node ports goes through OVS too
   * (ClusterIP routes into the gateway, the node port rules also on OUTPUT).
   */
  proxyAll?: boolean;
  /**
   * The node has an IPv6 address (dual-stack or IPv6-only): IPv6 node ports through ip6tables
   * (with proxyAll the node's own IPv6 connections too), health-check ports over both families.
   */
  ipv6?: boolean;
  logger?: Logger;
}

/** Keeps the node's node port rules, routes and health-check servers in line with the Service ports. */
export class ServiceHostNetwork {
  private readonly log: Logger;
  private readonly servers = new Map<number, { http: HttpServer; check: HealthCheckPort }>();
  private lastRules = '';
  private lastRoutes = '';
  private lastRules6 = '';
  private lastRoutes6 = '';

  constructor(private readonly o: ServiceHostNetworkOptions) {
    this.log = o.logger ?? silentLogger;
  }

  /** Health-check ports served now. */
  healthChecks(): HealthCheckPort[] {
    return [...this.servers.values()].map((s) => s.check);
  }

  /** Applies what `specs` and `checks` need; unchanged rules and routes are not rewritten. */
  async sync(specs: readonly ServicePortSpec[], checks: readonly HealthCheckPort[]): Promise<void> {
    const rules = nodePortRules(specs, this.o.nodePortAddresses).join('\n');
    if (rules !== this.lastRules) {
      await this.applyRules(rules);
      this.lastRules = rules;
    }
    const routes = serviceHostRoutes(specs, this.o.gatewayName, { proxyAll: this.o.proxyAll ?? false });
    const routesKey = JSON.stringify(routes);
    if (routesKey !== this.lastRoutes) {
      await this.o.ops.syncRoutes(routes, this.o.routeProto);
      this.lastRoutes = routesKey;
    }
    if (this.o.ipv6) await this.syncIpv6(specs);
    await this.syncHealthChecks(checks);
  }

  /** Writes everything again at the next sync (after ovs-vswitchd took the gateway's routes and neighbours with its tap). */
  invalidate(): void {
    this.lastRules = '';
    this.lastRoutes = '';
    this.lastRules6 = '';
    this.lastRoutes6 = '';
  }

  /** IPv6 external traffic: the node ports' ip6tables DNAT rules, the virtual addresses' neighbours, then the routes. */
  private async syncIpv6(specs: readonly ServicePortSpec[]): Promise<void> {
    const rules = nodePortRules(specs, this.o.nodePortAddresses, undefined, 6).join('\n');
    if (rules !== this.lastRules6) {
      // proxyAll: the node's own IPv6 connections to node ports are DNATed on OUTPUT too, as IPv4's.
      await this.o.ops.runInNode(
        'ip -6 neigh replace "$1" lladdr "$2" dev "$3" nud permanent && ip -6 neigh replace "$4" lladdr "$2" dev "$3" nud permanent && ' +
          `ip6tables-restore -w --noflush && ${nodePortJumps('ip6tables', this.o.proxyAll ?? false)} && ` +
          `{ ip6tables -w -t nat -C POSTROUTING -j ${SERVICE_MASQ_CHAIN} 2>/dev/null || ip6tables -w -t nat -A POSTROUTING -j ${SERVICE_MASQ_CHAIN}; }`,
        [VIRTUAL_NODEPORT_DNAT_IPV6, SERVICE_VIRTUAL_MAC, this.o.gatewayName, VIRTUAL_SERVICE_IPV6],
        `${rules}\n`,
      );
      this.lastRules6 = rules;
    }
    const routes = serviceHostRoutes6(specs, this.o.gatewayName, { proxyAll: this.o.proxyAll ?? false });
    const key = JSON.stringify(routes);
    if (key !== this.lastRoutes6) {
      if (!this.o.ops.syncIpv6Routes) throw new Error('IPv6 node ports need ops.syncIpv6Routes');
      await this.o.ops.syncIpv6Routes(routes, undefined, this.o.routeProto);
      this.lastRoutes6 = key;
    }
  }

  /** Closes the health-check servers (rules and routes stay: traffic keeps flowing across an agent restart). */
  async stop(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => new Promise<void>((resolve) => {
      s.http.close(() => resolve());
      s.http.closeAllConnections();
    })));
    this.servers.clear();
    this.o.listener.close();
  }

  private async applyRules(rules: string): Promise<void> {
    const gw = this.o.gatewayName;
    // The permanent neighbours let the host send to the virtual addresses without ARP (OVS answers none).
    await this.o.ops.runInNode(
      'ip neigh replace "$1" lladdr "$3" dev "$4" nud permanent && ip neigh replace "$2" lladdr "$3" dev "$4" nud permanent && ' +
        `iptables-restore -w --noflush && ${nodePortJumps('iptables', this.o.proxyAll ?? false)} && ` +
        `{ iptables -w -t nat -C POSTROUTING -j ${SERVICE_MASQ_CHAIN} 2>/dev/null || iptables -w -t nat -A POSTROUTING -j ${SERVICE_MASQ_CHAIN}; }`,
      [VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_SERVICE_IP, SERVICE_VIRTUAL_MAC, gw],
      `${rules}\n`,
    );
  }

  private async syncHealthChecks(checks: readonly HealthCheckPort[]): Promise<void> {
    const want = new Map(checks.map((c) => [c.port, c]));
    for (const [port, s] of this.servers) {
      if (want.has(port)) continue;
      this.servers.delete(port);
      s.http.close();
      s.http.closeAllConnections();
    }
    for (const [port, check] of want) {
      const have = this.servers.get(port);
      if (have) {
        have.check = check;
        continue;
      }
      try {
        // With an IPv6 address the node answers over both families ('::' takes IPv4 too: libuv clears IPV6_V6ONLY).
        const socket = await this.o.listener.listen(port, this.o.ipv6 ? '::' : '0.0.0.0');
        const entry = { http: createServer((req, res) => this.answer(entry.check, req, res)), check };
        entry.http.listen(socket);
        this.servers.set(port, entry);
      } catch (e) {
        // One port taken by another process does not stop the others; the next change retries.
        this.log.warn({ service: check.service, healthCheckNodePort: port, err: e instanceof Error ? e.message : String(e) }, 'health-check node port not served');
      }
    }
  }

  private answer(check: HealthCheckPort, _req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(check.localEndpoints > 0 ? 200 : 503, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'X-Load-Balancing-Endpoint-Weight': String(check.localEndpoints) });
    res.end(`${JSON.stringify(healthCheckBody(check))}\n`);
  }
}
