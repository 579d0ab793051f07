/**
 * Egress IPs without a pool (Antrea's manual mode) on the manual clock: which Egresses are manual,
 * the owner chosen from the local addresses (this node's own reading, the others' Leases), two
 * nodes holding one address (the first by name, the other named), the external IP controller
 * taking and releasing a manual IP without touching the proxy-ARP sink, the handover when the
 * address moves (never two nodes taking it), the host SNAT rules of the stand-in, and the address
 * watch (events read the set again; a dead monitor is started again on the backstop period).
 */
import type { Node } from '@switchyard/apis/types';
import type { InformerEvent } from '@switchyard/kube';
import { silentLogger } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { ExternalIPController, type ExternalIPSink } from '../src/features/external-ip/controller';
import { LocalAddressWatch } from '../src/features/external-ip/local-addresses';
import { microTime } from '../src/features/external-ip/member-lease';
import { assignOwners, egressExternalIPs, membersOf, type EgressView, type LeaseView } from '../src/features/external-ip/ownership';
import { manualSnatRestore, manualStandIn } from '../src/features/egress/manual-snat';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const IP = '192.168.77.240';
const node = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
const lease = (n: string, at: number, a: { claims?: readonly string[]; local?: readonly string[] } = {}): LeaseView => ({
  metadata: {
    name: `switchyard-agent-${n}`,
    annotations: { ...(a.claims?.length ? { 'switchyard.io/external-ips': a.claims.join(',') } : {}), ...(a.local?.length ? { 'switchyard.io/local-egress-ips': a.local.join(',') } : {}) },
  },
  spec: { holderIdentity: n, leaseDurationSeconds: 6, renewTime: microTime(at) },
});
const egress = (name: string, spec: NonNullable<EgressView['spec']>, created = '2026-01-01T00:00:00Z'): EgressView => ({ metadata: { name, creationTimestamp: created }, spec });
const ev = (type: InformerEvent['type'], object: unknown): InformerEvent => ({ type, object: object as InformerEvent['object'] });

describe('which Egress IPs are manual, and who owns them', () => {
  it('an Egress without a pool is manual; pool Egresses are placed first, manual ones oldest first; an IPv6 one is placed, one not in RFC 5952 form named', () => {
    const { ips, problems } = egressExternalIPs([
      egress('young', { egressIP: '10.0.0.9' }, '2026-01-02T00:00:00Z'),
      egress('old', { egressIP: '10.0.0.9' }, '2026-01-01T00:00:00Z'),
      egress('pooled', { egressIP: '10.0.0.5', externalIPPool: 'p' }),
      egress('takes-pooled', { egressIP: '10.0.0.5' }),
      egress('v6', { egressIP: 'fd00::5' }),
      egress('v6-long', { egressIP: 'fd00:0::6' }),
      egress('none', {}),
    ]);
    expect(ips).toEqual([
      { ip: '10.0.0.5', pool: 'p', services: [], egresses: ['pooled'] },
      { ip: '10.0.0.9', pool: '', services: [], egresses: ['old'], manual: true },
      { ip: 'fd00::5', pool: '', services: [], egresses: ['v6'], manual: true },
    ]);
    expect(problems.map((p) => `${p.object} ${p.field} ${String(p.value)}`)).toEqual(['Egress takes-pooled spec.egressIP 10.0.0.5', 'Egress v6-long spec.egressIP fd00:0::6', 'Egress young spec.egressIP 10.0.0.9']);
    expect(problems[1]!.message).toBe('spec.egressIP "fd00:0::6" is not an IPv4 address or an IPv6 address in RFC 5952 form');
  });

  it('a pool Egress with an IPv6 IP is placed, a dual-stack one has both IPs placed; an IPv6 IP not in RFC 5952 form is a problem naming it', () => {
    const { ips, problems } = egressExternalIPs([
      egress('six', { egressIP: 'fd00:77::c9', externalIPPool: 'p6' }),
      egress('both', { egressIPs: ['fd00:77::ca', '10.0.0.7'], externalIPPools: ['p6', 'p4'] }),
      egress('junk', { egressIP: 'fd00:0077::cb', externalIPPool: 'p6' }),
    ]);
    expect(ips).toEqual([
      { ip: 'fd00:77::ca', pool: 'p6', services: [], egresses: ['both'] },
      { ip: '10.0.0.7', pool: 'p4', services: [], egresses: ['both'] },
      { ip: 'fd00:77::c9', pool: 'p6', services: [], egresses: ['six'] },
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      'spec.egressIP "fd00:0077::cb" is not an IPv4 address or an IPv6 address in RFC 5952 form',
    ]);
  });

  it('the owner is the live node holding the address: this node from its own reading, the others from their Leases; none: the reason says so', () => {
    const manual = [{ ip: IP, pool: '', services: [], egresses: ['m'], manual: true as const }];
    const members = membersOf([node('n1'), node('n2'), node('n3')], [lease('n1', T0), lease('n2', T0, { local: [IP] }), lease('n3', T0 - 10_000, { local: [IP] })]);
    // n3's Lease ran out: it counts for nothing.
    expect(assignOwners(manual, new Map(), members, T0 + 1000, { self: 'n1', addresses: new Set() })[0]).toMatchObject({ owner: 'n2' });
    expect(assignOwners(manual, new Map(), members, T0 + 1000, { self: 'n2', addresses: new Set() })[0]).toMatchObject({ owner: undefined, reason: expect.stringContaining('no node with a live agent holds it as a local address') });
    // Two holders (n1 by its own reading, n2 by its Lease): the first by name, the same from n2's side once n1's Lease says so.
    const both = assignOwners(manual, new Map(), members, T0 + 1000, { self: 'n1', addresses: new Set([IP, '192.168.77.1']) })[0];
    expect(both).toMatchObject({ owner: 'n1', holders: ['n1', 'n2'] });
    const fromN2 = membersOf([node('n1'), node('n2')], [lease('n1', T0, { local: [IP] }), lease('n2', T0)]);
    expect(assignOwners(manual, new Map(), fromN2, T0 + 1000, { self: 'n2', addresses: new Set([IP]) })[0]).toMatchObject({ owner: 'n1', holders: ['n1', 'n2'] });
  });
});

