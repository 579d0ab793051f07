/**
 * ServiceExternalIP on the manual clock: which ingress IPs are placed, who is a candidate, the
 * owner choice (rendezvous hashing), failover when an owner's Lease runs out, is deleted or its
 * Node goes NotReady, self-fencing of an agent that cannot renew its Lease (never two nodes
 * answering), the proxy-ARP keeper's script, the member Lease's renewals, and the options' checks.
 */
import type { Node, Service } from '@switchyard/apis/types';
import { KubeRequestError, type InformerEvent, type KubeClient } from '@switchyard/kube';
import { silentLogger } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { ExternalIPController, type ExternalIPSink } from '../src/features/external-ip/controller';
import { MemberLease, microTime } from '../src/features/external-ip/member-lease';
import { assignOwners, candidatesOf, claimedElsewhere, endpointNodes, membersOf, rendezvousOwner, serviceExternalIPs, type ExternalIPPoolView, type LeaseView } from '../src/features/external-ip/ownership';
import { resolveAgentOptions } from '../src/options';

const T0 = Date.parse('2026-01-01T00:00:00Z');

const svc = (name: string, ips: string[], pool: string | null = 'pool-a', type: 'LoadBalancer' | 'ClusterIP' = 'LoadBalancer'): Service => ({
  apiVersion: 'v1', kind: 'Service',
  metadata: { name, namespace: 'default', ...(pool ? { annotations: { 'service.antrea.io/external-ip-pool': pool } } : {}) },
  spec: { type, ports: [{ port: 80 }] },
  status: { loadBalancer: { ingress: ips.map((ip) => ({ ip })) } },
});
const node = (name: string, labels: Record<string, string> = { lb: 'yes' }, ready: 'True' | 'False' | 'Unknown' = 'True'): Node => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, status: { conditions: [{ type: 'Ready', status: ready }] },
});
const lease = (nodeName: string, renewedAt: number, seconds = 6, claims?: readonly string[]): LeaseView => ({
  metadata: { name: `switchyard-agent-${nodeName}`, ...(claims?.length ? { annotations: { 'switchyard.io/external-ips': claims.join(',') } } : {}) },
  spec: { holderIdentity: nodeName, leaseDurationSeconds: seconds, renewTime: microTime(renewedAt) },
});
const pool = (name: string, matchLabels?: Record<string, string>): ExternalIPPoolView => ({ metadata: { name }, spec: matchLabels ? { nodeSelector: { matchLabels } } : {} });

describe('the external IPs to place', () => {
  it('takes the ingress IPs of annotated LoadBalancer Services only, and names each bad value with its field', () => {
    const { ips, problems } = serviceExternalIPs([
      svc('web', ['192.168.77.200']),
      svc('shared', ['192.168.77.200', '192.168.77.201']),
      svc('plain', ['192.168.77.202'], null),
      svc('internal', ['192.168.77.203'], 'pool-a', 'ClusterIP'),
      svc('bad', ['not-an-ip']),
      svc('other-pool', ['192.168.77.201'], 'pool-b'),
    ]);
    expect(ips).toEqual([
      { ip: '192.168.77.200', pool: 'pool-a', services: ['default/shared', 'default/web'] },
      // Services are read in namespace/name order: other-pool claimed .201 first.
      { ip: '192.168.77.201', pool: 'pool-b', services: ['default/other-pool'] },
    ]);
    expect(problems.map((p) => [p.object, p.field, p.value])).toEqual([
      ['Service default/bad', 'status.loadBalancer.ingress[0].ip', 'not-an-ip'],
      ['Service default/shared', 'metadata.annotations["service.antrea.io/external-ip-pool"]', 'pool-a'],
    ]);
    expect(problems[1]!.message).toBe('status.loadBalancer.ingress[1].ip 192.168.77.201 is already placed through pool pool-b (Service default/other-pool); pool pool-a is ignored for it');
    expect(problems[0]!.message).toBe('status.loadBalancer.ingress[0].ip "not-an-ip" is not an IPv4 address or an IPv6 address in RFC 5952 form');
  });

  it('places IPv6 ingress IPs as IPv4 ones: both IPs of a dual-stack Service, each on its rendezvous owner; non-RFC 5952 text is named', () => {
    const dual = { ...svc('dual', ['192.168.77.200', 'fd00:77::c8']), spec: { type: 'LoadBalancer', ports: [{ port: 80 }], externalTrafficPolicy: 'Local' } } as Service;
    const { ips, problems } = serviceExternalIPs([dual, svc('six', ['fd00:77::c9']), svc('long', ['fd00:0077:0:0:0:0:0:ca'])], new Map([['default/dual', new Set(['n2'])]]));
    expect(ips).toEqual([
      { ip: '192.168.77.200', pool: 'pool-a', services: ['default/dual'], localNodes: ['n2'] },
      { ip: 'fd00:77::c8', pool: 'pool-a', services: ['default/dual'], localNodes: ['n2'] },
      { ip: 'fd00:77::c9', pool: 'pool-a', services: ['default/six'] },
    ]);
    expect(problems.map((p) => [p.field, p.value])).toEqual([['status.loadBalancer.ingress[0].ip', 'fd00:0077:0:0:0:0:0:ca']]);
    const members = membersOf([node('n1'), node('n2'), node('n3')], [lease('n1', T0), lease('n2', T0), lease('n3', T0)]);
    const owners = assignOwners(ips, new Map([['pool-a', pool('pool-a', { lb: 'yes' })]]), members, T0 + 1000);
    // Local policy: both of the dual-stack Service's IPs on the node with its endpoint; the IPv6-only one by its own hash.
    expect(owners.map((a) => a.owner)).toEqual(['n2', 'n2', rendezvousOwner('fd00:77::c9', ['n1', 'n2', 'n3'])]);
  });
});

