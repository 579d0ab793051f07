// Drives a case through the engine and explain, returning mismatches (used by the tests).
import { PolicyEngine, explain, type ClusterObject } from '../../src/index';
import { ALL_PODS, baseModel, expectedMatrix, type Case } from './model';

/** An engine that has been given the model's Namespaces, Pods and Nodes. */
export function baseEngine(): PolicyEngine {
  const e = new PolicyEngine();
  for (const o of baseModel()) e.apply({ type: 'ADDED', object: o as ClusterObject });
  return e;
}

export interface Mismatch {
  step: number;
  probe: string;
  from: string;
  to: string;
  expected: boolean;
  actual: boolean;
}

export function runCase(c: Case, setup: () => object[] = baseModel, pods: string[] = ALL_PODS): Mismatch[] {
  const engine = new PolicyEngine();
  const ordered = (objs: object[]) => [...objs].sort((a, b) => rank(a) - rank(b));
  for (const o of ordered(setup())) {
    const d = engine.apply({ type: 'ADDED', object: o as ClusterObject });
    if (d.rejected) throw new Error(`setup object rejected: ${d.rejected.errors.map((e) => e.message).join('; ')}`);
  }
  const out: Mismatch[] = [];
  c.steps.forEach((step, i) => {
    for (const o of ordered(step.apply ?? [])) {
      const d = engine.apply({ type: 'MODIFIED', object: o as ClusterObject });
      if (d.rejected) throw new Error(`${c.name}: step ${i} object rejected: ${d.rejected.errors.map((e) => e.message).join('; ')}`);
    }
    for (const o of step.delete ?? []) engine.apply({ type: 'DELETED', object: o as ClusterObject });
    for (const probe of step.probes) {
      const m = expectedMatrix(probe.expect, pods);
      for (const from of pods) {
        for (const to of pods) {
          if (from === to) continue; // loopback is ignored, as upstream does
          const expected = m.get(from)?.get(to) as boolean;
          const actual = explain(engine, { src: from, dst: to, protocol: probe.protocol, port: probe.port, ...(probe.srcPort !== undefined ? { srcPort: probe.srcPort } : {}) }).allowed;
          if (actual !== expected) out.push({ step: i, probe: `${probe.protocol}/${probe.port}`, from, to, expected, actual });
        }
      }
    }
  });
  return out;
}

function rank(o: object): number {
  const k = (o as { kind?: string }).kind ?? '';
  if (k === 'Tier' || k === 'Namespace' || k === 'Node') return 0;
  if (k === 'ClusterGroup' || k === 'Group' || k === 'Service' || k === 'Pod') return 1;
  return 2;
}