class RecordingSink implements ExternalIPSink {
  readonly log: string[] = [];
  async take(ip: string): Promise<void> {
    this.log.push(`take ${ip}`);
  }
  async release(ip: string): Promise<void> {
    this.log.push(`release ${ip}`);
  }
}

/** Two agents whose Leases (claims and local addresses) every agent sees at once, on one clock. */
function twoAgents(clock: ManualClock, ip = IP) {
  const names = ['n1', 'n2'];
  /** Who had taken the IP at each claim (just before a take, just after a release) and after each pass; the claims in order. */
  const samples: string[][] = [];
  const claimLog: string[] = [];
  const taking = (): string[] => agents.filter((a) => a.c.taken.has(ip)).map((a) => a.name);
  const ann = new Map(names.map((n) => [n, { claims: [] as readonly string[], local: [] as readonly string[] }]));
  const agents: { name: string; sink: RecordingSink; c: ExternalIPController; installed: string[][]; announced: string[] }[] = names.map((name) => {
    const sink = new RecordingSink();
    const installed: string[][] = [];
    const announced: string[] = [];
    const publish = (): void => {
      for (const a of agents) a.c.onLeaseEvent(ev('MODIFIED', lease(name, clock.now(), ann.get(name))));
    };
    const c: ExternalIPController = new ExternalIPController({
      nodeName: name, sink, clock, logger: silentLogger, followsLocalAddresses: true,
      selfFenceAt: () => clock.now() + 5000,
      claim: async (ips) => {
        samples.push(taking());
        claimLog.push(`${name} [${ips.join()}]`);
        ann.get(name)!.claims = [...ips];
        publish();
      },
      publishLocal: async (ips) => {
        if (ann.get(name)!.local.join() === ips.join()) return;
        ann.get(name)!.local = [...ips];
        publish();
      },
      onInstalled: (ips) => void installed.push([...ips]),
      announceLocal: async (x) => void announced.push(x),
    });
    return { name, sink, c, installed, announced };
  });
  for (const a of agents) {
    for (const n of names) a.c.onNodeEvent(ev('ADDED', node(n)));
    for (const n of names) a.c.onLeaseEvent(ev('ADDED', lease(n, clock.now())));
    a.c.onEgressEvent(ev('ADDED', egress('m', { egressIP: ip })));
  }
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      for (const a of agents) {
        await a.c.idle();
        samples.push(taking());
      }
    }
  };
  return { agents, settle, taking, samples, claimLog, n1: agents[0]!, n2: agents[1]! };
}

