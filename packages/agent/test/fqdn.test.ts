// FQDN rules in the agent: name patterns, the TTL cache under a manual clock, and the controller
// between a recording switch and a real FlowSync (flows updated before the paused response goes on).
import type { FlowTransport, PacketIn, PacketInChannel } from '@switchyard/openflow';
import type { Action, Flow, OfMessage } from '@switchyard/openflow/codec';
import { dumpFlows, type NodeConfig } from '@switchyard/openflow-pipeline';
import type { controlplane } from '@switchyard/apis';
import { FlowSync } from '../src/flow-sync';
import { encodeDnsResponse, type DnsAnswerSpec } from '../src/features/policy/dns';
import { ManualClock } from '@switchyard/runtime/testing';
import { DNS_INTERCEPT_CONJ_ID, FqdnCache, FqdnController, fqdnMatches } from '../src/features/policy/fqdn';
import { fqdnRuleTargets } from '../src/features/policy/fqdn-spec';

describe('fqdnMatches', () => {
  it.each([
    ['svc.example.test', 'svc.example.test', true],
    ['svc.example.test', 'SVC.Example.Test.', true],
    ['svc.example.test', 'a.svc.example.test', false],
    ['*.example.test', 'svc.example.test', true],
    ['*.example.test', 'a.b.example.test', true],
    ['*.example.test', 'example.test', false],
    ['*.example.test', 'svcexample.test', false],
    ['*example.test', 'example.test', true],
    ['*example.test', 'myexample.test', true],
    ['api-*.example.test', 'api-eu.example.test', true],
    ['api-*.example.test', 'web.example.test', false],
    ['*.example.test', 'x.example.test.evil', false],
  ])('%s matches %s: %s', (pattern, name, want) => {
    expect(fqdnMatches(pattern, name)).toBe(want);
  });

  it('treats regex characters in a pattern literally', () => {
    expect(fqdnMatches('a+b.test', 'a+b.test')).toBe(true);
    expect(fqdnMatches('a+b.test', 'aab.test')).toBe(false);
    expect(fqdnMatches('*.a.test', 'x.aXtest')).toBe(false);
  });
});

describe('FqdnCache', () => {
  it('keeps an address for its TTL, then forgets it', () => {
    const c = new FqdnCache(0);
    expect(c.learn('svc.test', '10.0.0.1', 30, 1000)).toBe(true);
    expect(c.nextExpiry()).toBe(31_000);
    expect(c.expire(30_999)).toBe(false);
    expect(c.addresses(['svc.test'])).toEqual({ 'svc.test': ['10.0.0.1'] });
    expect(c.expire(31_000)).toBe(true);
    expect(c.addresses(['svc.test'])).toEqual({});
    expect(c.nextExpiry()).toBeUndefined();
  });

  it('lifts TTLs below the floor to the floor', () => {
    const c = new FqdnCache(5);
    c.learn('svc.test', '10.0.0.1', 0, 0);
    expect(c.nextExpiry()).toBe(5000);
  });

  it('a repeated answer extends an address, never shortens it, and is not news', () => {
    const c = new FqdnCache(0);
    c.learn('svc.test', '10.0.0.1', 60, 0);
    expect(c.learn('svc.test', '10.0.0.1', 10, 5000)).toBe(false);
    expect(c.nextExpiry()).toBe(60_000);
    c.learn('svc.test', '10.0.0.1', 100, 5000);
    expect(c.nextExpiry()).toBe(105_000);
  });

  it('a changed answer adds the new address; the old one stays until its own expiry', () => {
    const c = new FqdnCache(0);
    c.learn('svc.test', '10.0.0.1', 30, 0);
    c.learn('svc.test', '10.0.0.2', 30, 10_000);
    expect(c.addresses(['svc.test'])).toEqual({ 'svc.test': ['10.0.0.1', '10.0.0.2'] });
    c.expire(30_000);
    expect(c.addresses(['svc.test'])).toEqual({ 'svc.test': ['10.0.0.2'] });
  });

  it('gives a wildcard pattern the addresses of every matching name', () => {
    const c = new FqdnCache(0);
    c.learn('a.example.test', '10.0.0.1', 30, 0);
    c.learn('b.example.test', '10.0.0.2', 30, 0);
    c.learn('other.test', '10.0.0.3', 30, 0);
    expect(c.addresses(['*.example.test', 'a.example.test', 'none.test'])).toEqual({
      '*.example.test': ['10.0.0.1', '10.0.0.2'],
      'a.example.test': ['10.0.0.1'],
    });
  });
});

// ---- controller ----------------------------------------------------------------------------

