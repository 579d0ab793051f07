// flowSnapshot / flowChanges on a real OVS bridge: untouched flows keep aging, and an added,
// deleted, modified or re-sent flow is reported.
import { flowChanges, flowSnapshot, Testbed, type OvsInstance } from '../src/index';

let tb: Testbed;
let ovs: OvsInstance;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge('br-int', { protocols: 'OpenFlow15' });
}, 60_000);
afterAll(() => tb.cleanup(), 60_000);

/** `ovs-ofctl -O OpenFlow15 <command words> <br-int's socket> <args>`. */
const ofctl = (command: string, ...args: string[]): Promise<string> => ovs.ofctl('-O', 'OpenFlow15', ...command.split(' '), ovs.mgmtSocket('br-int'), ...args);

it('reports nothing for flows left alone, and names flows added, deleted, modified or re-sent', async () => {
  const flow = (f: string): Promise<string> => ofctl('add-flow', f);
  await ofctl('del-flows');
  await flow('cookie=0x1,table=0,priority=10,ip,nw_dst=10.0.0.1 actions=drop');
  await flow('cookie=0x1,table=0,priority=10,ip,nw_dst=10.0.0.2 actions=drop');
  await flow('cookie=0x1,table=0,priority=10,ip,nw_dst=10.0.0.3 actions=drop');
  await flow('cookie=0x1,table=1,priority=5 actions=drop');
  const before = await flowSnapshot(ovs.mgmtSocket('br-int'));
  expect(before.ages.size).toBe(4);
  await sleep(1200);
  expect(flowChanges(before, await flowSnapshot(ovs.mgmtSocket('br-int')))).toEqual({ added: [], deleted: [], younger: [] });

  // 10.0.0.1 re-sent as it was, 10.0.0.2 modified (OVS keeps its age), 10.0.0.3 deleted, one new flow.
  await flow('cookie=0x1,table=0,priority=10,ip,nw_dst=10.0.0.1 actions=drop');
  await ofctl('--strict mod-flows', 'table=0,priority=10,ip,nw_dst=10.0.0.2 actions=output:1');
  await ofctl('--strict del-flows', 'table=0,priority=10,ip,nw_dst=10.0.0.3');
  await flow('cookie=0x2,table=0,priority=10,ip,nw_dst=10.0.0.4 actions=drop');
  const c = flowChanges(before, await flowSnapshot(ovs.mgmtSocket('br-int')));
  expect(c.added.map((f) => /nw_dst=[\d.]+/.exec(f)![0]).sort()).toEqual(['nw_dst=10.0.0.2', 'nw_dst=10.0.0.4']);
  expect(c.deleted.map((f) => /nw_dst=[\d.]+/.exec(f)![0]).sort()).toEqual(['nw_dst=10.0.0.2', 'nw_dst=10.0.0.3']);
  expect(c.younger.map((f) => /nw_dst=[\d.]+/.exec(f)![0])).toEqual(['nw_dst=10.0.0.1']);
}, 30_000);