describe('candidates and the owner choice', () => {
  it('a node is a candidate when the pool selects it, it is Ready and its Lease has not run out', () => {
    const members = membersOf(
      [node('ready'), node('unlabelled', {}), node('notready', { lb: 'yes' }, 'False'), node('unknown', { lb: 'yes' }, 'Unknown'), node('expired'), node('nolease'), { metadata: { name: 'nocond', labels: { lb: 'yes' } } }],
      [lease('ready', T0), lease('unlabelled', T0), lease('notready', T0), lease('unknown', T0), lease('expired', T0 - 6_000), lease('nocond', T0)],
    );
    expect(candidatesOf(pool('p', { lb: 'yes' }), members, T0 + 1000)).toEqual(['nocond', 'ready']);
    // No nodeSelector: every live Ready node.
    expect(candidatesOf(pool('p'), members, T0 + 1000)).toEqual(['nocond', 'ready', 'unlabelled']);
  });

  it('is the same for the same inputs in any order, spreads IPs over the nodes, and moves only the IPs of a node that leaves', () => {
    const ips = Array.from({ length: 90 }, (_, i) => `10.200.${Math.floor(i / 200)}.${(i % 200) + 1}`);
    const three = ['n1', 'n2', 'n3'];
    const before = new Map(ips.map((ip) => [ip, rendezvousOwner(ip, three)]));
    expect(ips.every((ip) => rendezvousOwner(ip, ['n3', 'n1', 'n2']) === before.get(ip))).toBe(true);
    const counts = three.map((n) => [...before.values()].filter((o) => o === n).length);
    for (const c of counts) expect(c).toBeGreaterThan(15);
    const after = new Map(ips.map((ip) => [ip, rendezvousOwner(ip, ['n1', 'n3'])]));
    for (const ip of ips) if (before.get(ip) !== 'n2') expect(after.get(ip)).toBe(before.get(ip));
    expect(rendezvousOwner('10.0.0.1', [])).toBeUndefined();
  });

  it('externalTrafficPolicy Local: the owner is chosen among the nodes with a ready endpoint of every Service of the IP (any candidate when none has)', () => {
    const local = (name: string, ip: string): Service => ({ ...svc(name, [ip]), spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] } });
    const slice = (service: string, eps: [string, boolean][]) => ({
      metadata: { namespace: 'default', labels: { 'kubernetes.io/service-name': service } }, endpoints: eps.map(([nodeName, ready]) => ({ nodeName, conditions: { ready } })),
    });
    const eps = endpointNodes([slice('web', [['n2', true], ['n3', false]]), slice('none', [])]);
    const { ips } = serviceExternalIPs([local('web', '10.0.0.1'), local('none', '10.0.0.2'), svc('cluster', ['10.0.0.3'])], eps);
    expect(ips.map((e) => [e.ip, e.localNodes])).toEqual([['10.0.0.1', ['n2']], ['10.0.0.2', []], ['10.0.0.3', undefined]]);
    const members = membersOf([node('n1'), node('n2'), node('n3')], [lease('n1', T0), lease('n2', T0), lease('n3', T0)]);
    const owners = assignOwners(ips, new Map([['pool-a', pool('pool-a')]]), members, T0 + 1000).map((a) => a.owner);
    expect(owners[0]).toBe('n2');
    // No node can serve it locally: any live candidate still owns it.
    expect(['n1', 'n2', 'n3']).toContain(owners[1]);
  });

  it('an IP whose pool is missing or selects no live node has no owner, and says why', () => {
    const members = membersOf([node('n1', { lb: 'no' })], [lease('n1', T0)]);
    const [missing, none] = assignOwners(
      [{ ip: '10.0.0.1', pool: 'gone', services: ['default/a'] }, { ip: '10.0.0.2', pool: 'p', services: ['default/b'] }],
      new Map([['p', pool('p', { lb: 'yes' })]]),
      members,
      T0,
    );
    expect(missing).toMatchObject({ owner: undefined, reason: 'ExternalIPPool gone does not exist' });
    expect(none).toMatchObject({ owner: undefined, reason: expect.stringContaining("no Ready node with a live agent matches ExternalIPPool p's nodeSelector") });
  });
});

