/**
 * Which node owns each Service external IP (pure): the LoadBalancer ingress IPs of Services annotated
 * with an ExternalIPPool, the nodes alive and selected by each pool, and one owner per IP by
 * rendezvous hashing, so every agent computes the same owner from the same objects.
 */
import { createHash } from 'node:crypto';
import { SERVICE_EXTERNAL_IP_POOL_ANNOTATION, type ExternalIPPool, type Node, type Service } from '@switchyard/apis/types';
import { matchesSelector } from '@switchyard/policy-compiler';
import { ipv4Of } from '../../ipv4';
import { ipv6Of } from '../../ipv6';

/** The Service annotation naming the ExternalIPPool its LoadBalancer IP comes from (Antrea's). */
export const POOL_ANNOTATION = SERVICE_EXTERNAL_IP_POOL_ANNOTATION;
/** Member Leases are named `<prefix><nodeName>`. */
export const MEMBER_LEASE_PREFIX = 'switchyard-agent-';

/** What this feature reads of an ExternalIPPool (`crd.antrea.io/v1beta1`): its name and `spec.nodeSelector` (the ranges are the controller's business). */
export type ExternalIPPoolView = Pick<ExternalIPPool, 'metadata'> & { spec?: Partial<Pick<ExternalIPPool['spec'], 'nodeSelector'>> };

/**
 * The member Lease annotation listing the external IPs its agent answers for (comma-separated): a
 * node that is to take an IP waits until no other live member claims it, so a handover between two
 * live agents (the old owner back after a restart) never has both answering.
 */
export const CLAIMS_ANNOTATION = 'switchyard.io/external-ips';

/**
 * The member Lease annotation listing the Egress IPs without a pool that its node holds as local
 * addresses (comma-separated): every agent chooses the owner of such an IP from these, the way it
 * chooses a pool IP's owner from the Leases' liveness.
 */
export const LOCAL_IPS_ANNOTATION = 'switchyard.io/local-egress-ips';

/** What this feature reads of a `coordination.k8s.io/v1` Lease. */
export interface LeaseView {
  metadata: { name?: string; annotations?: Record<string, string> };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string };
}

/** One external IP and the Services (or the Egress) that carry it. */
export interface ExternalIP {
  ip: string;
  pool: string;
  /** `namespace/name` of each Service with this ingress IP, sorted. */
  services: string[];
  /** Names of the Egresses with this IP (the controller gives an IP to one object only; more is a problem reported). */
  egresses?: string[];
  /**
   * An Egress IP without a pool (Antrea's manual mode): the user put it on one node's interface by
   * hand. Its owner is the live node holding it as a local address (the first by name when several
   * do), not the rendezvous choice, and that node answers ARP for it by itself: no proxy entry, no
   * gratuitous ARP. `pool` is ''.
   */
  manual?: true;
  /**
   * With `externalTrafficPolicy: Local` (every Service of the IP): the nodes holding a ready
   * endpoint of each of them, sorted (only they can answer, so the owner is chosen among them).
   */
  localNodes?: string[];
}

/** What this feature reads of a discovery.k8s.io/v1 EndpointSlice. */
export interface EndpointSliceView {
  metadata: { namespace?: string; labels?: Record<string, string> };
  endpoints?: { nodeName?: string; conditions?: { ready?: boolean | null } }[] | null;
}

/** Nodes with a ready endpoint, by Service `namespace/name` (from the `kubernetes.io/service-name` label). */
export function endpointNodes(slices: Iterable<EndpointSliceView>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of slices) {
    const svc = s.metadata.labels?.['kubernetes.io/service-name'];
    if (!svc) continue;
    const key = `${s.metadata.namespace ?? 'default'}/${svc}`;
    const set = out.get(key) ?? new Set<string>();
    for (const e of s.endpoints ?? []) if ((e.conditions?.ready ?? true) && e.nodeName) set.add(e.nodeName);
    out.set(key, set);
  }
  return out;
}

/** Something left out, named by object, field and value. */
export interface ExternalIPProblem {
  /** `Service default/web`, `ExternalIPPool pool-a`. */
  object: string;
  field: string;
  value: unknown;
  message: string;
}

/**
 * The family of an external IP in the text the agent hands to `ip` and switchyard-netns (dotted
 * quad, or IPv6 in RFC 5952 form as the controller writes it), else undefined.
 */
export function externalIPFamily(text: string | undefined): 4 | 6 | undefined {
  if (ipv4Of(text) !== undefined) return 4;
  if (ipv6Of(text) !== undefined) return 6;
  return undefined;
}

