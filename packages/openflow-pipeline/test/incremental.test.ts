/**
 * The incremental pipeline against the full computation: after every event of random sequences
 * (pods, peers, Services, groups, policies, FQDN, multicluster, configuration), the flows and
 * groups NodePipeline holds are exactly computeNodeFlows of the resulting state, each update's
 * delta turns the previous flows into the new ones, and conjunction ids of surviving rules stay.
 */
import fc from 'fast-check';
import type { Flow } from '@switchyard/openflow/codec';
import {
  FlowIndex, NodePipeline, applyDiff, computeNodeFlows, diffFlows, egress, formatFlow, multicluster, networkPolicy, podConnectivity, remoteNodes, sameIdentity, sameValue, service,
  type Feature, type Group, type NodeState,
} from '../src/index';
import { dualStack } from './dual-stack-state';
import { NodeModel, eventArb, eventWithQosArb, populateArb, type NodeEvent } from './node-model';
import { qos } from './qos-feature';

/** An index of flows by identity, to compare other flow lists against. */
function indexOf(flows: readonly Flow[]): FlowIndex {
  const index = new FlowIndex();
  for (const f of flows) index.insert(f);
  return index;
}

/** `got` has the flows of `want` (indexed): the same identities, actions and (unless `cookies` is false) cookies. */
function expectSameFlows(got: readonly Flow[], want: FlowIndex, cookies = true): void {
  const wrong = got.filter((f) => {
    const i = want.find(f);
    return i < 0 || !sameValue(want.flows[i]!.actions, f.actions) || (cookies && want.flows[i]!.cookie !== f.cookie);
  });
  expect(wrong.map((f) => formatFlow(f))).toEqual([]);
  expect(got.length).toBe(want.size);
}

const sameGroups = (a: readonly Group[], b: readonly Group[]): boolean => sameValue([...a].sort((x, y) => x.groupId - y.groupId), [...b].sort((x, y) => x.groupId - y.groupId));

/**
 * Updates the pipeline and checks it against the full computation, the previous flows and the previous ids.
 * Each check gathers what is wrong and asserts once (an expect() per flow was a sixth of the file's CPU).
 */
function step(np: NodePipeline, state: NodeState, features?: readonly Feature[]): void {
  const before = np.flows();
  const beforeIds = np.conjIds();
  const delta = np.update(state);
  const full = computeNodeFlows({ ...state, conjIds: np.conjIds() }, features ? { features } : {});
  const now = np.flows();
  const nowIndex = indexOf(now);
  expectSameFlows(full.flows, nowIndex);
  expect(sameGroups(np.groups(), full.groups)).toBe(true);
  // Applying the delta to what was there gives what is there now (cookies aside: a strict modify keeps
  // the installed one), and it is what diffFlows says, in its order.
  expectSameFlows(applyDiff(before, delta.flows), nowIndex, false);
  const d = diffFlows(now, before);
  const unlike: string[] = [];
  for (const k of ['add', 'modify', 'delete'] as const) {
    if (delta.flows[k].length !== d[k].length) unlike.push(`${k}: ${delta.flows[k].length} flows, diffFlows ${d[k].length}`);
    else delta.flows[k].forEach((f, i) => {
      const g = d[k][i]!;
      if (!sameIdentity(f, g) || !sameValue(f.actions, g.actions)) unlike.push(`${k} #${i}: ${formatFlow(f)}, diffFlows ${formatFlow(g)}`);
    });
  }
  expect(unlike).toEqual([]);
  // Surviving rule keys keep their ids; ids are unique.
  const ids = np.conjIds();
  const moved: [string, number, number][] = [];
  for (const [k, id] of ids) if (beforeIds.has(k) && beforeIds.get(k) !== id) moved.push([k, beforeIds.get(k)!, id]);
  expect(moved).toEqual([]);
  expect(new Set(ids.values()).size).toBe(ids.size);
}

/** A sequence: events, some applied in a batch before one update, some installed and then rolled back. */
const sequenceArb = fc.tuple(
  fc.boolean(),
  populateArb,
  fc.array(fc.record({ events: fc.array(eventArb, { minLength: 1, maxLength: 3 }), fails: fc.constantFrom(false, false, false, true) }), { minLength: 1, maxLength: 25 }),
);