describe('the external IP controller with a manual IP', () => {
  it('waits for the first reading of the addresses, then the holder takes it with no proxy entry and no record; the other names it the owner', async () => {
    const clock = new ManualClock(T0);
    const k = twoAgents(clock);
    await k.settle();
    expect(k.n1.c.assignments).toEqual([]); // no pass before the addresses are known
    k.n1.c.setLocalAddresses(['192.168.77.1']);
    k.n2.c.setLocalAddresses(['192.168.77.2', IP]);
    await k.settle();
    expect(k.taking()).toEqual(['n2']);
    expect(k.n1.c.assignments[0]).toMatchObject({ ip: IP, owner: 'n2', manual: true });
    expect(k.n2.sink.log).toEqual([]);
    expect(k.n2.installed.at(-1)).toEqual([]); // the taken.json record holds the sink's IPs only
    expect(k.n2.c.localManualIPs).toEqual([IP]);
  });

  it('the address moved by hand (added on n1, then removed from n2): n1 takes it only once n2 let go; never both; removed everywhere: no owner', async () => {
    const clock = new ManualClock(T0);
    const k = twoAgents(clock);
    k.n1.c.setLocalAddresses(['192.168.77.1']);
    k.n2.c.setLocalAddresses(['192.168.77.2', IP]);
    await k.settle();
    expect(k.taking()).toEqual(['n2']);
    k.samples.length = 0;
    k.claimLog.length = 0;
    // Added on n1 first: n1 (first by name) is the owner; it waits for n2's claim to go.
    k.n1.c.setLocalAddresses(['192.168.77.1', IP]);
    await k.settle();
    expect(k.taking()).toEqual(['n1']);
    expect(k.samples.filter((t) => t.length > 1)).toEqual([]);
    expect(k.claimLog).toEqual(['n2 []', `n1 [${IP}]`]);
    expect(k.n2.c.assignments[0]).toMatchObject({ owner: 'n1', holders: ['n1', 'n2'] });
    k.n2.c.setLocalAddresses(['192.168.77.2']);
    await k.settle();
    expect(k.n1.c.assignments[0]?.holders).toBeUndefined();
    k.n1.c.setLocalAddresses(['192.168.77.1']);
    await k.settle();
    expect(k.taking()).toEqual([]);
    expect(k.n2.c.assignments[0]).toMatchObject({ owner: undefined });
    expect([...k.n1.sink.log, ...k.n2.sink.log]).toEqual([]);
  });
});

