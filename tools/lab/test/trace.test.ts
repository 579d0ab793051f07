// The ofproto/trace reader and flow builder, on real traces captured from a 2-node lab
// (test/fixtures/trace/capture.ts; policy k8s-netpol/49: x/a admits SCTP 81 only from namespace y).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CT_NEXT_PASSES, TraceError, arrivingFromGateway, arrivingFromTunnel, parseFlowFields, parseTrace, traceArgv, traceFlow, verdictOf, type TracePacket, type TraceResult } from '../src/trace';
import { formatTruthTable, type ProbeResult } from '../src/scenario';

const dir = join(__dirname, 'fixtures/trace');
const fixture = (name: string) => parseTrace(readFileSync(join(dir, name), 'utf8'));
interface Topo {
  nodes: { name: string; nodeIP: string; tunnelOfport: number; gateway: { ofport: number; mac: string } }[];
  pods: { ref: string; node: string; ip: string; mac: string; ofport: number }[];
}
const topo = JSON.parse(readFileSync(join(dir, 'topology.json'), 'utf8')) as Topo;
const pod = (ref: string) => topo.pods.find((p) => p.ref === ref)!;
const node = (name: string) => topo.nodes.find((n) => n.name === name)!;

describe('parseTrace on real ofproto/trace output', () => {
  it('reads a same-node allowed packet as output to the peer pod port after two ct() recirculations', () => {
    const r = fixture('same-node-allowed.send.txt');
    expect(r.passes).toHaveLength(3);
    expect(r.passes[1]!.flow.ct_state).toBe('new|trk');
    expect(r.outputs).toEqual([pod('y/b').ofport]);
    expect(r.dropped).toBe(false);
    expect(verdictOf(r, pod('y/b').ofport)).toEqual({ allowed: true });
  });

  it('reads a same-node packet the ingress default rule drops as blocked, with the table of the drop', () => {
    const r = fixture('same-node-blocked.send.txt');
    expect(r.outputs).toEqual([]);
    expect(r.dropped).toBe(true);
    const v = verdictOf(r, pod('x/a').ofport);
    expect(v.allowed).toBe(false);
    // The drop is in the pipeline's last policy table before ConntrackCommit, not at the start.
    expect(v.dropTable).toBeGreaterThan(20);
  });

  it('reads an egress drop on the sender node as blocked before the tunnel', () => {
    const r = fixture('egress-blocked.send.txt');
    expect(r.dropped).toBe(true);
    const v = verdictOf(r, node('node2').tunnelOfport);
    expect(v.allowed).toBe(false);
    expect(v.dropTable).toBeLessThan(verdictOf(fixture('same-node-blocked.send.txt'), 0).dropTable!);
  });

  it('takes the OpenFlow output to the tunnel port as sent, although the trace of the resumed pass reports "Not tunneling to our own address"', () => {
    const text = readFileSync(join(dir, 'inter-node-allowed.send.txt'), 'utf8');
    expect(text).toContain('Not tunneling to our own address');
    const r = parseTrace(text);
    expect(r.passes.at(-1)!.datapathActions).toBe('drop');
    expect(r.outputs).toEqual([node('node2').tunnelOfport]);
    expect(r.dropped).toBe(false);
    expect(verdictOf(r, node('node2').tunnelOfport)).toEqual({ allowed: true });
  });

  it('reads the receiver side: allowed by the ingress rule (its commit is a third recirculation), blocked by the ingress default', () => {
    const ok = fixture('inter-node-allowed.recv.txt');
    expect(ok.passes).toHaveLength(4);
    expect(verdictOf(ok, pod('x/a').ofport)).toEqual({ allowed: true });
    const no = fixture('inter-node-blocked.recv.txt');
    expect(verdictOf(no, pod('x/a').ofport).allowed).toBe(false);
  });

  it('does not judge a trace that output somewhere other than the wanted port', () => {
    const r = fixture('same-node-allowed.send.txt');
    expect(verdictOf(r, pod('x/a').ofport)).toEqual({ allowed: null, unexpected: [pod('y/b').ofport] });
  });

  it('rejects text that is not a trace with a typed error', () => {
    let err: unknown;
    try {
      parseTrace('Bad openflow flow syntax: sctp,in_port=99,foo=1: unknown field foo\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TraceError);
    expect((err as TraceError).code).toBe('UNREADABLE_TRACE');
    // A trace cut off before its last "Datapath actions:" line cannot be read as a drop.
    const cut = readFileSync(join(dir, 'same-node-blocked.send.txt'), 'utf8').split('\nDatapath actions: drop')[0]!;
    expect(() => parseTrace(cut)).toThrow(TraceError);
  });
});

describe('trace flows', () => {
  const sender = pod('y/a');
  const target = pod('x/a');
  const first: TracePacket = {
    protocol: 'sctp', inPort: sender.ofport, ethSrc: sender.mac, ethDst: node('node2').gateway.mac,
    ipSrc: sender.ip, ipDst: target.ip, ttl: 64, srcPort: 40000, dstPort: 81,
  };

  it('builds an IPv6 br_flow with sctp6 and ipv6_src/dst (nw_ttl is the hop limit)', () => {
    expect(traceFlow({ ...first, ipSrc: 'fd00:10:2::3', ipDst: 'fd00:10:1::4' })).toBe(
      `sctp6,in_port=${sender.ofport},dl_src=${sender.mac},dl_dst=${node('node2').gateway.mac},ipv6_src=fd00:10:2::3,ipv6_dst=fd00:10:1::4,nw_ttl=64,sctp_src=40000,sctp_dst=81`,
    );
  });

  it('builds the br_flow the captured sender trace started from', () => {
    const captured = fixture('inter-node-allowed.send.txt').passes[0]!.flow;
    const built = parseFlowFields(traceFlow(first));
    for (const [k, v] of Object.entries({ in_port: built.in_port, dl_src: built.dl_src, dl_dst: built.dl_dst, nw_src: built.nw_src, nw_dst: built.nw_dst, nw_ttl: built.nw_ttl }))
      expect([k, captured[k]]).toEqual([k, v]);
    expect([captured.tp_src, captured.tp_dst]).toEqual([built.sctp_src, built.sctp_dst]);
    expect(captured).toHaveProperty('sctp');
  });

  it('passes one --ct-next trk,new per possible recirculation', () => {
    const argv = traceArgv('br-int', first);
    expect(argv.slice(0, 2)).toEqual(['ofproto/trace', 'br-int']);
    expect(argv.filter((a) => a === '--ct-next')).toHaveLength(CT_NEXT_PASSES);
    expect(argv.filter((a) => a === 'trk,new')).toHaveLength(CT_NEXT_PASSES);
    // The most recirculations in the fixtures (ingress rule commit + ConntrackCommit + ConntrackZone) fit.
    expect(fixture('inter-node-allowed.recv.txt').passes.length - 1).toBeLessThanOrEqual(CT_NEXT_PASSES);
  });

  it('builds the packet arriving on the peer tunnel from the sender trace, as the captured receiver trace has it', () => {
    const arriving = arrivingFromTunnel(fixture('inter-node-allowed.send.txt'), { nodeIP: node('node2').nodeIP }, { tunnelOfport: node('node1').tunnelOfport }, first);
    expect(arriving).toMatchObject({
      inPort: node('node1').tunnelOfport,
      ethSrc: node('node2').gateway.mac,
      ethDst: 'aa:bb:cc:dd:ee:ff',
      ttl: 63,
      tunnel: { id: '0', src: node('node2').nodeIP, dst: node('node1').nodeIP },
    });
    const recv = fixture('inter-node-allowed.recv.txt').passes[0]!.flow;
    const built = parseFlowFields(traceFlow(arriving));
    for (const k of ['in_port', 'tun_src', 'tun_dst', 'dl_src', 'dl_dst', 'nw_src', 'nw_dst', 'nw_ttl']) expect([k, recv[k]]).toEqual([k, built[k]]);
  });

  it('an IPv6 underlay: the packet arrives with tun_ipv6_src/tun_ipv6_dst (the sender\'s and the flow\'s IPv6 node IPs)', () => {
    const sent: TraceResult = { passes: [{ flow: {}, finalFlow: { dl_src: 'aa:00:00:00:00:02', dl_dst: 'aa:bb:cc:dd:ee:ff', nw_ttl: '63', tun_ipv6_dst: 'fd00:77::1' }, outputs: [], datapathActions: '' }], outputs: [], dropped: false };
    const arriving = arrivingFromTunnel(sent, { nodeIP: 'fd00:77::2' }, { tunnelOfport: 2 }, { ...first, ipSrc: 'fd00:10:2::3', ipDst: 'fd00:10:1::4' });
    expect(arriving.tunnel).toEqual({ id: '0', src: 'fd00:77::2', dst: 'fd00:77::1' });
    const built = parseFlowFields(traceFlow(arriving));
    expect([built.tun_ipv6_src, built.tun_ipv6_dst, built.tun_src, built.tun_dst]).toEqual(['fd00:77::2', 'fd00:77::1', undefined, undefined]);
  });

  it('builds the packet a peer host routes in through its gateway: gateway MAC to pod MAC, two host hops off the TTL', () => {
    const gw = node('node1').gateway;
    const arriving = arrivingFromGateway(fixture('inter-node-allowed.send.txt'), { gatewayOfport: gw.ofport, gatewayMac: gw.mac, podMac: target.mac }, first);
    expect(arriving).toEqual({ ...first, inPort: gw.ofport, ethSrc: gw.mac, ethDst: target.mac, ttl: 61 });
    expect(traceFlow(arriving)).not.toContain('tun_');
  });

  it('refuses to build the arriving packet from a sender trace without tunnel metadata', () => {
    expect(() => arrivingFromTunnel(fixture('egress-blocked.send.txt'), { nodeIP: '192.168.77.2' }, { tunnelOfport: 2 }, first)).toThrow(TraceError);
  });
});

describe('truth table marks', () => {
  it('shows trace verdicts as o/x, probe verdicts as ./X and unjudged cells as ?', () => {
    const cells: ProbeResult[] = [
      { from: 'a', to: 'b', port: 81, protocol: 'SCTP', allowed: true, via: 'trace' },
      { from: 'b', to: 'a', port: 81, protocol: 'SCTP', allowed: false, via: 'trace' },
      { from: 'a', to: 'c', port: 81, protocol: 'SCTP', allowed: null, unavailable: 'trace: no pod interface for c on any node' },
      { from: 'c', to: 'a', port: 81, protocol: 'TCP', allowed: true },
      { from: 'c', to: 'b', port: 81, protocol: 'TCP', allowed: false },
    ];
    expect(formatTruthTable(cells, ['a', 'b', 'c']).split('\n').map((l) => l.replace(/\s+/g, ' ').trim())).toEqual(['a b c', 'a - o ?', 'b x - -', 'c . X -']);
  });
});