/** A sink that records what is on the node. */
class RecordingSink implements ExternalIPSink {
  readonly on = new Set<string>();
  readonly log: string[] = [];
  async take(ip: string): Promise<void> {
    this.on.add(ip);
    this.log.push(`take ${ip}`);
  }
  async release(ip: string): Promise<void> {
    this.on.delete(ip);
    this.log.push(`release ${ip}`);
  }
}

const ev = (type: InformerEvent['type'], object: unknown): InformerEvent => ({ type, object: object as InformerEvent['object'] });

/**
 * Agents on nodes n1..n3, each with its controller, fed the same objects, on one manual clock. With
 * `claims`, each agent publishes its claims in its Lease (as MemberLease.claim does), seen at once by all.
 */
function cluster(names: string[], clock: ManualClock, opts: { claims?: boolean } = {}) {
  const renewed = new Map(names.map((n) => [n, clock.now()]));
  const claims = new Map<string, readonly string[]>();
  let agents: { name: string; sink: RecordingSink; c: ExternalIPController; taken: string[] }[] = [];
  const all = (e: (c: ExternalIPController) => void): void => agents.forEach((a) => e(a.c));
  agents = names.map((name) => {
    const sink = new RecordingSink();
    const taken: string[] = [];
    const c = new ExternalIPController({
      nodeName: name, sink, clock, logger: silentLogger,
      // MemberLease.fenceAt with its default margin: a duration (6 s) less 1 s after the last renewal.
      selfFenceAt: () => (renewed.has(name) ? renewed.get(name)! + 5000 : undefined),
      onTaken: (a) => taken.push(a.ip),
      ...(opts.claims ? {
        claim: async (ips: readonly string[]) => {
          claims.set(name, [...ips]);
          all((x) => x.onLeaseEvent(ev('MODIFIED', lease(name, renewed.get(name) ?? clock.now(), 6, ips))));
        },
      } : {}),
    });
    return { name, sink, c, taken };
  });
  return {
    agents,
    renewed,
    all,
    /** Every agent renews its Lease now (the ones in `except` do not: stopped or crashed). */
    renew(except: string[] = []) {
      for (const a of agents) {
        if (except.includes(a.name)) continue;
        renewed.set(a.name, clock.now());
        all((c) => c.onLeaseEvent(ev('MODIFIED', lease(a.name, clock.now(), 6, claims.get(a.name)))));
      }
    },
    async idle() {
      for (const a of agents) await a.c.idle();
    },
    /** The owners as the nodes' sinks show them: ip -> nodes answering for it. */
    answering(): Map<string, string[]> {
      const m = new Map<string, string[]>();
      for (const a of agents) for (const ip of a.sink.on) m.set(ip, [...(m.get(ip) ?? []), a.name].sort());
      return m;
    },
  };
}

