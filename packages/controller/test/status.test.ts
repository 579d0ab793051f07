// Policy status as Antrea writes it: phase, observedGeneration, node counts and conditions
// (Realizable; RealizationFailure naming the failed nodes), and a status for refused policies.
import { ManualClock } from '@switchyard/runtime/testing';
import { ControlplaneHub } from '../src/hub';
import { PolicyStatusAggregator } from '../src/status';

const ns = (name: string): never => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }) as never;
const pod = (name: string, node: string, ip: string): never => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x', labels: { app: 'web' } }, spec: { nodeName: node }, status: { podIP: ip } }) as never;
const acnp = (name: string, tier: string): never =>
  ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name, uid: `uid-${name}`, generation: 2 }, spec: { priority: 5, tier, appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], ingress: [{ action: 'Drop', from: [{ podSelector: {} }] }] } }) as never;

function setup(): { hub: ControlplaneHub; status: PolicyStatusAggregator; clock: ManualClock; uid: string } {
  const clock = new ManualClock(Date.parse('2026-11-25T10:00:00Z'));
  const hub = new ControlplaneHub({ epoch: 'e1', bookmarkIntervalMs: 0, clock });
  for (const o of [ns('x'), pod('w1', 'a', '10.0.0.1'), pod('w2', 'b', '10.0.0.2'), acnp('good', 'application'), acnp('bad', 'nope')]) hub.apply({ type: 'ADDED', object: o });
  hub.markSynced();
  const status = new PolicyStatusAggregator(hub, undefined, { clock, generationOf: (_t, _ns, name) => (name === 'bad' ? 7 : undefined) });
  const uid = [...hub.engine.compiledPolicies()].find((c) => c.policy.sourceRef.name === 'good')?.policy.uid as string;
  return { hub, status, clock, uid };
}

test('a policy realized on every node of its span is Realized and Realizable', () => {
  const { status, uid } = setup();
  expect(status.realization(uid)).toMatchObject({ phase: 'Realizing', currentNodesRealized: 0, desiredNodesRealized: 2 });
  status.report('a', { name: uid, nodes: [{ nodeName: 'a', generation: 2 }] });
  status.report('b', { name: uid, nodes: [{ nodeName: 'b', generation: 2 }] });
  expect(status.realization(uid)).toEqual({ phase: 'Realized', observedGeneration: 2, currentNodesRealized: 2, desiredNodesRealized: 2, conditions: [{ type: 'Realizable', status: 'True', lastTransitionTime: '2026-11-25T10:00:00Z' }] });
});

test('a node failure gives phase Failed and a RealizationFailure condition naming the node; the transition time moves only with the status', () => {
  const { status, clock, uid } = setup();
  status.report('a', { name: uid, nodes: [{ nodeName: 'a', generation: 1, realizationFailure: true, message: 'flow install failed' }] });
  clock.advance(5000);
  const r = status.realization(uid);
  expect(r?.phase).toBe('Failed');
  expect(r?.conditions).toEqual([
    { type: 'Realizable', status: 'True', lastTransitionTime: '2026-11-25T10:00:05Z' },
    { type: 'RealizationFailure', status: 'True', reason: 'NetworkPolicyRealizationFailedOnNode', message: 'Failed Nodes count 1: a (flow install failed)', lastTransitionTime: '2026-11-25T10:00:05Z' },
  ]);
  clock.advance(5000);
  expect(status.realization(uid)?.conditions[0]?.lastTransitionTime).toBe('2026-11-25T10:00:05Z');
});

test('a policy the compiler refuses is Pending with Realizable False and the compiler\'s reason', () => {
  const { hub, status } = setup();
  const rejected = hub.engine.rejected().find((r) => r.name === 'bad');
  expect(rejected).toBeDefined();
  expect(status.refusal(rejected as never)).toEqual({
    phase: 'Pending',
    observedGeneration: 7,
    currentNodesRealized: 0,
    desiredNodesRealized: 0,
    conditions: [{ type: 'Realizable', status: 'False', reason: 'NetworkPolicyInvalid', message: 'spec.tier: tier nope does not exist', lastTransitionTime: '2026-11-25T10:00:00Z' }],
  });
});
