/**
 * IPv4-only nodes compute exactly what they computed before IPv6 and dual-stack came in: every
 * flow (cookie, table, priority, match, actions, in order), every group and every Traceflow flow
 * of 60 random rich IPv4 states (the property tests' node universe: all traffic modes, proxy,
 * policies of every kind, Services, FQDN, multicluster, ExternalNode, Egress, QoS), compared as
 * SHA-256 digests with test/fixtures/v4-unchanged.json, recorded at fa0e3ac, before the IPv6 work,
 * and recorded again on purpose when the Service group id went into ct_label (EndpointDNAT's commit
 * and the affinity learn: the toServices retransmitted-SYN fix).
 * `V4_FIXTURE_WRITE=1` records it again (only on purpose: a changed digest is a changed v4 flow).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { computeNodeFlows, dumpFlows, egress, formatGroup, nodeFeatures, traceFlows, type Feature, type NodeState } from '../src/index';
import { NodeModel, eventWithQosArb, populateArb } from './node-model';
import { qos } from './qos-feature';

const FIXTURE = join(__dirname, 'fixtures', 'v4-unchanged.json');
const STATES = 60;

/** The random states: a populated node, then up to 30 more events (config changes included). */
function states(): NodeState[] {
  const runs = fc.sample(fc.tuple(populateArb, fc.array(eventWithQosArb, { maxLength: 30 })), { seed: 3606, numRuns: STATES });
  return runs.map(([fill, more]) => {
    const m = new NodeModel();
    for (const e of [...fill, ...more]) m.apply(e);
    return m.state();
  });
}

/** Everything a node's agent installs, as text: flows, groups, trace flows of one tag. */
function render(s: NodeState): string {
  const features: Feature[] = [...nodeFeatures(s), ...(s.externalNode ? [] : [egress(), qos()])];
  const nf = computeNodeFlows(s, { features });
  const trace = traceFlows(features, { pipeline: nf.pipeline, config: s.config, controllerId: 62373, flows: nf.flows }, 7);
  return [...dumpFlows(nf, { cookie: true }), ...nf.groups.map((g) => formatGroup(g)), ...dumpFlows({ pipeline: nf.pipeline, flows: trace }, { cookie: true })].join('\n');
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

test('60 rich IPv4-only states give the same flows, groups and trace flows as before IPv6', () => {
  const got = states().map((s) => digest(render(s)));
  if (process.env.V4_FIXTURE_WRITE === '1') writeFileSync(FIXTURE, `${JSON.stringify(got, null, 1)}\n`);
  const want = JSON.parse(readFileSync(FIXTURE, 'utf8')) as string[];
  expect(got.length).toBe(STATES);
  const changed = got.flatMap((d, i) => (d === want[i] ? [] : [i]));
  expect(changed).toEqual([]);
});