describe('failover on the manual clock', () => {
  const IPS = ['192.168.77.200', '192.168.77.201', '192.168.77.202', '192.168.77.203', '192.168.77.204', '192.168.77.205'];

  async function setUp() {
    const clock = new ManualClock(T0);
    const k = cluster(['n1', 'n2', 'n3'], clock);
    k.all((c) => {
      c.onPoolEvent(ev('ADDED', pool('pool-a', { lb: 'yes' })));
      for (const n of ['n1', 'n2', 'n3']) c.onNodeEvent(ev('ADDED', node(n)));
      IPS.forEach((ip, i) => c.onServiceEvent(ev('ADDED', svc(`s${i}`, [ip]))));
    });
    k.renew();
    await k.idle();
    return { clock, k };
  }

  it('exactly one node answers for each IP, the one every agent names, and it records an Event', async () => {
    const { k } = await setUp();
    const answering = k.answering();
    expect([...answering.keys()].sort()).toEqual(IPS);
    for (const [ip, nodes] of answering) {
      expect(nodes).toHaveLength(1);
      for (const a of k.agents) expect(a.c.assignments.find((x) => x.ip === ip)?.owner).toBe(nodes[0]);
    }
    expect(k.agents.flatMap((a) => a.taken).sort()).toEqual(IPS);
    expect(k.agents[0]!.c.info()).toContainEqual({ serviceName: 's0', namespace: 'default', externalIP: IPS[0], externalIPPool: 'pool-a', assignedNode: answering.get(IPS[0]!)![0] });
  });

  it("a crashed owner's IPs move when its Lease runs out, with no object changing, and only its IPs move", async () => {
    const { clock, k } = await setUp();
    const before = k.answering();
    const victim = before.get(IPS[0]!)![0]!;
    // Renewals every 2 s, but not the victim's (crashed: its Lease stays as it was; its keeper took its entries off).
    const gone = k.agents.find((a) => a.name === victim)!;
    await gone.c.stop({ release: true });
    await clock.advanceAsync(2000);
    k.renew([victim]);
    await clock.advanceAsync(2000);
    k.renew([victim]);
    await k.idle();
    expect(k.answering().get(IPS[0]!)).toBeUndefined(); // 4 s: not run out yet, so nobody has taken it
    await clock.advanceAsync(2001); // 6 s after its last renewal: run out
    await k.idle();
    for (const ip of IPS) {
      const owner = before.get(ip)![0]!;
      const now = k.answering().get(ip) ?? [];
      if (owner === victim) {
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(victim);
      } else expect(now).toEqual([owner]);
    }
  });

  it('a live agent that cannot renew its Lease (cut off from the API) lets go of its IPs by its own clock before the others take them: never two nodes answering', async () => {
    const { clock, k } = await setUp();
    const victim = k.answering().get(IPS[0]!)![0]!;
    const cut = k.agents.find((a) => a.name === victim)!;
    const held = [...cut.sink.on].sort();
    const releasedAt = new Map<string, number>();
    const takenAt = new Map<string, number>();
    // Every 100 ms on the manual clock for 8 s: the others renew every 2 s, the victim cannot.
    for (let t = 100; t <= 8000; t += 100) {
      await clock.advanceAsync(100);
      if (t % 2000 === 0) k.renew([victim]);
      await k.idle();
      for (const [ip, nodes] of k.answering()) {
        expect({ ip, t, nodes: nodes.length }).toEqual({ ip, t, nodes: 1 });
        if (!nodes.includes(victim) && held.includes(ip) && !takenAt.has(ip)) takenAt.set(ip, t);
      }
      for (const ip of held) if (!cut.sink.on.has(ip) && !releasedAt.has(ip)) releasedAt.set(ip, t);
    }
    expect(cut.c.fenced).toBe(true);
    for (const ip of held) {
      // Released at 5 s (the deadline, its own clock), taken by another at 6 s (the Lease's end on theirs).
      expect(releasedAt.get(ip)).toBe(5000);
      expect(takenAt.get(ip)).toBeGreaterThanOrEqual(6000);
    }
    // Once it renews again it is a candidate again and takes back what rendezvous gives it.
    k.renew();
    for (const x of k.agents) x.c.schedule();
    await k.idle();
    expect(cut.c.fenced).toBe(false);
    expect([...cut.sink.on].sort()).toEqual(held);
    for (const nodes of k.answering().values()) expect(nodes).toHaveLength(1);
  });

  it('an owner back after a restart waits until the live node holding its IPs no longer claims them in its Lease: never two nodes answering', async () => {
    const clock = new ManualClock(T0);
    const k = cluster(['n1', 'n2'], clock, { claims: true });
    const ip = IPS.find((x) => rendezvousOwner(x, ['n1', 'n2']) === 'n2')!;
    const [n1, n2] = k.agents as [(typeof k.agents)[0], (typeof k.agents)[0]];
    k.all((c) => {
      c.onPoolEvent(ev('ADDED', pool('pool-a', { lb: 'yes' })));
      for (const n of ['n1', 'n2']) c.onNodeEvent(ev('ADDED', node(n)));
      c.onServiceEvent(ev('ADDED', svc('s', [ip])));
    });
    // n2's agent is not running yet: n1 owns the IP and claims it.
    k.renewed.delete('n2');
    k.renew(['n2']);
    await k.idle();
    expect(k.answering().get(ip)).toEqual(['n1']);
    // n2's agent starts: its first renewal is seen by both. Each step of the handover is checked.
    const seen: string[][] = [];
    const sample = (): void => void seen.push(k.answering().get(ip) ?? []);
    n1.sink.take = ((take) => async (x: string) => { sample(); await take(x); sample(); })(n1.sink.take.bind(n1.sink));
    n2.sink.take = ((take) => async (x: string) => { sample(); await take(x); sample(); })(n2.sink.take.bind(n2.sink));
    n1.sink.release = ((release) => async (x: string) => { sample(); await release(x); sample(); })(n1.sink.release.bind(n1.sink));
    k.renewed.set('n2', clock.now());
    n2.c.onLeaseEvent(ev('MODIFIED', lease('n2', clock.now())));
    await n2.c.idle();
    expect(n2.c.waiting.get(ip)).toBe('n1');
    expect(n2.sink.on.has(ip)).toBe(false);
    n1.c.onLeaseEvent(ev('MODIFIED', lease('n2', clock.now())));
    await k.idle();
    await k.idle();
    expect(k.answering().get(ip)).toEqual(['n2']);
    expect(n2.c.waiting.size).toBe(0);
    for (const s of seen) expect(s.length).toBeLessThanOrEqual(1);
  });

  it('a deleted Lease (graceful stop) or a NotReady Node moves the IPs at once', async () => {
    const { k } = await setUp();
    const owner = k.answering().get(IPS[1]!)![0]!;
    const gone = k.agents.find((a) => a.name === owner)!;
    await gone.c.stop({ release: true });
    expect(gone.sink.on.size).toBe(0);
    for (const a of k.agents) if (a !== gone) a.c.onLeaseEvent(ev('DELETED', lease(owner, 0)));
    await k.idle();
    const next = k.answering().get(IPS[1]!)!;
    expect(next).toHaveLength(1);
    expect(next[0]).not.toBe(owner);
    // Now that one's Node goes NotReady: its IPs move to the last node.
    for (const a of k.agents) if (a !== gone) a.c.onNodeEvent(ev('MODIFIED', node(next[0]!, { lb: 'yes' }, 'False')));
    await k.idle();
    const last = k.agents.find((a) => a.name !== owner && a.name !== next[0])!;
    expect([...last.sink.on].sort()).toEqual(IPS);
    expect(k.agents.find((a) => a.name === next[0])!.sink.on.size).toBe(0);
  });

  it('when no agent can renew (the API is away), every agent lets go of its IPs and takes none until its Lease is renewed', async () => {
    const { clock, k } = await setUp();
    const a = k.agents[0]!;
    const held = [...a.sink.on].sort();
    await clock.advanceAsync(4999);
    await k.idle();
    expect([...a.sink.on].sort()).toEqual(held);
    // After 6 s every Lease looks run out: nobody takes anyone's IPs, everyone has let go of its own.
    await clock.advanceAsync(2001);
    await k.idle();
    expect(a.c.frozen).toBe(true);
    expect(k.answering().size).toBe(0);
    k.renew();
    for (const x of k.agents) x.c.schedule();
    await k.idle();
    expect(a.c.frozen).toBe(false);
    expect([...a.sink.on].sort()).toEqual(held);
  });

  it('before its first renewal a restarted agent moves nothing; then it takes again the IPs it still owns (its keeper took them off) without a new Event', async () => {
    const clock = new ManualClock(T0);
    const sink = new RecordingSink();
    const lease1: { fenceAt?: number } = {};
    const taken: string[] = [];
    const c = new ExternalIPController({ nodeName: 'n1', sink, clock, logger: silentLogger, selfFenceAt: () => lease1.fenceAt, installed: ['192.168.77.210'], onTaken: (a) => void taken.push(a.ip) });
    c.onPoolEvent(ev('ADDED', pool('pool-a')));
    c.onNodeEvent(ev('ADDED', node('n1')));
    c.onLeaseEvent(ev('ADDED', lease('n1', T0)));
    c.onServiceEvent(ev('ADDED', svc('web', ['192.168.77.210'])));
    await c.idle();
    expect(c.frozen).toBe(true);
    expect(sink.log).toEqual([]);
    lease1.fenceAt = T0 + 5000; // its first renewal
    c.schedule();
    await c.idle();
    expect(sink.log).toEqual(['take 192.168.77.210']);
    expect(taken).toEqual([]);
    c.schedule();
    await c.idle();
    expect(sink.log).toEqual(['take 192.168.77.210']);
  });

  it("IPs a previous run left taken are released unless this node still owns them, and a Service's deletion releases its IP", async () => {
    const clock = new ManualClock(T0);
    const sink = new RecordingSink();
    sink.on.add('10.9.9.9');
    const recorded: string[][] = [];
    const c = new ExternalIPController({ nodeName: 'n1', sink, clock, logger: silentLogger, selfFenceAt: () => Infinity, installed: ['10.9.9.9'], onInstalled: (ips) => void recorded.push([...ips]) });
    c.onPoolEvent(ev('ADDED', pool('pool-a')));
    c.onNodeEvent(ev('ADDED', node('n1')));
    c.onLeaseEvent(ev('ADDED', lease('n1', T0)));
    c.onServiceEvent(ev('ADDED', svc('web', ['192.168.77.210'])));
    await c.idle();
    expect(sink.log).toEqual(['release 10.9.9.9', 'take 192.168.77.210']);
    expect(recorded.at(-1)).toEqual(['192.168.77.210']);
    c.onServiceEvent(ev('DELETED', svc('web', ['192.168.77.210'])));
    await c.idle();
    expect(sink.on.size).toBe(0);
    expect(recorded.at(-1)).toEqual([]);
  });

  it('a previous run\'s IPv6 IPs are adopted as IPv4 ones: the one still owned is taken again, the other released, and the record holds both families', async () => {
    const clock = new ManualClock(T0);
    const sink = new RecordingSink();
    for (const ip of ['fd00:77::c8', 'fd00:77::c9']) sink.on.add(ip);
    const recorded: string[][] = [];
    const c = new ExternalIPController({ nodeName: 'n1', sink, clock, logger: silentLogger, selfFenceAt: () => Infinity, installed: ['fd00:77::c8', 'fd00:77::c9'], onInstalled: (ips) => void recorded.push([...ips]) });
    c.onPoolEvent(ev('ADDED', pool('pool-a')));
    c.onNodeEvent(ev('ADDED', node('n1')));
    c.onLeaseEvent(ev('ADDED', lease('n1', T0)));
    c.onServiceEvent(ev('ADDED', svc('web6', ['fd00:77::c8', '192.168.77.211'])));
    await c.idle();
    expect(sink.log).toEqual(['release fd00:77::c9', 'take 192.168.77.211', 'take fd00:77::c8']);
    expect([...sink.on].sort()).toEqual(['192.168.77.211', 'fd00:77::c8']);
    expect([...recorded.at(-1)!].sort()).toEqual(['192.168.77.211', 'fd00:77::c8']);
  });
});