type Sequence = [boolean, NodeEvent[], { events: NodeEvent[]; fails: boolean }[]];

/**
 * Runs a sequence on a pipeline with the state's preset, or with a list of features (made afresh for
 * each update when `makeFeatures`); `view` turns the model's states into the ones updated with.
 */
function runSequence([startFull, populate, steps]: Sequence, makeFeatures?: () => readonly Feature[], view: (s: NodeState) => NodeState = (s) => s): void {
  const model = new NodeModel();
  const stateOf = (m: NodeModel): NodeState => view(m.state());
  const features = makeFeatures?.();
  const np = new NodePipeline(features ? { features } : {});
  // Either the node starts populated (one full computation), or empty and then filled by one update.
  if (startFull) for (const e of populate) model.apply(e);
  step(np, stateOf(model), features);
  if (!startFull) {
    for (const e of populate) model.apply(e);
    step(np, stateOf(model), features);
  }
  for (const s of steps) {
    const next = model.clone();
    for (const e of s.events) next.apply(e);
    if (s.fails) {
      // The switch refused the bundle: roll back, and the pipeline is at the previous state again.
      const flows = np.flows();
      const groups = np.groups();
      const ids = np.conjIds();
      np.update(stateOf(next));
      np.rollback();
      expectSameFlows(np.flows(), indexOf(flows));
      expect(sameGroups(np.groups(), groups)).toBe(true);
      expect(np.conjIds()).toEqual(ids);
      continue;
    }
    step(np, stateOf(next), features);
    for (const e of s.events) model.apply(e);
  }
}

describe('NodePipeline equals computeNodeFlows after every event', () => {
  it('random sequences over pods, peers, Services, groups, policies, FQDN, multicluster, ExternalNode mode and configuration', () => {
    fc.assert(fc.property(sequenceArb, (seq) => runSequence(seq)), { seed: 18, numRuns: 300 });
  });

  it('sequences on an ExternalNode (policies, groups and interfaces; no pod features)', () => {
    const external: NodeEvent = { kind: 'externalNode', value: { interfaces: [{ uplinkOfport: 1, pairOfport: 2, ips: ['10.10.0.10'] }] } };
    const onlyPolicyEvents = eventArb.filter((e) => !['externalNode', 'config'].includes(e.kind));
    const arb = fc.tuple(
      fc.constant(true),
      populateArb.map((p) => [...p, external]),
      fc.array(fc.record({ events: fc.array(onlyPolicyEvents, { minLength: 1, maxLength: 3 }), fails: fc.boolean() }), { minLength: 1, maxLength: 15 }),
    );
    fc.assert(fc.property(arb, (seq) => runSequence(seq)), { seed: 1818, numRuns: 60 });
  });

  it('sequences with a feature list of the caller\'s own: no FQDN, the outside QoS feature with its own kind and state slice, Egress', () => {
    // The list's options stay fixed whatever the configuration events say (features read their own settings).
    const custom = (): Feature[] => [
      podConnectivity({ proxy: true }), remoteNodes(), service(), networkPolicy({ antreaPolicy: true, proxy: true }), multicluster({ proxy: true }), qos({ priority: 205 }), egress({ trafficShaping: true }),
    ];
    const arb = fc.tuple(
      fc.boolean(),
      populateArb,
      fc.array(fc.record({ events: fc.array(eventWithQosArb, { minLength: 1, maxLength: 3 }), fails: fc.constantFrom(false, false, false, true) }), { minLength: 1, maxLength: 20 }),
    );
    fc.assert(fc.property(arb, (seq) => runSequence(seq, custom)), { seed: 3030, numRuns: 120 });
  });

  it('the same sequences on a dual-stack node (ExternalNode mode included): pods of either family or both, IPv6 twins of peers, members, ipBlocks and FQDN addresses', () => {
    fc.assert(fc.property(sequenceArb, (seq) => runSequence(seq, undefined, dualStack)), { seed: 3636, numRuns: 80 });
  });
});
