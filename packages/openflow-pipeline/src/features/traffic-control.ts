/**
 * TrafficControl (Antrea's TrafficControl API, crd.antrea.io/v1alpha2): the IP traffic of selected
 * local pods is mirrored (copied) or redirected to a target port of the bridge. The TrafficControl
 * table marks a packet from a selected pod (direction Egress) or to one (Ingress) with the action
 * and the target port; the Output table then outputs a mirrored packet to its destination and to
 * the target, a redirected one to the target only. A redirected packet that comes back through
 * the return port is classified `FromTCReturn`, routed again, and output to where it was going
 * without passing the policy tables a second time.
 *
 * A feature outside the package's presets: list it with them (`[...podNodeFeatures(flags),
 * trafficControl()]`); its objects come from `NodeState.extensions.trafficControl`. Its kind and
 * slice types are in ObjectKinds (objects.ts) and NodeStateExtensions (state.ts): declaration
 * merging from inside the package does not survive the bundled .d.ts, so a feature of this
 * package writes them there, and one written elsewhere merges them into the package's module.
 */
import type { Flow } from '@switchyard/openflow/codec';
import type { Feature } from '../feature';
import {
  FromTCReturnRegMark, OutputToOFPortRegMark, PRIORITY, TargetOFPortField, TrafficControlMirrorRegMark, TrafficControlRedirectRegMark,
  TrafficControlTargetOFPortField, loadField, loadMarks, matchField, matchMarks,
} from '../fields';
import { defineKind } from '../objects';
import type { NodeConfig, TrafficControlRule } from '../state';
import type { Pipeline } from '../tables';
import { flow, goto } from './common';
import { cookieOf } from './pod';

export type { TrafficControlRule } from '../state';

/** TrafficControls by name, from `NodeState.extensions.trafficControl`. */
export const trafficControlKind = defineKind({
  name: 'trafficControl',
  enumerate: (s) => (s.extensions?.trafficControl ?? []).map((r) => [r.name, r] as const),
});

/** The TrafficControl table's marks for one rule, and the return port's classifier flow. */
export function trafficControlFlows(p: Pipeline, cfg: NodeConfig, rule: TrafficControlRule): Flow[] {
  const c = cookieOf(cfg);
  const t = p.id('TrafficControl');
  const mark = [loadField(TrafficControlTargetOFPortField, rule.targetOfport), ...loadMarks(rule.action === 'Mirror' ? TrafficControlMirrorRegMark : TrafficControlRedirectRegMark), goto(p.nextId('TrafficControl'))];
  const flows: Flow[] = [];
  for (const port of rule.podOfports) {
    if (rule.direction !== 'Egress') flows.push(flow(t, PRIORITY.normal, matchField(TargetOFPortField, port), mark, c));
    if (rule.direction !== 'Ingress') flows.push(flow(t, PRIORITY.normal, { inPort: port }, mark, c));
  }
  if (rule.action === 'Redirect' && rule.returnOfport !== undefined) {
    flows.push(flow(p.id('Classifier'), PRIORITY.normal, { inPort: rule.returnOfport }, [...loadMarks(FromTCReturnRegMark), goto(p.stageId('routing'))], c));
  }
  return flows;
}

/** Flows every rule shares: the two outputs, and returned packets going straight to the output stage. */
export function trafficControlNodeFlows(p: Pipeline, cfg: NodeConfig): Flow[] {
  const c = cookieOf(cfg);
  const out = p.id('Output');
  return [
    flow(out, PRIORITY.high + 1, matchMarks(OutputToOFPortRegMark, TrafficControlMirrorRegMark), [
      { type: 'output', port: TargetOFPortField.ref() }, { type: 'output', port: TrafficControlTargetOFPortField.ref() },
    ], c),
    flow(out, PRIORITY.high + 1, matchMarks(OutputToOFPortRegMark, TrafficControlRedirectRegMark), [{ type: 'output', port: TrafficControlTargetOFPortField.ref() }], c),
    flow(p.id('TrafficControl'), PRIORITY.high, matchMarks(OutputToOFPortRegMark, FromTCReturnRegMark), [goto(p.stageId('output'))], c),
  ];
}

/** TrafficControl: mirror or redirect the traffic of selected local pods to a port of the bridge. */
export function trafficControl(): Feature {
  return {
    name: 'trafficControl',
    tables: () => ['Classifier', 'L3Forwarding', 'L2ForwardingCalc', 'TrafficControl', 'Output'],
    kinds: [trafficControlKind],
    nodeFlows: (ctx) => ({ flows: trafficControlNodeFlows(ctx.pipeline, ctx.config) }),
    perObject: { trafficControl: (ctx, rule) => ({ flows: trafficControlFlows(ctx.pipeline, ctx.config, rule) }) },
  };
}