/** A Kubernetes API holding Leases in memory, answering as the API server does for the calls MemberLease makes (updates conditional on resourceVersion). */
function leaseApi() {
  const store = new Map<string, Record<string, unknown> & { metadata: { name: string; resourceVersion?: string } }>();
  const calls: string[] = [];
  let down = false;
  let rv = 0;
  const kube: KubeClient = {
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      calls.push(`${method} ${path}`);
      if (down) throw new KubeRequestError(method, path, 503, 'unavailable');
      const name = path.split('/').at(-1)!;
      if (method === 'POST') {
        const o = structuredClone(body) as Record<string, unknown> & { metadata: { name: string; resourceVersion?: string } };
        if (store.has(o.metadata.name)) throw new KubeRequestError(method, path, 409, 'already exists');
        o.metadata.resourceVersion = String(++rv);
        store.set(o.metadata.name, o);
        return structuredClone(o) as T;
      }
      const have = store.get(name);
      if (!have) throw new KubeRequestError(method, path, 404, 'not found');
      if (method === 'PUT') {
        const o = structuredClone(body) as typeof have;
        if (o.metadata.resourceVersion !== have.metadata.resourceVersion) throw new KubeRequestError(method, path, 409, 'the object has been modified');
        o.metadata.resourceVersion = String(++rv);
        store.set(name, o);
        return structuredClone(o) as T;
      }
      if (method === 'DELETE') store.delete(name);
      return structuredClone(have) as T;
    },
    watch: () => Promise.reject(new Error('no watches here')),
  };
  /** Someone else writes the Lease (its resourceVersion moves on). */
  const touch = (name: string): void => void (store.get(name)!.metadata.resourceVersion = String(++rv));
  return { kube, store, calls, touch, setDown: (d: boolean) => (down = d) };
}

