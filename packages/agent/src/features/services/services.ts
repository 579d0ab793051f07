/**
 * AntreaProxy's input side: Services and their discovery.k8s.io/v1 EndpointSlices become the
 * pipeline's ServicePortSpecs (one per Service port, with a select group of endpoints), as
 * kube-proxy reads them. The mapping is a pure function; the controller keeps the caches, the
 * stable group ids, and hands changes to the flow sync one batch at a time.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { parseIp, type Ip } from '@switchyard/ipam/cidr';
import type { InformerEvent, KubeObject } from '@switchyard/kube';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_NODEPORT_DNAT_IPV6, type ServicePortSpec } from '@switchyard/openflow-pipeline';
import { Reconciler, silentLogger, systemClock, type BackoffPolicy, type Clock, type Logger } from '@switchyard/runtime';
import { ipv4Of } from '../../ipv4';

/** Label tying an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** kube-proxy's default ClientIP affinity timeout (3 hours). */
export const DEFAULT_AFFINITY_TIMEOUT = 10800;
/**
 * First Service group id: NetworkPolicy logging groups count up from 1, so Service groups live
 * in their own range and the two never meet.
 */
export const SERVICE_GROUP_ID_BASE = 0x100000;

/** Why an object (or one of its parts) was left out of the specs. */
export interface SkippedObject {
  /** `service ns/name` or `endpointslice ns/name`. */
  object: string;
  /** Field path of the offending value. */
  path: string;
  value: unknown;
  reason: string;
}

/**
 * Stable group ids per Service port, keyed `ns/name/portName/protocol`. An id stays with its key
 * while the key exists; ids of released keys are handed out again (lowest first).
 */
export class ServiceGroupIds {
  private readonly ids = new Map<string, number>();
  private free: number[] = [];
  private next: number;

  constructor(base = SERVICE_GROUP_ID_BASE) {
    this.next = base;
  }

  /** The id of `key`, allocating one the first time. */
  idOf(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.free.shift() ?? this.next++;
      this.ids.set(key, id);
    }
    return id;
  }

  /** Releases every key not in `live`. */
  retain(live: ReadonlySet<string>): void {
    for (const [k, id] of this.ids) {
      if (live.has(k)) continue;
      this.ids.delete(k);
      this.free.push(id);
    }
    this.free.sort((a, b) => a - b);
  }

  /** Keys with their ids (for tests and introspection). */
  entries(): [string, number][] {
    return [...this.ids];
  }

  /**
   * Takes `recorded` (key -> id, what {@link entries} gave in an earlier run) as the current
   * allocation: a restarted agent gives each Service port the group id its installed flows and
   * groups carry, so its first round adopts them instead of renumbering every Service. Entries
   * that are not an id of this allocator (below its base, not an integer) or repeat an id are left
   * out. Only before the first {@link idOf}.
   */
  seed(recorded: Readonly<Record<string, number>>): void {
    const base = this.next;
    const taken = new Set<number>();
    for (const [key, id] of Object.entries(recorded)) {
      if (!Number.isSafeInteger(id) || id < base || id > MAX_SERVICE_GROUP_ID || taken.has(id)) continue;
      taken.add(id);
      this.ids.set(key, id);
    }
    if (taken.size === 0) return;
    this.next = Math.max(...taken) + 1;
    for (let id = base; id < this.next; id++) if (!taken.has(id)) this.free.push(id);
  }
}

/** Highest group id a recorded allocation may hold (OpenFlow group ids are 32-bit; far above any real count). */
const MAX_SERVICE_GROUP_ID = 0xfffffeff;

/** Reads a recorded allocation; an absent or unreadable file gives none (the ids are made afresh). */
export function readServiceGroupIds(file: string, log: Logger = silentLogger): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const data = JSON.parse(text) as { groupIds?: unknown };
    const ids = data.groupIds;
    if (ids === null || typeof ids !== 'object' || Array.isArray(ids)) throw new Error('no groupIds object');
    return Object.fromEntries(Object.entries(ids as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === 'number'));
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e), file }, 'recorded Service group ids unreadable: numbering afresh');
    return {};
  }
}