const CLIENT = { name: 'client', namespace: 'd', ofport: 11, ips: ['10.1.0.11'], mac: '02:00:00:00:00:11' };
const OTHER = { name: 'other', namespace: 'd', ofport: 12, ips: ['10.1.0.12'], mac: '02:00:00:00:00:12' };
const peer = (p: Partial<controlplane.NetworkPolicyPeer> = {}): controlplane.NetworkPolicyPeer => ({ addressGroups: [], ipBlocks: [], ...p });
const policy = (fqdns: string[]): controlplane.NetworkPolicy => ({
  uid: 'u1', name: 'allow-fqdn', namespace: '', generation: 1, appliedToGroups: ['atg-client'], priority: 5, tierPriority: 250,
  sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'allow-fqdn', uid: 'u1' },
  rules: [
    { direction: 'Out', from: peer(), to: peer({ fqdns }), services: [], priority: 0, enableLogging: false, action: 'Allow' },
    { direction: 'Out', from: peer(), to: peer({ ipBlocks: [{ cidr: '0.0.0.0/0', except: [] }] }), services: [], priority: 1, enableLogging: false, action: 'Drop' },
  ],
});
const atg: controlplane.AppliedToGroup = { name: 'atg-client', groupMembers: [{ pod: { name: 'client', namespace: 'd' }, ips: ['10.1.0.11'] }] };

