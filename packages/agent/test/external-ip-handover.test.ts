/**
 * The handover of an external IP whose old owner's agent still runs (its Node NotReady): the old
 * owner's member Lease lists the IPs it answers for, and the new owner takes an IP only once no
 * live Lease lists it. On the manual clock, with the agents' sinks recording one shared history.
 */
import type { Node } from '@switchyard/apis/types';
import { KubeRequestError, type InformerEvent, type KubeClient } from '@switchyard/kube';
import { silentLogger } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { ExternalIPController, type ExternalIPSink } from '../src/features/external-ip/controller';
import { MemberLease, microTime } from '../src/features/external-ip/member-lease';
import { HELD_IPS_ANNOTATION, heldElsewhere, membersOf, rendezvousOwner, type ExternalIPPoolView, type LeaseView } from '../src/features/external-ip/ownership';

const T0 = Date.parse('2026-01-01T00:00:00Z');
/** An IP the rendezvous choice gives n2 while n1 and n2 are both candidates. */
const IP = Array.from({ length: 50 }, (_, i) => `192.168.77.${200 + i}`).find((ip) => rendezvousOwner(ip, ['n1', 'n2']) === 'n2')!;

const node = (name: string, ready: 'True' | 'False' = 'True'): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} }, status: { conditions: [{ type: 'Ready', status: ready }] } });
const lease = (nodeName: string, renewedAt: number, held: string[] = []): LeaseView => ({
  metadata: { name: `switchyard-agent-${nodeName}`, ...(held.length ? { annotations: { [HELD_IPS_ANNOTATION]: held.join(',') } } : {}) },
  spec: { holderIdentity: nodeName, leaseDurationSeconds: 6, renewTime: microTime(renewedAt) },
});
const pool: ExternalIPPoolView = { metadata: { name: 'p' }, spec: {} };
const ev = (type: InformerEvent['type'], object: unknown): InformerEvent => ({ type, object: object as InformerEvent['object'] });
const egress = { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'eg', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { appliedTo: { podSelector: {} }, externalIPPool: 'p', egressIP: IP } };

describe('what a member Lease says it holds', () => {
  it('is read from the annotation; another node holds an IP while its Lease is live, Ready or not, and never after it runs out', () => {
    const members = membersOf([node('n1'), node('n2', 'False'), node('n3')], [lease('n1', T0, [IP]), lease('n2', T0, [` ${IP} `, '10.0.0.9']), lease('n3', T0 - 6000, [IP])]);
    expect(members.map((m) => [m.name, m.holds])).toEqual([['n1', [IP]], ['n2', [IP, '10.0.0.9']], ['n3', [IP]]]);
    // n2 is NotReady but its agent runs: it still answers; n3's Lease ran out: its word lapsed.
    expect(heldElsewhere(IP, 'n1', members, T0 + 1000)).toBe('n2');
    expect(heldElsewhere(IP, 'n2', members, T0 + 1000)).toBe('n1');
    expect(heldElsewhere(IP, 'n1', members, T0 + 6000)).toBeUndefined();
    expect(heldElsewhere('10.0.0.8', 'n1', members, T0 + 1000)).toBeUndefined();
    expect(membersOf([node('n1')], [lease('n1', T0)])[0]!.holds).toEqual([]);
  });
});

/** Two agents whose sinks write one history, and whose Leases (with what they hold) reach both. */
function twoAgents(clock: ManualClock) {
  const history: string[] = [];
  const answering = new Map<string, Set<string>>([['n1', new Set()], ['n2', new Set()]]);
  /** Whenever any node answers: at most one per IP (checked at every take). */
  const both: string[] = [];
  const agents = new Map<string, ExternalIPController>();
  const renewedAt = new Map<string, number>();
  const held = new Map<string, string[]>();
  /** The agent's Lease, as its MemberLease writes it, delivered to every agent. */
  const publish = (name: string): void => {
    for (const c of agents.values()) c.onLeaseEvent(ev('MODIFIED', lease(name, renewedAt.get(name)!, held.get(name) ?? [])));
  };
  for (const name of ['n1', 'n2']) {
    const sink: ExternalIPSink = {
      async take(ip) {
        answering.get(name)!.add(ip);
        history.push(`${name} take ${ip}`);
        if ([...answering.values()].filter((s) => s.has(ip)).length > 1) both.push(ip);
      },
      async release(ip) {
        answering.get(name)!.delete(ip);
        history.push(`${name} release ${ip}`);
      },
    };
    agents.set(name, new ExternalIPController({
      nodeName: name, sink, clock, logger: silentLogger, selfAlive: () => true,
      onInstalled: (ips) => {
        held.set(name, [...ips]);
        publish(name);
      },
    }));
    renewedAt.set(name, clock.now());
  }
  const all = (f: (c: ExternalIPController) => void): void => agents.forEach(f);
  const idle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) for (const c of agents.values()) await c.idle();
  };
  return { agents, history, answering, both, all, idle, publish, renewedAt, held };
}