describe('the member Lease', () => {
  it('is created, updated every period on the clock (read again after a conflict), and deleted on a graceful stop', async () => {
    const clock = new ManualClock(T0);
    const api = leaseApi();
    const renewals: number[] = [];
    const l = new MemberLease({ kube: api.kube, nodeName: 'n1', namespace: 'kube-system', renewSeconds: 2, durationSeconds: 6, clock, logger: silentLogger, onRenewed: () => renewals.push(clock.now() - T0) });
    l.start();
    await clock.advanceAsync(0);
    expect(api.store.get('switchyard-agent-n1')).toMatchObject({ spec: { holderIdentity: 'n1', leaseDurationSeconds: 6, renewTime: '2026-01-01T00:00:00.000000Z', acquireTime: '2026-01-01T00:00:00.000000Z' } });
    await clock.advanceAsync(4000);
    expect(renewals).toEqual([0, 2000, 4000]);
    expect((api.store.get('switchyard-agent-n1')!.spec as { renewTime: string }).renewTime).toBe('2026-01-01T00:00:04.000000Z');
    expect(l.current(clock.now())).toBe(true);
    // Written meanwhile by someone else: the update conflicts, the Lease is read again and updated.
    api.touch('switchyard-agent-n1');
    await clock.advanceAsync(2000);
    expect(renewals).toEqual([0, 2000, 4000, 6000]);
    expect(api.calls.slice(-3).map((c) => c.split(' ')[0])).toEqual(['PUT', 'GET', 'PUT']);
    await l.stop({ release: true });
    expect(api.store.has('switchyard-agent-n1')).toBe(false);
    expect(api.calls.at(-1)).toBe('DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/switchyard-agent-n1');
  });

  it('a failed renewal is kept, and the Lease stops being current a duration after the last good one', async () => {
    const clock = new ManualClock(T0);
    const api = leaseApi();
    const l = new MemberLease({ kube: api.kube, nodeName: 'n1', namespace: 'kube-system', renewSeconds: 2, durationSeconds: 6, clock, logger: silentLogger });
    l.start();
    await clock.advanceAsync(0);
    api.setDown(true);
    await clock.advanceAsync(4000);
    expect(l.lastError).toBeInstanceOf(KubeRequestError);
    expect(l.current(clock.now())).toBe(true);
    await clock.advanceAsync(2000);
    expect(l.current(clock.now())).toBe(false);
    api.setDown(false);
    await clock.advanceAsync(2000);
    expect(l.lastError).toBeUndefined();
    expect(l.current(clock.now())).toBe(true);
    // A crash (no release) leaves the Lease to run out.
    await l.stop({ release: false });
    expect(api.store.has('switchyard-agent-n1')).toBe(true);
  });
});

