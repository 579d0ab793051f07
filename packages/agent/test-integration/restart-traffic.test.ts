// Restart without disruption: stop and restart the agent while iperf3 streams between two pods
// with 0.1 s intervals; flow counts taken all along show the round complete at every moment, and
// the restarted agent adopts it (no flow-mod when nothing changed).
import { Testbed, throughputDisruptions, waitFor } from '@switchyard/testbed';
import { parseDumpFlows } from '@switchyard/openflow/codec';
import { cookieMaskForRound, parseCookie } from '@switchyard/openflow-pipeline';
import { Agent } from '../src/index';
import { addPod, ensurePluginBuilt, sandbox, startNode, stopNode, type Node } from './helpers';

let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  node = await startNode(tb, '10.94.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

interface Interval {
  sum: { bits_per_second: number; start: number; retransmits?: number };
}

it('iperf3 between two pods never stalls while the agent restarts, the round is complete in every flow count, and the new agent adopts it', async () => {
  const a = await sandbox(tb, 'iperf-c');
  const b = await sandbox(tb, 'iperf-s');
  await addPod(node!, a);
  const { ip: server } = await addPod(node!, b);
  tb.spawn(['iperf3', '-s', '-1'], b.netns.name);
  // The client connects once: the server must be listening first.
  await waitFor('the iperf3 server', async () => (await b.netns.exec(['ss', '-Hltn', 'sport = :5201'])).stdout.includes('5201'), { timeoutMs: 10_000, intervalMs: 50 });
  const desired = node!.agent.part('node').flows.flows.length;
  const oldRound = node!.agent.round;

  const client = a.netns.exec(['iperf3', '-c', server, '-t', '6', '-i', '0.1', '-b', '50M', '-J', '--connect-timeout', '3000'], { timeoutMs: 30_000, allowFailure: true });

  // Count the round's flows through the restart (from just before the stop until the new agent
  // is in): flow counts by cookie mask (dump-aggregate), every 50 ms, so the sampling itself does
  // not load ovs-vswitchd, whose main thread also forwards these pods' packets on the userspace datapath.
  const counts: number[] = [];
  let done = false;
  const count = async (round: number): Promise<number> => {
    const { cookie, cookieMask } = cookieMaskForRound(round);
    const out = await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-aggregate', node!.ovs.mgmtSocket('br-int'), `cookie=0x${cookie.toString(16)}/0x${cookieMask.toString(16)}`);
    return Number(/flow_count=(\d+)/.exec(out)?.[1] ?? NaN);
  };
  const dumper = (async () => {
    await new Promise((r) => setTimeout(r, 1300));
    while (!done) {
      counts.push(await count(oldRound));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  const marks: Record<string, number> = {};
  const mark = (k: string): void => {
    marks[k] = Math.round(performance.now() - t0);
  };
  await new Promise((r) => setTimeout(r, 1500));
  mark('stop');
  await node!.agent.stop();
  mark('stopped');
  await new Promise((r) => setTimeout(r, 500)); // agent down: the datapath carries on alone
  mark('start');
  node!.agent = await Agent.start(node!.options);
  mark('started');
  await new Promise((r) => setTimeout(r, 200));
  done = true;
  await dumper;
  const result = await client;

  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as { intervals: Interval[] };
  const bps = report.intervals.map((i) => i.sum.bits_per_second);
  expect(bps.length).toBeGreaterThanOrEqual(50);
  // No stall and no lasting dip (testbed's throughputDisruptions: a drop makes TCP back off for
  // 200 ms or more; one short dip is the shared machine holding back the paced sender).
  const mbps = bps.map((x) => Math.round(x / 1e6));
  expect({ ...throughputDisruptions(bps, report.intervals.map((i) => i.sum.retransmits ?? 0)), marks, mbps }).toEqual({ stalls: [], lastingDips: [], marks, mbps });

  // The same round, adopted without a flow-mod, complete in every count taken through the restart.
  expect(node!.agent.round).toBe(oldRound);
  expect(node!.agent.part('node').flows.initialResult?.adopted).toEqual({ added: 0, modified: 0, deleted: 0 });
  expect(node!.agent.part('node').flows.flows.length).toBe(desired);
  expect(counts.length).toBeGreaterThan(3);
  expect(counts.filter((c) => c !== desired)).toEqual([]);
  const final = parseDumpFlows(await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int')));
  expect(final.filter((f) => parseCookie(f.cookie ?? 0n).round !== oldRound)).toEqual([]);
  // The interface store came back as it was.
  expect(node!.agent.part('node').interfaces.list().map((i) => i.podName).sort()).toEqual(['iperf-c', 'iperf-s']);
});