describe('the handover', () => {
  async function setUp() {
    const clock = new ManualClock(T0);
    const k = twoAgents(clock);
    k.all((c) => {
      c.onPoolEvent(ev('ADDED', pool));
      c.onNodeEvent(ev('ADDED', node('n1')));
      c.onNodeEvent(ev('ADDED', node('n2')));
      c.onEgressEvent(ev('ADDED', egress));
    });
    k.publish('n1');
    k.publish('n2');
    await k.idle();
    expect(k.history).toEqual([`n2 take ${IP}`]);
    expect(k.held.get('n2')).toEqual([IP]);
    return { clock, k };
  }

  it('the old owner goes NotReady, its agent running: the new owner waits for its Lease to drop the IP, then takes it; never both', async () => {
    const { k } = await setUp();
    const n1 = k.agents.get('n1')!;
    // n1 sees the NotReady first: it owns the IP now, but n2's Lease still lists it.
    n1.onNodeEvent(ev('MODIFIED', node('n2', 'False')));
    await n1.idle();
    expect(n1.assignments.find((a) => a.ip === IP)?.owner).toBe('n1');
    expect(n1.waiting).toEqual([{ ip: IP, holder: 'n2' }]);
    expect(k.answering.get('n1')!.has(IP)).toBe(false);
    // n2 sees it: lets go and writes its Lease, at which n1 takes the IP.
    k.agents.get('n2')!.onNodeEvent(ev('MODIFIED', node('n2', 'False')));
    await k.idle();
    expect(k.history).toEqual([`n2 take ${IP}`, `n2 release ${IP}`, `n1 take ${IP}`]);
    expect(n1.waiting).toEqual([]);
    expect(k.both).toEqual([]);
    // Ready again: n2 is the owner again, and takes the IP once n1's Lease drops it.
    k.all((c) => c.onNodeEvent(ev('MODIFIED', node('n2'))));
    await k.idle();
    expect(k.history.slice(3)).toEqual([`n1 release ${IP}`, `n2 take ${IP}`]);
    expect(k.both).toEqual([]);
  });

  it("a holder whose Lease runs out (its agent gone while NotReady) holds nothing: the IP is taken when it lapses, with no object changing", async () => {
    const { clock, k } = await setUp();
    const n1 = k.agents.get('n1')!;
    n1.onNodeEvent(ev('MODIFIED', node('n2', 'False')));
    await n1.idle();
    expect(n1.waiting).toEqual([{ ip: IP, holder: 'n2' }]);
    // n2's agent never hears of it (crashed): n1 renews, n2 does not.
    for (const t of [2000, 4000]) {
      await clock.advanceAsync(2000);
      k.renewedAt.set('n1', T0 + t);
      n1.onLeaseEvent(ev('MODIFIED', lease('n1', T0 + t, k.held.get('n1') ?? [])));
      await n1.idle();
      expect(k.answering.get('n1')!.has(IP)).toBe(false);
    }
    await clock.advanceAsync(2001);
    await n1.idle();
    expect(k.answering.get('n1')!.has(IP)).toBe(true);
    expect(n1.waiting).toEqual([]);
  });
});