describe('the member Lease claims', () => {
  it('writes the claimed IPs into the Lease at once, keeps them on renewals, and rejects a claim it could not write', async () => {
    const clock = new ManualClock(T0);
    const api = leaseApi();
    const l = new MemberLease({ kube: api.kube, nodeName: 'n1', namespace: 'kube-system', renewSeconds: 2, durationSeconds: 6, clock, logger: silentLogger });
    l.start();
    await clock.advanceAsync(0);
    const annotations = (): unknown => (api.store.get('switchyard-agent-n1')!.metadata as { annotations?: Record<string, string> }).annotations;
    expect(annotations()).toEqual({});
    await l.claim(['192.168.77.221', '192.168.77.220']);
    expect(annotations()).toEqual({ 'switchyard.io/external-ips': '192.168.77.220,192.168.77.221' });
    const writes = api.calls.length;
    await l.claim(['192.168.77.220', '192.168.77.221']);
    expect(api.calls.length).toBe(writes); // unchanged: no write
    await clock.advanceAsync(2000);
    expect(annotations()).toEqual({ 'switchyard.io/external-ips': '192.168.77.220,192.168.77.221' });
    await l.claim([]);
    expect(annotations()).toEqual({});
    api.setDown(true);
    await expect(l.claim(['192.168.77.222'])).rejects.toBeInstanceOf(KubeRequestError);
    await l.stop({ release: false });
  });
});