/** A Service reference as `namespace/name`. */
const svcKey = (s: Service): string => `${s.metadata.namespace ?? 'default'}/${s.metadata.name ?? ''}`;

/**
 * The external IPs to place: every `status.loadBalancer.ingress[].ip` of a `type: LoadBalancer`
 * Service that names a pool in {@link POOL_ANNOTATION}, IPv4 and IPv6 alike (a dual-stack Service's
 * two IPs are placed each on its own). An ingress IP that is not an IPv4 or RFC 5952 IPv6 address,
 * or one IP claimed through two pools, is a problem naming the field; the rest still applies.
 */
export function serviceExternalIPs(services: readonly Service[], endpoints: ReadonlyMap<string, ReadonlySet<string>> = new Map()): { ips: ExternalIP[]; problems: ExternalIPProblem[] } {
  const byIp = new Map<string, ExternalIP>();
  const local = new Map<string, boolean>();
  const problems: ExternalIPProblem[] = [];
  for (const s of [...services].sort((a, b) => svcKey(a).localeCompare(svcKey(b)))) {
    const pool = s.metadata.annotations?.[POOL_ANNOTATION];
    if (s.spec?.type !== 'LoadBalancer' || !pool) continue;
    const key = svcKey(s);
    const isLocal = (s.spec as { externalTrafficPolicy?: string } | undefined)?.externalTrafficPolicy === 'Local';
    (s.status?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
      if (ing.ip === undefined) return; // a hostname-only ingress is not ours to announce
      const field = `status.loadBalancer.ingress[${i}].ip`;
      if (externalIPFamily(ing.ip) === undefined) {
        problems.push({ object: `Service ${key}`, field, value: ing.ip, message: `${field} ${JSON.stringify(ing.ip)} is not an IPv4 address or an IPv6 address in RFC 5952 form` });
        return;
      }
      local.set(ing.ip, (local.get(ing.ip) ?? true) && isLocal);
      const seen = byIp.get(ing.ip);
      if (!seen) return void byIp.set(ing.ip, { ip: ing.ip, pool, services: [key] });
      if (seen.pool !== pool) {
        problems.push({ object: `Service ${key}`, field: `metadata.annotations["${POOL_ANNOTATION}"]`, value: pool, message: `${field} ${ing.ip} is already placed through pool ${seen.pool} (Service ${seen.services[0]}); pool ${pool} is ignored for it` });
        return;
      }
      if (!seen.services.includes(key)) seen.services.push(key);
    });
  }
  for (const e of byIp.values()) {
    if (!local.get(e.ip)) continue;
    // Nodes that can serve every Service of the IP locally.
    const sets = e.services.map((k) => endpoints.get(k) ?? new Set<string>());
    e.localNodes = [...(sets[0] ?? [])].filter((n) => sets.every((x) => x.has(n))).sort();
  }
  return { ips: [...byIp.values()].sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true })), problems };
}

/** What this feature reads of an Egress (`crd.antrea.io/v1beta1`): its IP and pool. */
export interface EgressView {
  metadata: { name?: string; creationTimestamp?: string };
  spec?: { egressIP?: string; externalIPPool?: string; egressIPs?: string[]; externalIPPools?: string[] };
}

/**
 * The Egress IPs to place: the `spec.egressIP` of an Egress naming its `spec.externalIPPool`, or
 * each entry of `egressIPs` with its pool of `externalIPPools` (a dual-stack Egress: one IPv4 and one
 * IPv6 IP, each placed on its own), as the controller allocated them; then each `spec.egressIP` of
 * an Egress naming no pool (manual mode, oldest first as the controller decides). An IP already
 * carried by a Service or another Egress, or a second IP of one family, is a problem naming the
 * field; the first keeps it. A manual IP is IPv4 or IPv6 (an IPv6 one as the node's address
 * reads it: RFC 5952 text).
 */