/**
 * The key a Service port's group id is allocated under. IPv4 keeps the key it always had; the
 * IPv6 port of the same Service port (its own group) is `<key>/IPv6`.
 */
export const servicePortKey = (ns: string, name: string, portName: string, protocol: string, family: IpFamily = 'IPv4'): string =>
  `${ns}/${name}/${portName}/${protocol}${family === 'IPv6' ? '/IPv6' : ''}`;

/** An IP family as the Service API names it (`spec.ipFamilies`, an EndpointSlice's `addressType`). */
export type IpFamily = 'IPv4' | 'IPv6';

/** The address and its family when `text` is an IPv4 address (canonical dotted quad) or an IPv6 one (any valid form). */
function addressOf(text: unknown): { ip: Ip; family: IpFamily } | undefined {
  if (typeof text !== 'string') return undefined;
  const v4 = ipv4Of(text);
  if (v4) return { ip: v4, family: 'IPv4' };
  if (!text.includes(':')) return undefined;
  try {
    const ip = parseIp(text);
    return ip.family === 6 ? { ip, family: 'IPv6' } : undefined;
  } catch {
    return undefined;
  }
}

interface ServicePortObj {
  name?: string;
  protocol?: string;
  port?: number;
  nodePort?: number;
}
interface ServiceSpecObj {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ports?: ServicePortObj[];
  externalIPs?: string[];
  externalTrafficPolicy?: string;
  internalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
}
interface SlicePortObj {
  name?: string | null;
  protocol?: string;
  port?: number | null;
}
interface SliceEndpointObj {
  addresses?: string[];
  conditions?: { ready?: boolean | null; serving?: boolean | null; terminating?: boolean | null };
  nodeName?: string;
  hints?: { forZones?: { name?: string }[] | null } | null;
}

/** Annotations asking for topology-aware routing (the current one, and the beta one before it). */
export const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
export const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
interface SliceObj {
  addressType?: string;
  ports?: SlicePortObj[] | null;
  endpoints?: SliceEndpointObj[] | null;
}

const isPort = (p: unknown): p is number => typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
const PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP']);
const nsName = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** Inputs of {@link servicesToSpecs}. */
export interface ServiceMappingInput {
  services: readonly KubeObject[];
  slices: readonly KubeObject[];
  /** This node: endpoints on it are `local`. */
  nodeName: string;
  /** Group id allocator, kept by the caller across calls so ids are stable. */
  groupIds: ServiceGroupIds;
  /** Serve LoadBalancer ingress IPs (antreaProxy.proxyLoadBalancerIPs; default true). */
  proxyLoadBalancerIPs?: boolean;
  /** `namespace/name` of Services left to another proxy (antreaProxy.skipServices). */
  skipServices?: ReadonlySet<string>;
  /** This node's `topology.kubernetes.io/zone`: with it, topology hints are followed. */
  nodeZone?: string;
  /** The node is dual-stack (`podCIDRv6`): IPv6 ClusterIPs get their own Service ports. Without it they are skipped. */
  ipv6?: boolean;
  /** The node is IPv6-only (no IPv4 pod CIDR): IPv4 ClusterIPs are skipped. */
  ipv6Only?: boolean;
  /**
   * The node has an IPv6 address (`nodeIPv6`): IPv6 Service ports get their node ports, IPv6
   * external addresses (`externalIPs`, LoadBalancer ingress IPs) and `externalTrafficPolicy:
   * Local`. Without it an IPv6 port's node port and IPv6 external addresses are reported, not served.
   */
  ipv6NodePorts?: boolean;
}

/** A Service with `externalTrafficPolicy: Local` and a health-check node port (kube-proxy serves these). */
export interface HealthCheckPort {
  /** `namespace/name`. */
  service: string;
  port: number;
  /** Ready endpoints of the Service on this node (any port). */
  localEndpoints: number;
}

/** Result of {@link servicesToSpecs}. */
export interface ServiceMapping {
  /** One spec per (Service, port), ordered by Service and port. */
  specs: ServicePortSpec[];
  /** What was left out, and why. */
  skipped: SkippedObject[];
  /** Health-check node ports to serve, by port. */
  healthChecks: HealthCheckPort[];
}

