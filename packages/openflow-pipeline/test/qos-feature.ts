/**
 * A feature written outside the package, as a user would write one: DSCP marks for pods' egress
 * traffic, from its own slice of the state (`extensions.qos`), with its own object kind (`qosMark`),
 * its own options, and a read of another kind (the pod it marks) through the FlowContext. Also a
 * broken variant that reads the pod from a state it kept instead.
 */
import fc from 'fast-check';
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, PRIORITY, defineKind, makeCookie, podKind, type Feature, type NodeState } from '../src/index';

/** One mark: the pod (`<namespace>/<name>`) and the DSCP its packets get. */
export interface QosMark {
  pod: string;
  dscp: number;
}

declare module '../src/index' {
  interface ObjectKinds {
    qosMark: QosMark;
  }
  interface NodeStateExtensions {
    qos?: { marks: QosMark[] };
  }
}

/** The marks of the state, by pod. */
export const qosMarkKind = defineKind({ name: 'qosMark', enumerate: (s) => (s.extensions?.qos?.marks ?? []).map((m) => [m.pod, m] as const) });

/** Options of the QoS feature. */
export interface QosOptions {
  /** Priority of the marking flows. */
  priority?: number;
}

function markFlows(s: { round: number }, table: number, next: number, priority: number, ips: readonly string[], dscp: number): Flow[] {
  const cookie = makeCookie(s.round, CookieCategory.Egress);
  return ips.map((ip) => ({
    table, priority, cookie, match: { ethType: 0x800, ipv4Src: ip }, actions: [{ type: 'setField', field: 'ipDscp', value: dscp }, { type: 'gotoTable', table: next }],
  }));
}

/** The QoS feature: each mark's flows read its pod through the context (dependency `pod:<key>`). */
export function qos(opts: QosOptions = {}): Feature {
  const config = { priority: opts.priority ?? PRIORITY.normal };
  return {
    name: 'qos',
    config,
    tables: () => ['EgressQoS', 'L3DecTTL'],
    kinds: [qosMarkKind, podKind],
    perObject: {
      qosMark: (ctx, mark) => {
        const pod = ctx.object('pod', mark.pod);
        return { flows: markFlows(ctx.config, ctx.pipeline.id('EgressQoS'), ctx.pipeline.id('L3DecTTL'), config.priority, pod?.ips ?? [], mark.dscp) };
      },
    },
  };
}

/** Broken on purpose: its kind keeps the last state it enumerated, and owners read pods from it. */
export function leakyQos(): Feature {
  let seen: NodeState | undefined;
  const kind = defineKind({
    name: 'qosMark',
    enumerate: (s) => {
      seen = s;
      return qosMarkKind.enumerate(s);
    },
  });
  return {
    name: 'leakyQos',
    tables: () => ['EgressQoS', 'L3DecTTL'],
    kinds: [kind],
    perObject: {
      qosMark: (ctx, mark) => {
        const pod = seen?.pods.find((p) => `${p.namespace}/${p.name}` === mark.pod);
        return { flows: markFlows(ctx.config, ctx.pipeline.id('EgressQoS'), ctx.pipeline.id('L3DecTTL'), PRIORITY.normal, pod?.ips ?? [], mark.dscp) };
      },
    },
  };
}

/** Random QoS slices over the node model's pods (`ns/p0` ... `ns/p5`). */
export const qosArb: fc.Arbitrary<{ marks: QosMark[] } | undefined> = fc.option(
  fc.uniqueArray(fc.record({ pod: fc.nat(5).map((i) => `ns/p${i}`), dscp: fc.constantFrom(10, 18, 46) }), { selector: (m) => m.pod, maxLength: 3 }).map((marks) => ({ marks })),
  { freq: 3, nil: undefined },
);
