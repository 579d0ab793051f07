/**
 * The compliance kit (`@switchyard/openflow-pipeline/testing`): it passes the package's own
 * features and a feature written outside the package (its own kind and state slice), and it
 * catches, by name, features that break the contract.
 */
import fc from 'fast-check';
import type { Flow } from '@switchyard/openflow/codec';
import {
  CookieCategory, PRIORITY, makeCookie, networkPolicy, podConnectivity, podKind, podNodeFeatures, remoteNodes, traceCookie, type Feature, type NodeState,
  type Traceable,
} from '../src/index';
import { FeatureContractError, checkFeatureContract, type ContractCheck } from '../src/testing';
import { NodeModel, eventWithQosArb, populateArb } from './node-model';
import { leakyQos, qos } from './qos-feature';

/** A node through a few hand-made steps: pods come and go, one pod's address changes, QoS marks change. */
function handStates(): NodeState[] {
  const m = new NodeModel();
  const out: NodeState[] = [m.state()];
  const steps: ((m: NodeModel) => void)[] = [
    (x) => x.apply({ kind: 'pod', key: '0', value: { name: 'p0', namespace: 'ns', ofport: 10, ips: ['10.10.0.10'], mac: '02:00:00:00:00:10' } }),
    (x) => x.apply({ kind: 'qos', value: { marks: [{ pod: 'ns/p0', dscp: 46 }, { pod: 'ns/p1', dscp: 10 }] } }),
    (x) => x.apply({ kind: 'pod', key: '1', value: { name: 'p1', namespace: 'ns', ofport: 11, ips: ['10.10.0.11'], mac: '02:00:00:00:00:11' } }),
    (x) => x.apply({ kind: 'pod', key: '0', value: { name: 'p0', namespace: 'ns', ofport: 10, ips: ['10.10.0.30'], mac: '02:00:00:00:00:10' } }),
    (x) => x.apply({ kind: 'pod', key: '1', value: undefined }),
    (x) => x.apply({ kind: 'qos', value: undefined }),
  ];
  for (const step of steps) {
    step(m);
    out.push(m.state());
  }
  return out;
}

/** Random sequences of the node model (with QoS events). */
const sequenceArb = fc.tuple(populateArb, fc.array(eventWithQosArb, { minLength: 1, maxLength: 12 })).map(([populate, events]) => {
  const m = new NodeModel();
  for (const e of populate) m.apply(e);
  const states = [m.state()];
  for (const e of events) {
    m.apply(e);
    states.push(m.state());
  }
  return states;
});

/** The checks a broken feature fails, from the kit's error. */
function failures(run: () => unknown): { checks: ContractCheck[]; message: string } {
  try {
    run();
  } catch (e) {
    if (!(e instanceof FeatureContractError)) throw e;
    return { checks: [...new Set(e.problems.map((p) => p.check))], message: e.message };
  }
  return { checks: [], message: '' };
}

const base = (): Feature[] => [podConnectivity({ proxy: true }), remoteNodes()];

describe('features that keep the contract pass', () => {
  it('a feature from outside the package, with its own kind and state slice, over hand-made states', () => {
    const feature = qos({ priority: 205 });
    const report = checkFeatureContract({ feature, features: [...base(), feature], states: handStates() });
    expect(report.states).toBe(7);
    expect(report.owners).toBeGreaterThan(0);
    expect(report.flows).toBeGreaterThan(0);
  });

  it('the same feature over generated sequences (fast-check)', () => {
    const feature = qos();
    fc.assert(fc.property(sequenceArb, (states) => {
      checkFeatureContract({ feature, features: [...base(), feature], states });
    }), { seed: 3031, numRuns: 25 });
  });

  it('a feature whose node-level flows read an object through the context (they follow it)', () => {
    const feature: Feature = {
      name: 'firstPod', tables: () => ['Classifier'], kinds: [podKind],
      nodeFlows: (ctx) => ({
        flows: (ctx.object('pod', 'ns/p0')?.ips ?? []).map((ip): Flow => ({ table: ctx.pipeline.id('Classifier'), priority: 300, cookie: 0n, match: { ethType: 0x800, ipv4Src: ip }, actions: [] })),
      }),
    };
    expect(checkFeatureContract({ feature, features: [...base(), feature], states: handStates() }).flows).toBeGreaterThan(0);
  });

  it('the package\'s NetworkPolicy and pod connectivity features, traceable, in the preset of generated nodes', () => {
    fc.assert(fc.property(sequenceArb, (states) => {
      const features = podNodeFeatures({ enableProxy: true, enableAntreaPolicy: true });
      for (const name of ['networkPolicy', 'podConnectivity']) {
        const report = checkFeatureContract({ feature: features.find((f) => f.name === name)!, features, states });
        expect(report.traceFlows).toBeGreaterThan(0);
      }
    }), { seed: 3032, numRuns: 8 });
  });
});