describe('the host half on the owner', () => {
  it('one stand-in per mark, and an iptables-restore input that declares (flushes) the chain and SNATs each stand-in', () => {
    expect(manualStandIn(1)).toBe('169.254.100.1');
    expect(() => manualStandIn(256)).toThrow('not in 1..255');
    expect(manualSnatRestore([{ standIn: '169.254.100.12', ip: '192.168.77.241' }, { standIn: '169.254.100.2', ip: IP }])).toBe(
      ['*nat', ':SWITCHYARD-EGRESS - [0:0]', `-A SWITCHYARD-EGRESS -s 169.254.100.2/32 -j SNAT --to-source ${IP}`, '-A SWITCHYARD-EGRESS -s 169.254.100.12/32 -j SNAT --to-source 192.168.77.241', 'COMMIT', ''].join('\n'),
    );
    expect(manualSnatRestore([])).toBe('*nat\n:SWITCHYARD-EGRESS - [0:0]\nCOMMIT\n');
    expect(() => manualSnatRestore([{ standIn: '169.254.100.1', ip: '1.2.3.4 -j ACCEPT' }])).toThrow('spec.egressIP "1.2.3.4 -j ACCEPT" is not an IPv4 address');
  });

  it('an IPv6 IP: its stand-in beside the virtual Service IPv6 address, an ip6tables-restore input with /128 sources, the other family refused', () => {
    expect(manualStandIn(1, 6)).toBe('fc01::100:1');
    expect(manualStandIn(255, 6)).toBe('fc01::100:ff');
    expect(manualSnatRestore([{ standIn: 'fc01::100:a', ip: 'fd00:77::f1' }, { standIn: 'fc01::100:2', ip: 'fd00:77::f0' }], 6)).toBe(
      ['*nat', ':SWITCHYARD-EGRESS - [0:0]', '-A SWITCHYARD-EGRESS -s fc01::100:2/128 -j SNAT --to-source fd00:77::f0', '-A SWITCHYARD-EGRESS -s fc01::100:a/128 -j SNAT --to-source fd00:77::f1', 'COMMIT', ''].join('\n'),
    );
    expect(() => manualSnatRestore([{ standIn: 'fc01::100:1', ip: '192.168.77.240' }], 6)).toThrow('spec.egressIP "192.168.77.240" is not an IPv6 address');
    expect(() => manualSnatRestore([{ standIn: '169.254.100.1', ip: 'fd00:77::f0' }], 4)).toThrow('spec.egressIP "fd00:77::f0" is not an IPv4 address');
    expect(() => manualSnatRestore([{ standIn: '169.254.100.1', ip: 'fd00:77::f0' }], 6)).toThrow('stand-in "169.254.100.1" is not an IPv6 address');
  });
});

describe('the address watch', () => {
  it('reads the addresses at start and at each event; a monitor that ended is started again on the backstop period', async () => {
    const clock = new ManualClock(T0);
    let addresses = ['192.168.77.1'];
    let fire: (() => void) | undefined;
    let exit: ((why: string) => void) | undefined;
    let monitors = 0;
    const told: string[][] = [];
    const w = new LocalAddressWatch({
      clock, logger: silentLogger, resyncMs: 10_000, onAddresses: (ips) => void told.push([...ips]),
      net: {
        localAddresses: async () => addresses,
        monitorAddresses: (onEvent, onExit) => {
          monitors++;
          fire = onEvent;
          exit = onExit;
          return { stop: () => undefined };
        },
      },
    });
    w.start();
    await w.idle();
    expect(told).toEqual([['192.168.77.1']]);
    addresses = ['192.168.77.1', IP];
    fire!();
    await w.idle();
    expect(told.at(-1)).toEqual(['192.168.77.1', IP]);
    exit!('ip monitor exited (1)');
    expect(w.monitorDown).toBe('ip monitor exited (1)');
    addresses = ['192.168.77.1'];
    await clock.advance(10_000);
    await w.idle();
    expect(monitors).toBe(2);
    expect(w.monitorDown).toBeUndefined();
    expect(told.at(-1)).toEqual(['192.168.77.1']);
    await w.stop();
  });

  it('an IPv6 address moved by hand: the new holder sends one unsolicited Neighbor Advertisement for it when it takes it (an IPv4 one none: its administrator sends the gratuitous ARP)', async () => {
    const IP6 = 'fd00:77::f0';
    const clock = new ManualClock(T0);
    const k = twoAgents(clock, IP6);
    k.n1.c.setLocalAddresses(['192.168.77.1']);
    k.n2.c.setLocalAddresses(['192.168.77.2', IP6]);
    await k.settle();
    expect(k.taking()).toEqual(['n2']);
    expect(k.n2.announced).toEqual([IP6]);
    k.n2.c.setLocalAddresses(['192.168.77.2']);
    k.n1.c.setLocalAddresses(['192.168.77.1', IP6]);
    await k.settle();
    expect(k.taking()).toEqual(['n1']);
    // Once, when taken; not again on later passes.
    expect(k.n1.announced).toEqual([IP6]);
    expect(k.n2.announced).toEqual([IP6]);
    expect([...k.n1.sink.log, ...k.n2.sink.log]).toEqual([]);
    const v4 = twoAgents(new ManualClock(T0));
    v4.n1.c.setLocalAddresses(['192.168.77.1', IP]);
    v4.n2.c.setLocalAddresses(['192.168.77.2']);
    await v4.settle();
    expect(v4.taking()).toEqual(['n1']);
    expect(v4.n1.announced).toEqual([]);
  });
});