describe('options', () => {
  const base = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', dataDir: '/d', ovsdbRemote: 'unix:/x' };
  const kube = leaseApi().kube;
  it('needs a Kubernetes API to be on', () => {
    expect(resolveAgentOptions({ ...base, serviceExternalIP: true }).serviceExternalIP).toBe(false);
    expect(resolveAgentOptions({ ...base, kube, serviceExternalIP: true }).serviceExternalIP).toBe(true);
  });
  it('refuses periods no Lease can keep, naming the field and the value', () => {
    expect(() => resolveAgentOptions({ ...base, memberLeaseDurationSeconds: 2.5 })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: 'memberLeaseDurationSeconds', value: 2.5 }));
    expect(() => resolveAgentOptions({ ...base, memberLeaseRenewSeconds: 6 })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: 'memberLeaseRenewSeconds', message: expect.stringContaining('must be shorter than memberLeaseDurationSeconds (6)') }));
    expect(() => resolveAgentOptions({ ...base, memberLeaseRenewSeconds: 0 })).toThrow(expect.objectContaining({ path: 'memberLeaseRenewSeconds', value: 0 }));
    expect(() => resolveAgentOptions({ ...base, memberLeaseNamespace: 'Kube System' })).toThrow(expect.objectContaining({ path: 'memberLeaseNamespace' }));
  });
});

describe('claimedElsewhere', () => {
  const member = (name: string, ready: boolean, leaseExpiresAt: number, claims: string[]) => ({ name, labels: {}, ready, leaseExpiresAt, claims });
  it('a NotReady node whose Lease is still fresh keeps its claim until it rewrites it (it answers ARP until it sees itself NotReady)', () => {
    expect(claimedElsewhere('10.0.0.9', 'n1', [member('n2', false, 2000, ['10.0.0.9'])], 1000)).toBe('n2');
    expect(claimedElsewhere('10.0.0.9', 'n1', [member('n2', true, 2000, ['10.0.0.9'])], 1000)).toBe('n2');
  });
  it('a run-out Lease, a claim rewritten without the IP, or this node itself holds nothing', () => {
    expect(claimedElsewhere('10.0.0.9', 'n1', [member('n2', false, 999, ['10.0.0.9'])], 1000)).toBeUndefined();
    expect(claimedElsewhere('10.0.0.9', 'n1', [member('n2', false, 2000, [])], 1000)).toBeUndefined();
    expect(claimedElsewhere('10.0.0.9', 'n1', [member('n1', true, 2000, ['10.0.0.9'])], 1000)).toBeUndefined();
  });
});