const config: NodeConfig = {
  round: 3, trafficMode: 'encap', gateway: { ofport: 1, ip: '10.1.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 2,
  podCIDR: '10.1.0.0/24', nodeIP: '192.168.0.1', netdevDatapath: true, enableAntreaPolicy: true,
};

/** Records bundles and resumes in one log, so tests see their order. */
class RecordingSwitch implements FlowTransport, PacketInChannel {
  events: string[] = [];
  flows: Flow[] = [];
  listeners: ((p: PacketIn) => void)[] = [];
  failBundle = false;
  on(_e: 'packetIn', fn: (p: PacketIn) => void): void {
    this.listeners.push(fn);
  }
  off(_e: 'packetIn', fn: (p: PacketIn) => void): void {
    this.listeners = this.listeners.filter((l) => l !== fn);
  }
  async bundle(messages: Iterable<OfMessage>): Promise<void> {
    await Promise.resolve();
    if (this.failBundle) throw new Error('switch said no');
    const list = [...messages];
    this.events.push(`bundle:${list.length}`);
  }
  async dumpFlows(): Promise<Flow[]> {
    return [];
  }
  async flowMods(): Promise<void> {}
  async resume(p: Extract<PacketIn, { type: 'packetIn2' }>): Promise<void> {
    this.events.push(`resume:${p.packet.length}`);
  }
  async packetOut(data: Uint8Array, _actions: Action[]): Promise<void> {
    this.events.push(`packetOut:${data.length}`);
  }
  packetIn(p: PacketIn): void {
    for (const l of this.listeners) l(p);
  }
}

/** A paused DNS response to the client pod, as the intercept flow sends it. */
function dnsPacketIn(question: string, answers: DnsAnswerSpec[], message?: Uint8Array): PacketIn {
  const dns = message ?? encodeDnsResponse({ id: 9, question, answers });
  const udp = [0, 53, 0x9c, 0x40, (8 + dns.length) >> 8, (8 + dns.length) & 0xff, 0, 0, ...dns];
  const total = 20 + udp.length;
  const ip = [0x45, 0, total >> 8, total & 0xff, 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 1, 0, 53, 10, 1, 0, 11];
  const packet = Uint8Array.from([2, 0, 0, 0, 0, 0x11, 2, 0, 0, 0, 0, 0x53, 8, 0, ...ip, ...udp]);
  return { type: 'packetIn2', packet, userdata: Uint8Array.of(2), continuation: Uint8Array.of(1, 2, 3), metadata: { inPort: 13 } } as PacketIn;
}

async function setup(fqdns = ['svc.example.test']): Promise<{ sw: RecordingSwitch; flows: FlowSync; clock: ManualClock; fqdn: FqdnController; text: () => string }> {
  const sw = new RecordingSwitch();
  const flows = new FlowSync(sw, config);
  flows.prime({ policies: [policy(fqdns)], addressGroups: [], appliedToGroups: [atg] });
  const clock = new ManualClock(1_000_000);
  const fqdn = new FqdnController(sw, flows, { clock, minTtlSeconds: 2 });
  await flows.initialSync([CLIENT, OTHER]);
  sw.events = [];
  return { sw, flows, clock, fqdn, text: () => dumpFlows(flows.nodeFlows!).join('\n') };
}

describe('FqdnController', () => {
  it('finds the FQDN patterns and the local pods their rules apply to', () => {
    const t = fqdnRuleTargets({ policies: [policy(['b.test', '*.a.test'])], appliedToGroups: [atg], pods: [CLIENT, OTHER] });
    expect(t).toEqual({ patterns: ['*.a.test', 'b.test'], podOfports: [11] });
  });

  it('intercepts DNS responses to the selected pod only, with a paused controller action', async () => {
    const { text } = await setup();
    const t = text();
    expect(t).toContain(`conj_id=${DNS_INTERCEPT_CONJ_ID}`);
    expect(t).toMatch(/pause/);
    expect(t).toMatch(/udp,tp_src=53|udp_src=53/);
    expect(t).toMatch(new RegExp(`reg1=0xb\\b.*conjunction\\(${DNS_INTERCEPT_CONJ_ID},2/2\\)`));
    expect(t).not.toMatch(new RegExp(`reg1=0xc\\b.*conjunction\\(${DNS_INTERCEPT_CONJ_ID}`));
  });

  it('puts the answer into the rule flows before it releases the paused response', async () => {
    const { sw, fqdn, text } = await setup();
    expect(text()).not.toContain('nw_dst=10.9.0.7');
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    expect(sw.events.map((e) => e.split(':')[0])).toEqual(['bundle', 'resume']);
    expect(text()).toContain('nw_dst=10.9.0.7');
    expect(fqdn.stats).toMatchObject({ responses: 1, released: 1, learned: 1, malformed: 0 });
  });

  it('learns through a CNAME chain when the rule names the alias', async () => {
    const { sw, fqdn, text } = await setup(['alias.example.test']);
    sw.packetIn(dnsPacketIn('alias.example.test', [
      { name: 'alias.example.test', ttl: 30, kind: 'CNAME', target: 'svc.example.test' },
      { name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.8' },
    ]));
    await fqdn.idle();
    expect(text()).toContain('nw_dst=10.9.0.8');
  });

  it('releases answers for names no rule mentions without touching the flows', async () => {
    const { sw, fqdn } = await setup();
    sw.packetIn(dnsPacketIn('other.test', [{ name: 'other.test', ttl: 30, kind: 'A', address: '10.9.0.9' }]));
    await fqdn.idle();
    expect(sw.events.map((e) => e.split(':')[0])).toEqual(['resume']);
    expect(fqdn.cache.entries()).toEqual([]);
  });

  it('a repeated answer releases the response without another flow update', async () => {
    const { sw, fqdn } = await setup();
    const a: DnsAnswerSpec[] = [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }];
    sw.packetIn(dnsPacketIn('svc.example.test', a));
    await fqdn.idle();
    sw.events = [];
    sw.packetIn(dnsPacketIn('svc.example.test', a));
    await fqdn.idle();
    expect(sw.events.map((e) => e.split(':')[0])).toEqual(['resume']);
  });

  it('releases malformed responses unparsed and keeps serving', async () => {
    const { sw, fqdn, text } = await setup();
    sw.packetIn(dnsPacketIn('x', [], Uint8Array.of(0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 0xc0, 12)));
    const cut = dnsPacketIn('x', []) as Extract<PacketIn, { type: 'packetIn2' }>;
    sw.packetIn({ ...cut, packet: cut.packet.subarray(0, 20) });
    await fqdn.idle();
    expect(fqdn.stats).toMatchObject({ malformed: 2, released: 2 });
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    expect(text()).toContain('nw_dst=10.9.0.7');
  });

  it('still releases the response when the flow update fails', async () => {
    const { sw, fqdn } = await setup();
    sw.failBundle = true;
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    expect(fqdn.stats).toMatchObject({ syncErrors: 1, released: 1 });
  });

  it('ignores packet-ins of other categories', async () => {
    const { sw, fqdn } = await setup();
    sw.packetIn({ ...dnsPacketIn('svc.example.test', []), userdata: Uint8Array.of(1, 4) } as PacketIn);
    await fqdn.idle();
    expect(sw.events).toEqual([]);
    expect(fqdn.stats.responses).toBe(0);
  });

  it('removes an address from the flows when its TTL runs out on the clock', async () => {
    const { sw, fqdn, clock, text } = await setup();
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    clock.advance(20_000);
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.8' }]));
    await fqdn.idle();
    expect(text()).toContain('nw_dst=10.9.0.7');
    expect(text()).toContain('nw_dst=10.9.0.8');
    clock.advance(10_000);
    await fqdn.idle();
    expect(text()).not.toContain('nw_dst=10.9.0.7');
    expect(text()).toContain('nw_dst=10.9.0.8');
    clock.advance(20_000);
    await fqdn.idle();
    expect(text()).not.toContain('nw_dst=10.9.0.8');
    expect(fqdn.stats.expiries).toBe(2);
    expect(clock.pending).toBe(0);
  });

  it('a TTL of zero still lasts the floor', async () => {
    const { sw, fqdn, clock, text } = await setup();
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 0, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    clock.advance(1999);
    await fqdn.idle();
    expect(text()).toContain('nw_dst=10.9.0.7');
    clock.advance(1);
    await fqdn.idle();
    expect(text()).not.toContain('nw_dst=10.9.0.7');
  });

  it('stops listening and cancels its timer on stop', async () => {
    const { sw, fqdn, clock } = await setup();
    sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
    await fqdn.idle();
    fqdn.stop();
    expect(clock.pending).toBe(0);
    sw.packetIn(dnsPacketIn('svc.example.test', []));
    expect(fqdn.stats.responses).toBe(1);
  });
});

it('a second controller on the same flows takes over from the first', async () => {
  const { sw, flows, fqdn } = await setup();
  const second = new FqdnController(sw, flows, { clock: new ManualClock() });
  expect(FqdnController.registered(flows)).toBe(second);
  sw.packetIn(dnsPacketIn('svc.example.test', [{ name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.9.0.7' }]));
  await second.idle();
  expect(fqdn.stats.responses).toBe(0);
  expect(sw.events.filter((e) => e.startsWith('resume'))).toHaveLength(1);
});
