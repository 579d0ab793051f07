// ovs-vswitchd killed and started again under a running agent (real OVS, userspace datapath): the
// node is put back (flows, gateway address), and a step of that restore that fails (as when the
// gateway's new tap device is not there yet) is retried until it goes in, with the node part
// unhealthy and saying why meanwhile. Needs root and OVS. ~5 s.
import { Testbed, waitFor } from '@switchyard/testbed';
import type { AgentContext } from '../src/context';
import { stopNode, startNode, type Node } from './helpers';

let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  tb = await Testbed.create();
  node = await startNode(tb, '10.95.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const nodeHealth = (): { ok: boolean; detail: string } => node!.agent.health().controllers.find((c) => c.name === 'node')!;
const gatewayAddresses = async (): Promise<string> => (await node!.ovs.netns.exec(['ip', '-4', '-o', 'addr', 'show', 'dev', 'sy-gw0'], { allowFailure: true })).stdout;

it('a failed restore step after an ovs-vswitchd restart is retried until the node is back: flows, gateway address, healthy', async () => {
  const flows = node!.agent.part('node').flows.flows.length;
  expect(await gatewayAddresses()).toContain('10.95.0.1/24');
  // The gateway step fails while `refuse` holds (the agent's own NodeNetwork, reached through its context).
  const net = (node!.agent as unknown as { ctx: AgentContext }).ctx.net;
  const real = net.configureGateway.bind(net);
  let refuse = true;
  let calls = 0;
  net.configureGateway = async (...args: Parameters<typeof real>) => {
    calls++;
    if (refuse) throw new Error('Cannot find device "sy-gw0" (refused by the test)');
    return real(...args);
  };
  await node!.ovs.stopVswitchd('SIGKILL');
  await node!.ovs.startVswitchd();
  // Until the step goes in, the node part says it is not put back, and why.
  await waitFor('the node part to report the failed restore', async () => /not yet put back after an ovs-vswitchd restart: Cannot find device/.test(nodeHealth().detail), { timeoutMs: 30_000, intervalMs: 20 });
  expect(nodeHealth().ok).toBe(false);
  const failedCalls = calls;
  refuse = false;
  await waitFor('the agent healthy again', async () => node!.agent.health().ok, { timeoutMs: 30_000, intervalMs: 50 });
  expect(calls).toBeGreaterThan(failedCalls);
  expect(node!.agent.part('node').switchRestarts).toBe(1);
  expect(await gatewayAddresses()).toContain('10.95.0.1/24');
  const installed = (await node!.ovs.ofctl('-O', 'OpenFlow15', '--no-stats', 'dump-flows', node!.ovs.mgmtSocket('br-int'))).split('\n').filter((l) => l.includes('actions=')).length;
  expect(installed).toBe(flows);
});