/**
 * Maps Services and EndpointSlices to the pipeline's Service ports. Headless (`clusterIP: None`)
 * and ExternalName Services have none; NodePort and LoadBalancer Services add their node ports;
 * ClientIP affinity sets the timeout (default 10800 s). A dual-stack Service (on a dual-stack node)
 * has one spec per family and port, each with its own group. Endpoints are the ready addresses of
 * every slice of the spec's family (`addressType`), or the serving ones when none is ready (kube-proxy's terminating
 * fallback); the target port is the slice port with the Service port's name and protocol. Group
 * ids of ports that are gone are released. Pure apart from the allocator it is given.
 */
export function servicesToSpecs(input: ServiceMappingInput): ServiceMapping {
  const skipped: SkippedObject[] = [];
  const slicesBySvc = new Map<string, KubeObject[]>();
  for (const s of input.slices) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svc) continue; // not managed for a Service: kube-proxy ignores it too
    const key = `${s.metadata.namespace ?? ''}/${svc}`;
    const list = slicesBySvc.get(key) ?? [];
    list.push(s);
    slicesBySvc.set(key, list);
  }
  const specs: ServicePortSpec[] = [];
  const healthChecks: HealthCheckPort[] = [];
  const live = new Set<string>();
  const sorted = [...input.services].sort((a, b) => (nsName(a) < nsName(b) ? -1 : nsName(a) > nsName(b) ? 1 : 0));
  for (const svc of sorted) {
    const where = `service ${nsName(svc)}`;
    const spec = (svc.spec ?? {}) as ServiceSpecObj;
    if (spec.type === 'ExternalName') continue;
    if (input.skipServices?.has(nsName(svc))) continue;
    const clusterIP = spec.clusterIP;
    if (clusterIP === undefined || clusterIP === '' || clusterIP === 'None') continue; // headless: DNS only
    const families = clusterIPsOf(where, spec, input.ipv6 ?? false, skipped, input.ipv6Only ?? false);
    if (families.length === 0) continue;
    let affinityTimeout: number | undefined;
    if (spec.sessionAffinity === 'ClientIP') {
      const t = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT;
      // OVS learn hard_timeout is 16 bits; the API allows up to 86400 s.
      if (!Number.isInteger(t) || t < 1 || t > 86400) {
        skipped.push({ object: where, path: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', value: t, reason: 'must be 1..86400' });
        continue;
      }
      affinityTimeout = Math.min(t, 0xffff);
    }
    const nodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
    const slices = slicesBySvc.get(nsName(svc)) ?? [];
    const hasV6 = families.some((f) => f.family === 'IPv6');
    const hasV4 = families.some((f) => f.family === 'IPv4');
    // External traffic over IPv6 needs an IPv6 address of the node (the host hands it in and replies over it).
    const servesV6 = hasV6 && (input.ipv6NodePorts ?? false);
    const { ext4, ext6 } = externalByFamily(where, externalAddressesOf(svc, spec, input.proxyLoadBalancerIPs ?? true, skipped), { hasV4, hasV6, servesV6 }, skipped);
    const externalLocal = spec.externalTrafficPolicy === 'Local' && (nodePorts || ext4.length + ext6.length > 0);
    const internalLocal = spec.internalTrafficPolicy === 'Local';
    let localEndpoints = 0;
    (spec.ports ?? []).forEach((p, i) => {
      const protocol = p.protocol ?? 'TCP';
      if (!PROTOCOLS.has(protocol)) {
        skipped.push({ object: where, path: `spec.ports[${i}].protocol`, value: protocol, reason: 'unknown protocol' });
        return;
      }
      if (!isPort(p.port)) {
        skipped.push({ object: where, path: `spec.ports[${i}].port`, value: p.port, reason: 'not a port number' });
        return;
      }
      const portName = p.name ?? '';
      const nodePort = nodePorts ? nodePortOf(where, p.nodePort, i, hasV6 && !servesV6, skipped) : undefined;
      // One Service port per family (its own group), as Antrea's proxier per family.
      for (const { ip, family } of families) {
        const key = servicePortKey(svc.metadata.namespace ?? '', svc.metadata.name ?? '', portName, protocol, family);
        live.add(key);
        const out: ServicePortSpec = {
          groupId: input.groupIds.idOf(key),
          service: nsName(svc),
          protocol: protocol as ServicePortSpec['protocol'],
          clusterIP: ip,
          port: p.port,
          endpoints: endpointsOf(slices, portName, protocol, input.nodeName, skipped, topologyZone(svc, input.nodeZone), family),
        };
        // Node ports and external addresses in both families (IPv6's on a node with an IPv6
        // address: the host hands them in through ip6tables and its IPv6 routes).
        const v4 = family === 'IPv4';
        const ext = v4 ? ext4 : ext6;
        const external = v4 || (servesV6 && (nodePort !== undefined || ext6.length > 0));
        if (nodePort !== undefined && external) out.nodePort = nodePort;
        if (affinityTimeout !== undefined) out.affinityTimeout = affinityTimeout;
        if (ext.length > 0) out.externalAddresses = ext;
        if (external && externalLocal) out.externalLocal = true;
        if (internalLocal) out.internalLocal = true;
        if ((external && externalLocal) || internalLocal) {
          const localKey = `${key}/local`;
          live.add(localKey);
          out.localGroupId = input.groupIds.idOf(localKey);
        }
        localEndpoints = Math.max(localEndpoints, out.endpoints.filter((e) => e.local).length);
        specs.push(out);
      }
    });
    if (externalLocal && spec.type === 'LoadBalancer' && spec.healthCheckNodePort !== undefined) {
      if (isPort(spec.healthCheckNodePort)) healthChecks.push({ service: nsName(svc), port: spec.healthCheckNodePort, localEndpoints });
      else skipped.push({ object: where, path: 'spec.healthCheckNodePort', value: spec.healthCheckNodePort, reason: 'not a port number' });
    }
  }
  input.groupIds.retain(live);
  return { specs, skipped, healthChecks };
}

/**
 * The ClusterIPs a Service is proxied at, one per family in `spec.clusterIPs` order (else
 * `spec.clusterIP`); IPv6 ones in RFC 5952 text, and only on a dual-stack node.
 */
function clusterIPsOf(where: string, spec: ServiceSpecObj, ipv6: boolean, skipped: SkippedObject[], ipv6Only = false): { ip: string; family: IpFamily }[] {
  const listed = spec.clusterIPs !== undefined && spec.clusterIPs.length > 0;
  const ips = listed ? spec.clusterIPs! : [spec.clusterIP];
  const out: { ip: string; family: IpFamily }[] = [];
  ips.forEach((text, i) => {
    const path = listed ? `spec.clusterIPs[${i}]` : 'spec.clusterIP';
    const a = addressOf(text);
    if (!a) skipped.push({ object: where, path, value: text, reason: 'not an IP address' });
    else if (a.family === 'IPv6' && !ipv6) skipped.push({ object: where, path, value: text, reason: 'an IPv6 ClusterIP on a node without IPv6 (podCIDRv6): not proxied here' });
    else if (a.family === 'IPv4' && ipv6Only) skipped.push({ object: where, path, value: text, reason: 'an IPv4 ClusterIP on an IPv6-only node (no IPv4 pod CIDR): not proxied here' });
    else if (!out.some((f) => f.family === a.family)) out.push({ ip: a.family === 'IPv4' ? (text as string) : a.ip.toString(), family: a.family });
  });
  return out;
}

/** LoadBalancer ingress IPs (when proxied) and `spec.externalIPs` with their paths, unique, in order (IPv6 ones in RFC 5952 text). */
function externalAddressesOf(svc: KubeObject, spec: ServiceSpecObj, proxyLoadBalancerIPs: boolean, skipped: SkippedObject[]): { ip: string; path: string }[] {
  const where = `service ${nsName(svc)}`;
  const out: { ip: string; path: string }[] = [];
  const add = (text: unknown, path: string): void => {
    const a = addressOf(text);
    if (!a) {
      skipped.push({ object: where, path, value: text, reason: 'not an IP address' });
      return;
    }
    const ip = a.family === 'IPv4' ? (text as string) : a.ip.toString();
    if (!out.some((o) => o.ip === ip)) out.push({ ip, path });
  };
  (spec.externalIPs ?? []).forEach((ip, i) => add(ip, `spec.externalIPs[${i}]`));
  if (spec.type === 'LoadBalancer' && proxyLoadBalancerIPs) {
    const ingress = (svc.status as { loadBalancer?: { ingress?: { ip?: string }[] } } | undefined)?.loadBalancer?.ingress ?? [];
    ingress.forEach((g, i) => {
      if (g.ip !== undefined) add(g.ip, `status.loadBalancer.ingress[${i}].ip`);
    });
  }
  return out;
}

/** A Service port's node port when it is one (else reported); `noV6`: an IPv6 port of the Service cannot serve it here, which is reported too. */
function nodePortOf(where: string, nodePort: unknown, i: number, noV6: boolean, skipped: SkippedObject[]): number | undefined {
  if (nodePort === undefined) return undefined;
  if (!isPort(nodePort)) {
    skipped.push({ object: where, path: `spec.ports[${i}].nodePort`, value: nodePort, reason: 'not a port number' });
    return undefined;
  }
  if (noV6) skipped.push({ object: where, path: `spec.ports[${i}].nodePort`, value: nodePort, reason: 'not served over IPv6: this node has no IPv6 address (--node-ip <IPv4>,<IPv6>, or an IPv6 InternalIP in the Node\'s status.addresses)' });
  return nodePort;
}

/** A Service's external addresses split by family; those of a family it is not served in here are reported by path. */
function externalByFamily(where: string, addrs: readonly { ip: string; path: string }[], f: { hasV4: boolean; hasV6: boolean; servesV6: boolean }, skipped: SkippedObject[]): { ext4: string[]; ext6: string[] } {
  const ext4: string[] = [];
  const ext6: string[] = [];
  for (const a of addrs) {
    const v6 = a.ip.includes(':');
    if (v6 && !f.servesV6) {
      skipped.push({ object: where, path: a.path, value: a.ip, reason: f.hasV6 ? 'an IPv6 address: not served here, this node has no IPv6 address' : 'an IPv6 address, and the Service has no IPv6 ClusterIP' });
    } else if (!v6 && !f.hasV4) {
      skipped.push({ object: where, path: a.path, value: a.ip, reason: 'an IPv4 address, and the Service has no IPv4 ClusterIP' });
    } else (v6 ? ext6 : ext4).push(a.ip);
  }
  return { ext4, ext6 };
}

/** The zone whose hints a Service's endpoints are filtered by: the node's, when the Service asks for topology-aware routing. */
function topologyZone(svc: KubeObject, nodeZone: string | undefined): string | undefined {
  if (nodeZone === undefined || nodeZone === '') return undefined;
  const a = (svc.metadata.annotations ?? {}) as Record<string, string | undefined>;
  const mode = a[TOPOLOGY_MODE_ANNOTATION] ?? a[TOPOLOGY_HINTS_ANNOTATION] ?? '';
  return mode === '' || mode.toLowerCase() === 'disabled' ? undefined : nodeZone;
}

/**
 * Endpoints of one Service port across its slices: ready ones, else serving ones; sorted, unique.
 * With a `zone`, as kube-proxy: when every chosen endpoint carries zone hints and at least one is
 * hinted for the zone, only those are kept; otherwise all (a slice without hints, or a zone no
 * endpoint serves, falls back to the whole set).
 */
function endpointsOf(slices: readonly KubeObject[], portName: string, protocol: string, nodeName: string, skipped: SkippedObject[], zone: string | undefined, family: IpFamily): ServicePortSpec['endpoints'] {
  type Endpoint = { ep: ServicePortSpec['endpoints'][number]; addr: Ip; zones: string[] | undefined };
  const ready = new Map<string, Endpoint>();
  const serving = new Map<string, Endpoint>();
  for (const s of slices) {
    const slice = s as KubeObject & SliceObj;
    if (slice.addressType !== family) continue; // the other family's slices (and FQDN ones): not this port's
    const sp = (slice.ports ?? []).find((x) => (x.name ?? '') === portName && (x.protocol ?? 'TCP') === protocol);
    if (!sp) continue;
    if (!isPort(sp.port)) {
      skipped.push({ object: `endpointslice ${nsName(s)}`, path: `ports[${(slice.ports ?? []).indexOf(sp)}].port`, value: sp.port, reason: 'not a port number' });
      continue;
    }
    (slice.endpoints ?? []).forEach((e, i) => {
      // The API's nil conditions mean ready (and serving follows ready).
      const isReady = e.conditions?.ready ?? true;
      const isServing = e.conditions?.serving ?? isReady;
      if (!isReady && !isServing) return;
      const text = e.addresses?.[0];
      const a = addressOf(text);
      if (text === undefined || !a || a.family !== family) {
        skipped.push({ object: `endpointslice ${nsName(s)}`, path: `endpoints[${i}].addresses[0]`, value: text, reason: `not an ${family} address` });
        return;
      }
      const addr = a.ip;
      const ip = family === 'IPv4' ? text : addr.toString();
      const ep: ServicePortSpec['endpoints'][number] = { ip, port: sp.port as number };
      if (e.nodeName !== undefined && e.nodeName === nodeName) ep.local = true;
      const k = `${ip}:${String(sp.port)}`;
      const zones = e.hints?.forZones?.map((z) => z.name ?? '').filter((z) => z !== '');
      if (isReady) ready.set(k, { ep, addr, zones });
      else serving.set(k, { ep, addr, zones });
    });
  }
  let chosen = [...(ready.size > 0 ? ready : serving).values()];
  if (zone !== undefined && chosen.every((e) => e.zones !== undefined && e.zones.length > 0)) {
    const inZone = chosen.filter((e) => e.zones!.includes(zone));
    if (inZone.length > 0) chosen = inZone;
  }
  return chosen.sort((a, b) => a.addr.compare(b.addr) || a.ep.port - b.ep.port).map((e) => e.ep);
}

/** A UDP endpoint a change took out of a Service port, with the addresses the port is reached at. */
export interface StaleUdpEndpoint {
  endpoint: { ip: string; port: number };
  /** ClusterIP:port, each external address:port, the NodePort DNAT address:nodePort. */
  frontends: { ip: string; port: number }[];
}

/**
 * UDP endpoints that were in a Service port before and are not after (the port itself may be
 * gone): their connection tracking entries would keep sending datagrams to an endpoint that is
 * no more, so they are flushed (Antrea's CleanupStaleUDPSvcConntrack). TCP connections are left to
 * end with their endpoint.
 */
export function staleUdpEndpoints(before: readonly ServicePortSpec[], after: readonly ServicePortSpec[]): StaleUdpEndpoint[] {
  const now = new Map(after.map((s) => [s.groupId, s]));
  const out: StaleUdpEndpoint[] = [];
  for (const s of before) {
    if (s.protocol !== 'UDP') continue;
    const next = now.get(s.groupId);
    const kept = new Set((next?.protocol === 'UDP' ? next.endpoints : []).map((e) => `${e.ip}:${e.port}`));
    const frontends = [{ ip: s.clusterIP, port: s.port }, ...(s.externalAddresses ?? []).map((ip) => ({ ip, port: s.port })), ...(s.nodePort !== undefined ? [{ ip: s.clusterIP.includes(':') ? VIRTUAL_NODEPORT_DNAT_IPV6 : VIRTUAL_NODEPORT_DNAT_IP, port: s.nodePort }] : [])];
    for (const e of s.endpoints) if (!kept.has(`${e.ip}:${e.port}`)) out.push({ endpoint: { ip: e.ip, port: e.port }, frontends });
  }
  return out;
}

/** Where the controller applies its results. */
export interface ServiceSink {
  setServices(specs: ServicePortSpec[]): Promise<unknown>;
  /** The host's part: node port rules, routes to external addresses, health-check ports (after the flows). */
  setHost?(specs: ServicePortSpec[], healthChecks: HealthCheckPort[]): Promise<unknown>;
  /** Flushes the connection tracking entries of UDP endpoints that left their Service (after the flows). */
  flushStale?(stale: StaleUdpEndpoint[]): Promise<unknown>;
}

/** Options of {@link ServiceController}. */
export interface ServiceControllerOptions {
  nodeName: string;
  sink: ServiceSink;
  logger?: Logger;
  /** Clock of the retry after a failed apply (tests drive it). */
  clock?: Clock;
  /** Delays between retries of a failed apply (default runtime's RECONCILE_RETRY). */
  retry?: BackoffPolicy;
  /** See {@link ServiceMappingInput.proxyLoadBalancerIPs}. */
  proxyLoadBalancerIPs?: boolean;
  /** See {@link ServiceMappingInput.skipServices}. */
  skipServices?: readonly string[];
  /** See {@link ServiceMappingInput.ipv6}. */
  ipv6?: boolean;
  /** See {@link ServiceMappingInput.ipv6Only}. */
  ipv6Only?: boolean;
  /** See {@link ServiceMappingInput.ipv6NodePorts}. */
  ipv6NodePorts?: boolean;
  /**
   * Where the group id of each Service port is recorded (durably, when the allocation changes) and
   * read back at the next start, so a restarted agent keeps every Service's group id and adopts
   * its flows. Without it ids are numbered afresh in each run (listing order).
   */
  groupIdsFile?: string;
}

/**
 * Feeds Service and EndpointSlice events into the pipeline's Service ports. Changes are applied
 * one batch at a time, latest state wins: a burst of events (a Deployment scaling) costs one flow
 * sync; a failed apply is retried after a backoff. Invalid objects are logged and left out; they
 * never stop the others.
 */
export class ServiceController {
  private readonly services = new Map<string, KubeObject>();
  private readonly slices = new Map<string, KubeObject>();
  private readonly groupIds = new ServiceGroupIds();
  private readonly log: Logger;
  private readonly reconciler: Reconciler;
  private lastKey = '';
  /** The allocation as last written to {@link ServiceControllerOptions.groupIdsFile}. */
  private recordedIds = '';
  private reported = new Set<string>();
  private readonly skip: ReadonlySet<string>;
  /** This node's zone (topology hints); set by the part once it has read its Node. */
  nodeZone: string | undefined;
  /** Service ports currently realized. */
  specs: ServicePortSpec[] = [];
  /** Health-check node ports currently wanted. */
  healthChecks: HealthCheckPort[] = [];

  constructor(private readonly o: ServiceControllerOptions) {
    this.log = o.logger ?? silentLogger;
    this.skip = new Set(o.skipServices ?? []);
    if (o.groupIdsFile !== undefined) {
      this.groupIds.seed(readServiceGroupIds(o.groupIdsFile, this.log));
      this.recordedIds = JSON.stringify(Object.fromEntries(this.groupIds.entries()));
    }
    this.reconciler = new Reconciler(() => this.apply(), {
      ...(o.retry ? { retry: o.retry } : {}),
      clock: o.clock ?? systemClock,
      onError: (e, retryInMs) => this.log.error({ err: e, retryInMs }, 'services not applied'),
    });
  }

  /** Failure of the last apply (kept until an apply succeeds). */
  get lastError(): unknown {
    return this.reconciler.lastError;
  }

  /** Informer handler for Services. */
  readonly onServiceEvent = (e: InformerEvent): void => {
    this.record(this.services, e);
  };

  /** Informer handler for EndpointSlices. */
  readonly onSliceEvent = (e: InformerEvent): void => {
    this.record(this.slices, e);
  };

  /**
   * Loads a full listing and returns the specs without applying them: the agent puts them in the
   * first round of a run (before the watches start), then the watches' events find nothing new.
   */
  prime(services: readonly KubeObject[], slices: readonly KubeObject[]): ServicePortSpec[] {
    this.services.clear();
    this.slices.clear();
    for (const s of services) this.services.set(nsName(s), s);
    for (const s of slices) this.slices.set(nsName(s), s);
    const { specs, healthChecks } = this.compute();
    this.specs = specs;
    this.healthChecks = healthChecks;
    this.lastKey = JSON.stringify([specs, healthChecks]);
    return this.specs;
  }

  /** Group ids in use by Service port key. */
  groups(): [string, number][] {
    return this.groupIds.entries();
  }

  /** Resolves when every change seen so far has been applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  /** No apply starts after this (a pending retry is cancelled); a running one is awaited. */
  stop(): Promise<void> {
    return this.reconciler.stop();
  }

  private record(cache: Map<string, KubeObject>, e: InformerEvent): void {
    if (e.type === 'DELETED') cache.delete(nsName(e.object));
    else cache.set(nsName(e.object), e.object);
    this.reconciler.schedule();
  }

  /** Applies again even if nothing changed (the host lost its routes with the gateway). */
  resync(): void {
    this.lastKey = '';
    this.reconciler.schedule();
  }

  private compute(): { specs: ServicePortSpec[]; healthChecks: HealthCheckPort[] } {
    const { specs, skipped, healthChecks } = servicesToSpecs({
      services: [...this.services.values()], slices: [...this.slices.values()], nodeName: this.o.nodeName, groupIds: this.groupIds,
      skipServices: this.skip, ...(this.o.ipv6 ? { ipv6: true } : {}), ...(this.o.ipv6Only ? { ipv6Only: true } : {}), ...(this.o.ipv6NodePorts ? { ipv6NodePorts: true } : {}), ...(this.nodeZone !== undefined ? { nodeZone: this.nodeZone } : {}), ...(this.o.proxyLoadBalancerIPs !== undefined ? { proxyLoadBalancerIPs: this.o.proxyLoadBalancerIPs } : {}),
    });
    // Each problem is logged once, not at every recomputation.
    const now = new Set<string>();
    for (const s of skipped) {
      const k = JSON.stringify(s);
      now.add(k);
      if (!this.reported.has(k)) this.log.warn(s, 'Service object part skipped');
    }
    this.reported = now;
    this.recordIds();
    return { specs, healthChecks };
  }

  /**
   * Writes the allocation when it changed (a Service port came or went). Before the flows with the
   * new ids are installed: a crash in between leaves a record naming ids that were never installed,
   * which is harmless (they are taken again as they are). A failed write is logged: the next start
   * then renumbers, and replaces the flows rather than adopting them.
   */
  private recordIds(): void {
    const file = this.o.groupIdsFile;
    if (file === undefined) return;
    const ids = Object.fromEntries(this.groupIds.entries());
    const text = JSON.stringify(ids);
    if (text === this.recordedIds) return;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileDurableSync(file, `${JSON.stringify({ groupIds: ids })}\n`, { mode: 0o600 });
      this.recordedIds = text;
    } catch (e) {
      this.log.warn({ err: e instanceof Error ? e.message : String(e), file }, 'Service group ids not recorded');
    }
  }

  private async apply(): Promise<void> {
    // Let the events of one burst (one watch chunk) land before computing.
    await Promise.resolve();
    const { specs, healthChecks } = this.compute();
    const key = JSON.stringify([specs, healthChecks]);
    if (key === this.lastKey) return;
    const before = this.specs;
    await this.o.sink.setServices(specs);
    this.specs = specs;
    this.healthChecks = healthChecks;
    const stale = staleUdpEndpoints(before, specs);
    if (stale.length > 0) {
      // A failed flush only delays the move of those flows (until their conntrack entries expire): logged, not retried.
      await this.o.sink.flushStale?.(stale)?.catch((e: unknown) => this.log.warn({ err: e instanceof Error ? e.message : String(e), stale: stale.length }, 'stale UDP Service connections not flushed'));
    }
    await this.o.sink.setHost?.(specs, healthChecks);
    this.lastKey = key;
    this.log.info({ servicePorts: specs.length, endpoints: specs.reduce((n, s) => n + s.endpoints.length, 0) }, 'services realized');
  }
}
