// Agent restart against a real OVS: the interface store comes back from OVSDB external_ids, pods
// keep talking while the agent is down, stale ports and addresses are removed, flows move to a new round.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { parseDumpFlows } from '@switchyard/openflow/codec';
import { parseCookie } from '@switchyard/openflow-pipeline';
import { Agent } from '../src/index';
import { addPod, ensurePluginBuilt, sandbox, startNode, stopNode, type Node, type Sandbox } from './helpers';

let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  node = await startNode(tb, '10.91.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const allocated = (): string[] => readdirSync(join(node!.dir, 'networks', 'switchyard')).filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f));

async function reaches(from: Sandbox, ip: string): Promise<void> {
  await waitFor(
    `TCP ${ip}`,
    async () => (await from.netns.exec(['socat', '-T2', '-', `TCP:${ip}:7000`], { allowFailure: true, timeoutMs: 4000 })).stdout.trim() === 'pong',
    { timeoutMs: 10_000, intervalMs: 200 },
  );
}

describe('agent restart', () => {
  it('rebuilds the store from OVSDB, keeps live pods, removes gone ones and frees leaked addresses', async () => {
    const a = await sandbox(tb, 'keep-a');
    const b = await sandbox(tb, 'gone-b');
    const c = await sandbox(tb, 'keep-c');
    const pa = await addPod(node!, a);
    const pb = await addPod(node!, b);
    const pc = await addPod(node!, c);
    tb.spawn(['socat', 'TCP-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], a.netns.name);
    await reaches(c, pa.ip);
    const before = node!.agent.part('node').interfaces.get(a.containerId);
    const oldRound = node!.agent.round;

    await node!.agent.stop();
    // While the agent is down: the datapath keeps forwarding, a pod goes away, an address leaks.
    await reaches(c, pa.ip);
    await run(['ip', 'netns', 'del', b.netns.name]);
    writeFileSync(join(node!.dir, 'networks', 'switchyard', '10.91.0.200'), 'ghost-container\r\neth0');
    expect(allocated()).toEqual(expect.arrayContaining([pa.ip, pb.ip, pc.ip, '10.91.0.200']));

    node!.agent = await Agent.start(node!.options);
    const agent = node!.agent;
    // The switch kept running: the round is resumed and its flows adopted; only the gone pod's go.
    expect(agent.round).toBe(oldRound);
    expect(agent.part('node').flows.initialResult?.adopted?.added).toBe(0);
    expect(agent.part('node').flows.initialResult?.adopted?.deleted).toBeGreaterThan(0);
    expect(agent.part('node').interfaces.list().map((i) => i.podName).sort()).toEqual(['keep-a', 'keep-c']);
    expect(agent.part('node').interfaces.get(a.containerId)).toEqual(before);
    expect(agent.part('node').interfaces.get(b.containerId)).toBeUndefined();
    const bPort = (pb.result.interfaces as { name: string }[])[0]!.name;
    expect((await node!.ovs.vsctl('list-ports', 'br-int')).split('\n')).not.toContain(bPort);
    expect(allocated().sort()).toEqual([pa.ip, pc.ip].sort());

    const flows = parseDumpFlows(await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int')));
    expect(new Set(flows.map((f) => parseCookie(f.cookie ?? 0n).round))).toEqual(new Set([oldRound]));
    expect(flows.some((f) => f.match.ipv4Src === pb.ip)).toBe(false);
    expect(flows.some((f) => f.match.ipv4Src === pa.ip)).toBe(true);
    await reaches(c, pa.ip);

    // The restarted agent serves CNI: a new pod reaches an old one.
    const d = await sandbox(tb, 'new-d');
    await addPod(node!, d);
    await reaches(d, pa.ip);
  });
});