describe('a restarted owner', () => {
  it('takes an IP its record holds again, announcing it, once the node that held it meanwhile let go; one it no longer owns it releases', async () => {
    const clock = new ManualClock(T0);
    const log: string[] = [];
    const installed: string[][] = [];
    const sink: ExternalIPSink = { take: async (ip) => void log.push(`take ${ip}`), release: async (ip) => void log.push(`release ${ip}`) };
    // n2 was killed while it owned IP; n1 took it at n2's Lease expiry and still holds it.
    const c = new ExternalIPController({ nodeName: 'n2', sink, clock, logger: silentLogger, selfAlive: () => true, installed: [IP, '10.9.9.9'], onInstalled: (ips) => void installed.push([...ips]) });
    c.onPoolEvent(ev('ADDED', pool));
    c.onNodeEvent(ev('ADDED', node('n1')));
    c.onNodeEvent(ev('ADDED', node('n2')));
    c.onEgressEvent(ev('ADDED', egress));
    c.onLeaseEvent(ev('ADDED', lease('n1', T0, [IP])));
    c.onLeaseEvent(ev('ADDED', lease('n2', T0, [IP, '10.9.9.9'])));
    await c.idle();
    // What it no longer owns goes at once; its own IP waits for n1 (the entry left on the node stays meanwhile).
    expect(log).toEqual(['release 10.9.9.9']);
    expect(installed.at(-1)).toEqual([IP]);
    expect(c.waiting).toEqual([{ ip: IP, holder: 'n1' }]);
    c.onLeaseEvent(ev('MODIFIED', lease('n1', T0)));
    await c.idle();
    expect(log).toEqual(['release 10.9.9.9', `take ${IP}`]);
    expect([...c.taken]).toEqual([IP]);
    await c.stop({ release: true });
    expect(log.at(-1)).toBe(`release ${IP}`);
    expect(installed.at(-1)).toEqual([]);
  });
});

/** Leases in memory, as the API server answers MemberLease's calls (updates conditional on resourceVersion). */
function leaseApi() {
  const store = new Map<string, { metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> } }>();
  let rv = 0;
  const writes: string[] = [];
  const kube: KubeClient = {
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const name = path.split('/').at(-1)!;
      if (method === 'POST' || method === 'PUT') {
        const o = structuredClone(body) as { metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> } };
        const have = store.get(o.metadata.name);
        if (method === 'PUT' && o.metadata.resourceVersion !== have?.metadata.resourceVersion) throw new KubeRequestError(method, path, 409, 'modified');
        o.metadata.resourceVersion = String(++rv);
        store.set(o.metadata.name, o);
        writes.push(`${method} ${o.metadata.annotations?.[HELD_IPS_ANNOTATION] ?? '-'}`);
        return structuredClone(o) as T;
      }
      const have = store.get(name);
      if (!have) throw new KubeRequestError(method, path, 404, 'not found');
      if (method === 'DELETE') store.delete(name);
      return structuredClone(have) as T;
    },
    watch: () => Promise.reject(new Error('no watches here')),
  };
  return { kube, store, writes };
}

describe('the member Lease carries what the node holds', () => {
  it('from the start (a previous run\'s record), at once on every change (sorted; gone when none), and not once it stops', async () => {
    const clock = new ManualClock(T0);
    const api = leaseApi();
    const l = new MemberLease({ kube: api.kube, nodeName: 'n1', namespace: 'kube-system', renewSeconds: 2, durationSeconds: 6, clock, logger: silentLogger, held: ['10.0.0.9'] });
    l.start();
    await clock.advanceAsync(0);
    expect(api.writes).toEqual(['POST 10.0.0.9']);
    await l.setHeld(['10.0.0.9', '10.0.0.1']);
    expect(api.writes).toEqual(['POST 10.0.0.9', 'PUT 10.0.0.1,10.0.0.9']);
    // The same set again: nothing to write.
    await l.setHeld(['10.0.0.1', '10.0.0.9']);
    expect(api.writes).toHaveLength(2);
    await l.setHeld([]);
    expect(api.writes.at(-1)).toBe('PUT -');
    expect(api.store.get('switchyard-agent-n1')!.metadata.annotations).toBeUndefined();
    // The periodic renewal keeps what was written.
    await l.setHeld(['10.0.0.2']);
    await clock.advanceAsync(2000);
    expect(api.writes.at(-1)).toBe('PUT 10.0.0.2');
    await l.stop({ release: false });
    const n = api.writes.length;
    await l.setHeld([]);
    expect(api.writes).toHaveLength(n);
  });
});