export function egressExternalIPs(egresses: readonly EgressView[], taken: readonly ExternalIP[] = []): { ips: ExternalIP[]; problems: ExternalIPProblem[] } {
  const byIp = new Map(taken.map((e) => [e.ip, e]));
  const ips: ExternalIP[] = [];
  const problems: ExternalIPProblem[] = [];
  const isManual = (eg: EgressView): boolean => !eg.spec?.externalIPPool && (eg.spec?.externalIPPools?.length ?? 0) === 0;
  const byName = (a: EgressView, b: EgressView): number => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
  const byAge = (a: EgressView, b: EgressView): number => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || byName(a, b);
  const ordered = [...egresses.filter((eg) => !isManual(eg)).sort(byName), ...egresses.filter(isManual).sort(byAge)];
  for (const eg of ordered) {
    const name = eg.metadata.name ?? '';
    const spec = eg.spec ?? {};
    const manual = isManual(eg);
    const slots = manual
      ? [{ ip: spec.egressIP, pool: '', field: 'spec.egressIP' }]
      : spec.externalIPPool ? [{ ip: spec.egressIP, pool: spec.externalIPPool, field: 'spec.egressIP' }] : (spec.externalIPPools ?? []).map((pool, i) => ({ ip: spec.egressIPs?.[i], pool, field: `spec.egressIPs[${i}]` }));
    const families = new Map<4 | 6, string>();
    for (const x of slots) {
      if (x.ip === undefined || x.ip === '') continue; // not allocated yet
      const problem = (why: string): void => void problems.push({ object: `Egress ${name}`, field: x.field, value: x.ip, message: `${x.field} ${JSON.stringify(x.ip)} ${why}` });
      const family = externalIPFamily(x.ip);
      if (family === undefined) {
        problem('is not an IPv4 address or an IPv6 address in RFC 5952 form');
        continue;
      }
      const first = families.get(family);
      if (first !== undefined) {
        problem(`is a second IPv${family} IP (${first} is the first): an Egress takes one IP per family; this one is ignored`);
        continue;
      }
      families.set(family, x.field);
      const seen = byIp.get(x.ip);
      if (seen) {
        const holder = seen.egresses?.length ? `Egress ${seen.egresses[0]}` : `Service ${seen.services[0] ?? ''}`;
        problems.push({ object: `Egress ${name}`, field: x.field, value: x.ip, message: `${x.field} ${x.ip} is already placed for ${holder}; this Egress is ignored` });
        continue;
      }
      const e: ExternalIP = { ip: x.ip, pool: x.pool, services: [], egresses: [name], ...(manual ? { manual: true as const } : {}) };
      byIp.set(x.ip, e);
      ips.push(e);
    }
  }
  return { ips, problems };
}

/** When a Lease runs out (ms since the epoch): its last renewal (or acquisition) plus its duration; undefined when it carries neither. */
export function leaseExpiry(lease: LeaseView): number | undefined {
  const at = Date.parse(lease.spec?.renewTime ?? lease.spec?.acquireTime ?? '');
  const seconds = lease.spec?.leaseDurationSeconds;
  if (!Number.isFinite(at) || typeof seconds !== 'number' || !(seconds > 0)) return undefined;
  return at + seconds * 1000;
}

/** A node as owner choice sees it. */
export interface Member {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** The Ready condition is neither False nor Unknown (absent counts as ready). */
  ready: boolean;
  /** When its agent's member Lease runs out; undefined: no Lease (no agent, or stopped). */
  leaseExpiresAt: number | undefined;
  /** The IPs its Lease says its agent answers for ({@link CLAIMS_ANNOTATION}). */
  claims?: readonly string[];
  /** The Egress IPs without a pool its Lease says its node holds as local addresses ({@link LOCAL_IPS_ANNOTATION}). */
  localIPs?: readonly string[];
}

/** Nodes joined with their agents' member Leases (by name `switchyard-agent-<node>`). */
export function membersOf(nodes: readonly Node[], leases: readonly LeaseView[]): Member[] {
  const expiry = new Map<string, number | undefined>();
  const claims = new Map<string, string[]>();
  const local = new Map<string, string[]>();
  for (const l of leases) {
    const name = l.metadata.name ?? '';
    if (!name.startsWith(MEMBER_LEASE_PREFIX)) continue;
    const node = name.slice(MEMBER_LEASE_PREFIX.length);
    expiry.set(node, leaseExpiry(l));
    const c = l.metadata.annotations?.[CLAIMS_ANNOTATION];
    if (c) claims.set(node, c.split(',').filter((ip) => ip !== ''));
    const h = l.metadata.annotations?.[LOCAL_IPS_ANNOTATION];
    if (h) local.set(node, h.split(',').filter((ip) => ip !== ''));
  }
  return nodes.map((n) => {
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    const name = n.metadata.name ?? '';
    const claimed = claims.get(name);
    const held = local.get(name);
    return { name, labels: n.metadata.labels ?? {}, ready: ready !== 'False' && ready !== 'Unknown', leaseExpiresAt: expiry.get(name), ...(claimed ? { claims: claimed } : {}), ...(held ? { localIPs: held } : {}) };
  });
}

/** The other live member whose Lease still claims `ip` (it answers for it until it sees the new owner), if any. */
export function claimedElsewhere(ip: string, self: string, members: readonly Member[], now: number): string | undefined {
  // A claim holds while its Lease does, Ready or not: a NotReady node whose agent still runs answers
  // for the IP until it sees itself NotReady, releases and rewrites its claims (CI-Z saw the new owner
  // take 9 ms before the NotReady one released when NotReady voided the claim).
  return members.find((m) => m.name !== self && m.leaseExpiresAt !== undefined && m.leaseExpiresAt > now && (m.claims ?? []).includes(ip))?.name;
}

