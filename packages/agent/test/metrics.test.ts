// Prometheus text of the agent's metric families (prom-client), read back by a strict parser.
import { parsePromText } from '@switchyard/testbed';
import { AgentMetrics, LATENCY_BUCKETS } from '../src/metrics';

const sample = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  for (const f of parsePromText(text).values()) {
    const s = f.samples.find((x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === JSON.stringify(Object.entries(labels).sort()));
    if (s) return s.value;
  }
  return undefined;
};

it('a histogram renders cumulative buckets, +Inf, sum and count per label set', async () => {
  const m = new AgentMetrics();
  m.cniRequest.observe(0.05, { command: 'ADD', result: 'ok' });
  m.cniRequest.observe(0.5, { command: 'ADD', result: 'ok' });
  m.cniRequest.observe(3, { command: 'ADD', result: 'ok' });
  m.cniRequest.observe(0.2, { command: 'DEL', result: 'ok' });
  const text = await m.render();
  const f = parsePromText(text).get('switchyard_agent_cni_request_duration_seconds')!;
  expect(f).toMatchObject({ type: 'histogram', help: 'CNI requests handled by the agent, by command and result.' });
  const n = 'switchyard_agent_cni_request_duration_seconds';
  const add = { command: 'ADD', result: 'ok' };
  expect(LATENCY_BUCKETS.map((le) => sample(text, `${n}_bucket`, { ...add, le: String(le) }))).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
  expect(sample(text, `${n}_bucket`, { ...add, le: '+Inf' })).toBe(3);
  expect(sample(text, `${n}_sum`, add)).toBeCloseTo(3.55);
  expect(sample(text, `${n}_count`, add)).toBe(3);
  const del = { command: 'DEL', result: 'ok' };
  expect(sample(text, `${n}_bucket`, { ...del, le: '0.1' })).toBe(0);
  expect(sample(text, `${n}_bucket`, { ...del, le: '0.25' })).toBe(1);
  expect(sample(text, `${n}_sum`, del)).toBe(0.2);
  expect(sample(text, `${n}_count`, del)).toBe(1);
  // The line the agent's integration test and Antrea dashboards look for.
  expect(text).toMatch(/^switchyard_agent_cni_request_duration_seconds_count\{command="ADD",result="ok"\} 3$/m);
});

it('gauges show the node state of the last scrape and escape label values', async () => {
  const m = new AgentMetrics();
  m.setNodeState({ flowsByTable: { Classifier: 4, 'a"b\\c': 2 }, localPods: 1, networkPolicies: 0 });
  m.setNodeState({ flowsByTable: { Classifier: 5, 'a"b\\c': 2 }, localPods: 2, networkPolicies: 3 });
  const text = await m.render();
  expect(text).toContain('switchyard_agent_ovs_flow_count{table="a\\"b\\\\c"} 2\n');
  expect(sample(text, 'switchyard_agent_ovs_flow_count', { table: 'Classifier' })).toBe(5);
  expect(sample(text, 'switchyard_agent_local_pod_count', {})).toBe(2);
  expect(sample(text, 'switchyard_agent_networkpolicy_count', {})).toBe(3);
  m.setNodeState({ flowsByTable: { Output: 1 }, localPods: 0, networkPolicies: 0 });
  expect(sample(await m.render(), 'switchyard_agent_ovs_flow_count', { table: 'Classifier' })).toBeUndefined();
  expect([...parsePromText(text).values()].map((f) => [f.name, f.type])).toEqual([
    ['switchyard_agent_ovs_flow_count', 'gauge'],
    ['switchyard_agent_local_pod_count', 'gauge'],
    ['switchyard_agent_networkpolicy_count', 'gauge'],
    ['switchyard_agent_cni_request_duration_seconds', 'histogram'],
    ['switchyard_agent_flow_sync_duration_seconds', 'histogram'],
  ]);
});

it('two agents in one process keep their figures apart', async () => {
  const a = new AgentMetrics();
  const b = new AgentMetrics();
  a.flowSync.observe(0.01, { kind: 'diff' });
  expect(sample(await a.render(), 'switchyard_agent_flow_sync_duration_seconds_count', { kind: 'diff' })).toBe(1);
  expect(sample(await b.render(), 'switchyard_agent_flow_sync_duration_seconds_count', { kind: 'diff' })).toBeUndefined();
});

it('the strict reader refuses text Prometheus would not take', () => {
  expect(() => parsePromText('a 1')).toThrow(/newline/);
  expect(() => parsePromText('a{x="1"} one\n')).toThrow(/float/);
  expect(() => parsePromText('a{x="1\n')).toThrow(/line 1/);
  expect(() => parsePromText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n')).toThrow(/cumulative/);
  expect(() => parsePromText('a 1\nb 1\na 2\n')).toThrow(/contiguous|repeated/);
});
