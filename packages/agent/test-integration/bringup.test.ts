// Node bring-up against a real ovsdb-server / ovs-vswitchd (userspace datapath).
import { Testbed, run } from '@switchyard/testbed';
import { parseDumpFlows } from '@switchyard/openflow/codec';
import { parseCookie } from '@switchyard/openflow-pipeline';
import { Agent, AgentError } from '../src/index';
import { dumpFlows, flowAges, flowsYoungerThan, startNode, stopNode, type Node } from './helpers';

let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  tb = await Testbed.create();
  node = await startNode(tb, '10.88.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const vsctl = (...a: string[]): Promise<string> => node!.ovs.vsctl(...a).then((s) => s.trim());

describe('node bring-up', () => {
  it('creates a secure netdev bridge speaking OpenFlow15', async () => {
    expect(await vsctl('get', 'bridge', 'br-int', 'datapath_type')).toBe('netdev');
    expect(await vsctl('get', 'bridge', 'br-int', 'fail_mode')).toBe('secure');
    expect(await vsctl('get', 'bridge', 'br-int', 'protocols')).toContain('OpenFlow15');
  });

  it('adds the gateway internal port with the first address of the pod CIDR, up, in the node netns', async () => {
    expect(await vsctl('get', 'interface', 'sy-gw0', 'type')).toBe('internal');
    expect(Number(await vsctl('get', 'interface', 'sy-gw0', 'ofport'))).toBe(node!.agent.node.gateway.ofport);
    const out = await run(['ip', '-j', 'addr', 'show', 'dev', 'sy-gw0'], { netns: node!.ovs.netns.name });
    const [link] = JSON.parse(out.stdout) as { address: string; flags: string[]; mtu: number; addr_info: { local: string; prefixlen: number }[] }[];
    expect(link!.addr_info.map((a) => `${a.local}/${a.prefixlen}`)).toContain('10.88.0.1/24');
    expect(link!.flags).toContain('UP');
    expect(link!.mtu).toBe(1450);
    expect(link!.address).toBe(node!.agent.node.gateway.mac);
  });

  it('adds a flow-based geneve tunnel port', async () => {
    expect(await vsctl('get', 'interface', 'sy-tun0', 'type')).toBe('geneve');
    expect(await vsctl('get', 'interface', 'sy-tun0', 'options:remote_ip')).toBe('flow');
    expect(await vsctl('get', 'interface', 'sy-tun0', 'options:key')).toBe('flow');
    expect(Number(await vsctl('get', 'interface', 'sy-tun0', 'ofport'))).toBeGreaterThan(0);
  });

  it('persists the round in the bridge external_ids and installs only flows of that round', async () => {
    const round = Number(JSON.parse(await vsctl('get', 'bridge', 'br-int', 'external_ids:roundNum')));
    expect(round).toBe(node!.agent.round);
    const flows = parseDumpFlows(await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int')));
    expect(flows.length).toBe(node!.agent.part('node').flows.flows.length);
    expect(flows.length).toBeGreaterThan(20);
    expect(new Set(flows.map((f) => parseCookie(f.cookie ?? 0n).round))).toEqual(new Set([round]));
  });

  it('reports each of its parts healthy, in start order', () => {
    const health = node!.agent.health();
    expect(health.controllers.map((c) => c.name)).toEqual(['node', 'pods', 'policies', 'api']);
    expect(health.controllers.filter((c) => !c.ok)).toEqual([]);
    expect(health.ok).toBe(true);
    expect(health.controllers[0]!.detail).toBe(`bridge br-int, round ${node!.agent.round}, ${node!.agent.part('node').flows.flows.length} flows`);
  });

  it('on restart resumes its round and adopts the flows there: no flow is re-sent, each keeps its age', async () => {
    const before = node!.agent.round;
    const ages = await flowAges(node!.ovs);
    await node!.agent.stop();
    node!.agent = await Agent.start(node!.options);
    expect(node!.agent.round).toBe(before);
    expect(node!.agent.part('node').flows.initialResult?.adopted).toEqual({ added: 0, modified: 0, deleted: 0 });
    const flows = await dumpFlows(node!.ovs);
    expect(flows.length).toBe(node!.agent.part('node').flows.flows.length);
    expect(new Set(flows.map((f) => parseCookie(f.cookie ?? 0n).round))).toEqual(new Set([before]));
    // Every flow kept aging through the restart: none was re-sent.
    expect(await flowsYoungerThan(node!.ovs, ages)).toEqual([]);
  });

  it('on restart after the switch lost its flows takes the next round and installs every flow', async () => {
    const before = node!.agent.round;
    await node!.agent.stop();
    await node!.ovs.ofctl('-O', 'OpenFlow15', 'del-flows', node!.ovs.mgmtSocket('br-int'));
    node!.agent = await Agent.start(node!.options);
    expect(node!.agent.round).toBe(before + 1);
    expect(node!.agent.part('node').flows.initialResult?.adopted).toBeUndefined();
    const flows = parseDumpFlows(await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int')));
    expect(new Set(flows.map((f) => parseCookie(f.cookie ?? 0n).round))).toEqual(new Set([before + 1]));
    expect(flows.length).toBe(node!.agent.part('node').flows.flows.length);
  });

  it('refuses an STT tunnel on the userspace datapath with a clear error', async () => {
    const err = await Agent.start({ ...node!.options, tunnelType: 'stt' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).code).toBe('UNSUPPORTED_TUNNEL');
    expect((err as AgentError).path).toBe('tunnelType');
    expect((err as AgentError).message).toMatch(/userspace datapath has no STT/);
  });

  it.each([
    ['vxlan', 'vxlan'],
    ['gre', 'gre'],
  ] as const)('brings up a %s tunnel port when configured', async (type, ovsType) => {
    const other = await startNode(tb, '10.89.0.0/24', { tunnelType: type });
    try {
      expect(await other.ovs.vsctl('get', 'interface', 'sy-tun0', 'type').then((s) => s.trim())).toBe(ovsType);
      const mtu = type === 'gre' ? 1458 : 1450;
      const out = await run(['ip', '-j', 'link', 'show', 'dev', 'sy-gw0'], { netns: other.ovs.netns.name });
      expect((JSON.parse(out.stdout) as { mtu: number }[])[0]!.mtu).toBe(mtu);
    } finally {
      await stopNode(other);
      await other.ovs.stop();
    }
  });
});