describe('broken features are caught, by name', () => {
  it('an owner that reads the state outside the FlowContext goes stale: dependencies', () => {
    const feature = leakyQos();
    const { checks, message } = failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() }));
    expect(checks).toContain('dependencies');
    expect(message).toMatch(/leakyQos\/qosMark:ns\/p0 is stale/);
  });

  it('flows not in the codec\'s canonical form (an all-ones mask the switch reports as a plain value): canonical', () => {
    const feature: Feature = {
      name: 'sloppy', tables: () => ['Classifier'], kinds: [podKind],
      perObject: { pod: (ctx, pod) => ({ flows: [{ table: ctx.pipeline.id('Classifier'), priority: 300, cookie: 0n, match: { ethSrc: { value: pod.mac, mask: 'ff:ff:ff:ff:ff:ff' } }, actions: [] }] }) },
    };
    const { checks, message } = failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() }));
    expect(checks).toContain('canonical');
    expect(message).toMatch(/sloppy\/pod:ns\/p0 emits a flow not in the codec's canonical form/);
  });

  it('a flow in a table the feature does not declare: tables', () => {
    const feature: Feature = {
      name: 'stray', tables: () => [], nodeFlows: (ctx) => ({ flows: [{ table: ctx.pipeline.id('Output'), priority: 300, cookie: 0n, match: { inPort: 99 }, actions: [] }] }),
    };
    expect(failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() })).checks).toContain('tables');
  });

  it('flows that change from one computation to the next: deterministic', () => {
    let n = 0;
    const feature: Feature = {
      name: 'restless', tables: () => ['Classifier'], nodeFlows: (ctx) => ({ flows: [{ table: ctx.pipeline.id('Classifier'), priority: 300, cookie: 0n, match: { inPort: 100 + (n++ % 7) }, actions: [] }] }),
    };
    expect(failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() })).checks).toContain('deterministic');
  });

  it('conjunctive match flows of one identity with different cookies in a merging feature: merge', () => {
    const feature: Feature = {
      name: 'twoCookies', tables: () => ['Classifier'], kinds: [podKind], mergesConjunctions: true,
      perObject: {
        pod: (ctx, pod) => ({
          flows: [{ table: ctx.pipeline.id('Classifier'), priority: 300, cookie: makeCookie(1, CookieCategory.NetworkPolicy, pod.ofport), match: { ethType: 0x800 }, actions: [{ type: 'conjunction', id: pod.ofport, clause: 1, nClauses: 2 }] }],
        }),
      },
    };
    expect(failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() })).checks).toContain('merge');
  });

  it('trace flows without the tag, or below nothing they could report on: traceable', () => {
    const feature: Feature & Traceable = {
      name: 'badTrace', tables: () => ['Output'],
      traceFlows: (ctx, tag): Flow[] => [
        { table: ctx.pipeline.id('Output'), priority: PRIORITY.high + 9, cookie: traceCookie(ctx.config, tag), match: { inPort: 5 }, actions: [] },
        { table: ctx.pipeline.id('Output'), priority: 0, cookie: traceCookie(ctx.config, tag), match: { ethType: 0x800, ipDscp: tag, inPort: 6 }, actions: [] },
      ],
    };
    const { checks, message } = failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates().slice(0, 2) }));
    expect(checks).toEqual(['traceable']);
    expect(message).toMatch(/does not match the tag 7/);
    expect(message).toMatch(/shadows no decision flow/);
  });

  it('a read of a kind the feature does not declare, and a feature missing from its list', () => {
    const feature: Feature = { name: 'nosy', tables: () => [], nodeFlows: (ctx) => ({ flows: ctx.podByIp('10.10.0.10') ? [] : [] }) };
    const read = failures(() => checkFeatureContract({ feature, features: [...base(), feature], states: handStates() }));
    expect(read.checks).toEqual(['compute']);
    expect(read.message).toMatch(/INVALID_FEATURE|reads kind pod without declaring it/);
    expect(failures(() => checkFeatureContract({ feature: networkPolicy(), features: base(), states: handStates() })).checks).toContain('list');
  });
});