/** Whether a member can hold IPs at `now`: Ready and its Lease not run out. */
export const alive = (m: Member, now: number): boolean => m.ready && m.leaseExpiresAt !== undefined && m.leaseExpiresAt > now;

/** The nodes that may own a pool's IPs at `now`, sorted by name. A pool without a nodeSelector selects every node (as Antrea). */
export function candidatesOf(pool: ExternalIPPoolView, members: readonly Member[], now: number): string[] {
  const sel = pool.spec?.nodeSelector;
  return members.filter((m) => alive(m, now) && (sel === undefined || matchesSelector(sel, m.labels))).map((m) => m.name).sort();
}

/** The weight of (ip, node) in rendezvous hashing: 48 bits of SHA-256, exact in a double. */
function weight(ip: string, node: string): number {
  return createHash('sha256').update(`${ip}\0${node}`).digest().readUIntBE(0, 6);
}

/**
 * The owner of `ip` among `candidates` (highest random weight): the same on every agent, IPs spread
 * evenly, and when a candidate leaves only the IPs it owned move. Undefined without candidates.
 */
export function rendezvousOwner(ip: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const c of candidates) {
    const w = weight(ip, c);
    if (w > bestWeight || (w === bestWeight && best !== undefined && c < best)) [best, bestWeight] = [c, w];
  }
  return best;
}

/** One external IP with its owner (or why it has none). */
export interface Assignment extends ExternalIP {
  owner: string | undefined;
  /** Why there is no owner. */
  reason?: string;
  /** A manual IP that several live nodes hold as a local address (sorted; the first owns it): a problem to report. */
  holders?: string[];
}

/** What this node knows of itself first-hand: its name and the local addresses it holds now (its own Lease says so a write later). */
export interface LocalView {
  self: string;
  addresses: ReadonlySet<string>;
}

/**
 * The live nodes holding a manual IP as a local address, sorted: this node from its own addresses,
 * the others from their Leases ({@link LOCAL_IPS_ANNOTATION}).
 */
export function manualHolders(ip: string, members: readonly Member[], now: number, local?: LocalView): string[] {
  return members
    .filter((m) => alive(m, now) && (local !== undefined && m.name === local.self ? local.addresses.has(ip) : (m.localIPs ?? []).includes(ip)))
    .map((m) => m.name)
    .sort();
}

/**
 * Places every external IP on its owner at `now`. A pool IP: the rendezvous choice among the pool's
 * candidates. A manual IP: the live node holding it as a local address; when several do (the same
 * address put on two nodes), the first by name, the same on every agent, and the others are named
 * in `holders` (only one node SNATs).
 */
export function assignOwners(ips: readonly ExternalIP[], pools: ReadonlyMap<string, ExternalIPPoolView>, members: readonly Member[], now: number, view?: LocalView): Assignment[] {
  return ips.map((e) => {
    if (e.manual) {
      const holders = manualHolders(e.ip, members, now, view);
      if (holders.length === 0) return { ...e, owner: undefined, reason: 'no node with a live agent holds it as a local address (an Egress without a pool: put the IP on one node\'s interface by hand)' };
      return { ...e, owner: holders[0], ...(holders.length > 1 ? { holders } : {}) };
    }
    const pool = pools.get(e.pool);
    if (!pool) return { ...e, owner: undefined, reason: `ExternalIPPool ${e.pool} does not exist` };
    const all = candidatesOf(pool, members, now);
    // Local policy: among the nodes with a local endpoint when any can (else any candidate, as none could answer anyway).
    const local = e.localNodes === undefined ? [] : all.filter((n) => e.localNodes!.includes(n));
    const owner = rendezvousOwner(e.ip, local.length > 0 ? local : all);
    return owner !== undefined ? { ...e, owner } : { ...e, owner: undefined, reason: `no Ready node with a live agent matches ExternalIPPool ${e.pool}'s nodeSelector` };
  });
}

/** The earliest Lease expiry after `now` among Ready members: when owners must be chosen again even if no object changes. */
export function nextExpiry(members: readonly Member[], now: number): number | undefined {
  let next: number | undefined;
  for (const m of members) if (m.ready && m.leaseExpiresAt !== undefined && m.leaseExpiresAt > now && (next === undefined || m.leaseExpiresAt < next)) next = m.leaseExpiresAt;
  return next;
}
