// flowChanges judges ages against the least time that can have passed between two readings.
import { flowChanges, parseFlowAges, type FlowSnapshot } from '../src/flows';

const snap = (ages: Record<string, number>, startedAt: number, takenAt: number): FlowSnapshot => ({
  ages: new Map(Object.entries(ages)),
  startedAt,
  takenAt,
});

test('a flow aged by the time from the end of the first dump to the start of the second is untouched, even when the second dump was slow to exit', () => {
  // The second ovs-ofctl took 600 ms to start and exit: its end is no bound on when OVS read the ages.
  const before = snap({ a: 3.676 }, 0, 50);
  const after = snap({ a: 4.158 }, 520, 1120);
  expect(flowChanges(before, after)).toEqual({ added: [], deleted: [], younger: [] });
});

test('a flow younger than that least time was re-sent, and identities tell added from deleted', () => {
  const before = snap({ a: 3.0, b: 3.0, gone: 1 }, 0, 50);
  const after = snap({ a: 0.2, b: 3.6, fresh: 0.1 }, 600, 650);
  expect(flowChanges(before, after)).toEqual({ added: ['fresh'], deleted: ['gone'], younger: ['a (age 0.2 s, was 3 s 0.550 s before)'] });
});

test('parseFlowAges keys a flow by its dump line without statistics', () => {
  const ages = parseFlowAges(' cookie=0x1, duration=4.158s, table=0, n_packets=3, n_bytes=180, idle_age=1, priority=200,ip actions=goto_table:1\n');
  expect([...ages]).toEqual([['cookie=0x1, table=0, priority=200,ip actions=goto_table:1', 4.158]]);
});
