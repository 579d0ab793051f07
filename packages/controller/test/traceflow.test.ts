// Traceflow decisions without a cluster: run-time validation, tag allocation, the completion rule,
// deadlines and the reasons a Traceflow fails, over plain objects and a hand-moved time.
import type { AntreaAgentInfo, Pod, Service, Traceflow } from '@switchyard/apis/types';
import { TRACEFLOW_TAGS } from '@switchyard/apis/types';
import { ManualClock } from '@switchyard/runtime/testing';
import {
  agentRunning,
  assignTags,
  finishedBy,
  isComplete,
  lowestFreeTag,
  pendingDeadline,
  reviewTraceflow,
  rfc3339,
  runningDeadline,
  timeoutReason,
  validateTraceflow,
  type TimeoutFacts,
  type TraceflowView,
} from '../src/traceflow';

const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
const pods: Record<string, Pod> = {
  'default/client': { metadata: { name: 'client', namespace: 'default' }, spec: { nodeName: 'n1', containers: [] }, status: { podIP: '10.0.1.2' } },
  'default/server': { metadata: { name: 'server', namespace: 'default' }, spec: { nodeName: 'n2', containers: [] }, status: { podIP: '10.0.2.2' } },
  'default/unscheduled': { metadata: { name: 'unscheduled', namespace: 'default' }, spec: { containers: [] } },
  'default/client-ds': { metadata: { name: 'client-ds', namespace: 'default' }, spec: { nodeName: 'n1', containers: [] }, status: { podIP: '10.0.1.3', podIPs: [{ ip: '10.0.1.3' }, { ip: 'fd00:0:1::3' }] } },
  'default/server-ds': { metadata: { name: 'server-ds', namespace: 'default' }, spec: { nodeName: 'n2', containers: [] }, status: { podIP: '10.0.2.3', podIPs: [{ ip: '10.0.2.3' }, { ip: 'fd00:0:2::3' }] } },
  'default/client-v6': { metadata: { name: 'client-v6', namespace: 'default' }, spec: { nodeName: 'n1', containers: [] }, status: { podIP: 'fd00:0:1::4', podIPs: [{ ip: 'fd00:0:1::4' }] } },
};
const services: Record<string, Service> = {
  'default/web': { metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.10' } },
  'default/headless': { metadata: { name: 'headless', namespace: 'default' }, spec: { clusterIP: 'None' } },
  'default/web-ds': { metadata: { name: 'web-ds', namespace: 'default' }, spec: { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11', 'fd00:96::11'] } },
};
const view: TraceflowView = { pod: (ns, n) => pods[`${ns}/${n}`], service: (ns, n) => services[`${ns}/${n}`] };

function traceflow(name: string, over: Partial<Traceflow['spec']> = {}, status?: Traceflow['status'], createdAt = clock.now()): Traceflow {
  const tf: Traceflow = {
    metadata: { name, uid: `uid-${name}`, creationTimestamp: rfc3339(createdAt) },
    spec: { source: { namespace: 'default', pod: 'client' }, destination: { namespace: 'default', pod: 'server' }, ...over },
  };
  if (status) tf.status = status;
  return tf;
}
const noFacts = (): TimeoutFacts => ({ agentRunning: () => true });

describe('run-time validation', () => {
  test('a Traceflow between two running Pods is valid', () => {
    expect(validateTraceflow(traceflow('ok'), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('svc', { destination: { namespace: 'default', service: 'web' } }), view)).toBeUndefined();
  });

  test('names the field and the value of what the cluster does not have', () => {
    const cases: [Partial<Traceflow['spec']>, string][] = [
      [{ source: { namespace: 'default', pod: 'gone' } }, 'spec.source.pod: Pod default/gone not found'],
      [{ source: { namespace: 'default', pod: 'unscheduled' } }, 'spec.source.pod: Pod default/unscheduled has no IP yet (not scheduled or not started)'],
      [{ destination: { namespace: 'default', pod: 'x' } }, 'spec.destination.pod: Pod default/x not found'],
      [{ destination: { namespace: 'default', service: 'x' } }, 'spec.destination.service: Service default/x not found'],
      [{ destination: { namespace: 'default', service: 'headless' } }, 'spec.destination.service: Service default/headless has no ClusterIP'],
      [{ timeout: 400 }, 'spec.timeout: 400 is above 300'],
    ];
    for (const [spec, reason] of cases) expect(validateTraceflow(traceflow('t', spec), view)).toBe(reason);
  });

  test('IPv6: ipv6Header between dual-stack Pods or to a dual-stack Service is valid; a Pod or Service without IPv6, or IPv4 and IPv6 mixed, is refused naming the field', () => {
    const v6 = { packet: { ipv6Header: {} } };
    const ds = { namespace: 'default', pod: 'client-ds' };
    expect(validateTraceflow(traceflow('v6', { ...v6, source: ds, destination: { namespace: 'default', pod: 'server-ds' } }), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('v6-svc', { ...v6, source: ds, destination: { namespace: 'default', service: 'web-ds' } }), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('v6-ip', { source: ds, destination: { ip: 'fd00:0:2::9' } }), view)).toBeUndefined();
    // An IPv6-only Pod's trace is IPv6 without asking, and needs an IPv6 destination.
    expect(validateTraceflow(traceflow('v6-only', { source: { namespace: 'default', pod: 'client-v6' }, destination: { namespace: 'default', pod: 'server-ds' } }), view)).toBeUndefined();
    const cases: [Partial<Traceflow['spec']>, string][] = [
      [{ ...v6 }, 'spec.source.pod: Pod default/client has no IPv6 address (it has 10.0.1.2)'],
      [{ ...v6, source: ds }, 'spec.destination.pod: Pod default/server has no IPv6 address (it has 10.0.2.2)'],
      [{ ...v6, source: ds, destination: { namespace: 'default', service: 'web' } }, 'spec.destination.service: Service default/web has no IPv6 ClusterIP (it has 10.96.0.10)'],
      [{ source: { namespace: 'default', pod: 'client-v6' } }, 'spec.destination.pod: Pod default/server has no IPv6 address (it has 10.0.2.2)'],
      [{ packet: { ipHeader: { protocol: 6 }, ipv6Header: {} } }, 'spec.packet: ipHeader and ipv6Header both set (a packet is IPv4 or IPv6)'],
      [{ ...v6, destination: { ip: '10.0.2.9' } }, 'spec.destination.ip: 10.0.2.9 is IPv4 but spec.packet.ipv6Header asks for IPv6'],
      [{ packet: { ipHeader: { protocol: 6 } }, destination: { ip: 'fd00::9' } }, 'spec.destination.ip: fd00::9 is IPv6 but spec.packet.ipHeader describes IPv4 (use ipv6Header)'],
      [{ liveTraffic: true, source: { ip: '10.0.9.9' }, destination: { ip: 'fd00::9' } }, 'spec.destination.ip: fd00::9 is not of the family of spec.source.ip 10.0.9.9'],
    ];
    for (const [spec, reason] of cases) expect(validateTraceflow(traceflow('t', spec), view)).toBe(reason);
  });

  test('a live-traffic Traceflow from an IP, or to a destination Pod only, needs no source Pod', () => {
    expect(validateTraceflow(traceflow('live', { liveTraffic: true, source: { ip: '10.0.9.9' } }), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('live-dst', { liveTraffic: true, source: {} }), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('no-src', { source: { ip: '10.0.9.9' } }), view)).toBe('spec.source.pod: required (or, with liveTraffic, spec.source.ip or a destination Pod)');
  });

  test('refuses two transport headers, and one that disagrees with the IP protocol', () => {
    expect(validateTraceflow(traceflow('two', { packet: { transportHeader: { tcp: { dstPort: 80 }, udp: { dstPort: 53 } } } }), view)).toBe(
      'spec.packet.transportHeader: only one of tcp, udp and icmp may be set (got tcp, udp)',
    );
    expect(validateTraceflow(traceflow('udp-as-tcp', { packet: { ipHeader: { protocol: 17 }, transportHeader: { tcp: { dstPort: 80 } } } }), view)).toBe(
      'spec.packet.transportHeader.tcp: does not agree with spec.packet.ipHeader.protocol 17 (tcp is 6)',
    );
    expect(validateTraceflow(traceflow('icmp', { packet: { ipHeader: { protocol: 1 }, transportHeader: { icmp: {} } } }), view)).toBeUndefined();
    const dualStack = { source: { namespace: 'default', pod: 'client-ds' }, destination: { namespace: 'default', pod: 'server-ds' } };
    expect(validateTraceflow(traceflow('icmp6', { ...dualStack, packet: { ipv6Header: { nextHeader: 58 }, transportHeader: { icmp: {} } } }), view)).toBeUndefined();
    expect(validateTraceflow(traceflow('icmp-as-v6-udp', { ...dualStack, packet: { ipv6Header: { nextHeader: 17 }, transportHeader: { icmp: {} } } }), view)).toBe(
      'spec.packet.transportHeader.icmp: does not agree with spec.packet.ipv6Header.nextHeader 17 (icmp is 58)',
    );
  });
});

describe('data-plane tags', () => {
  test('the lowest tag not held; none when all 14 are held', () => {
    expect(lowestFreeTag(new Set())).toBe(TRACEFLOW_TAGS[0]);
    expect(lowestFreeTag(new Set([TRACEFLOW_TAGS[0]!, TRACEFLOW_TAGS[2]!]))).toBe(TRACEFLOW_TAGS[1]);
    expect(lowestFreeTag(new Set(TRACEFLOW_TAGS))).toBeUndefined();
  });

  test('the oldest waiting ones get the free tags (creationTimestamp, then name)', () => {
    const t0 = clock.now();
    const waiting = [traceflow('c', {}, undefined, t0 + 2000), traceflow('b', {}, undefined, t0), traceflow('a', {}, undefined, t0), traceflow('d', {}, undefined, t0 + 1000)];
    const held = new Set(TRACEFLOW_TAGS.slice(0, 12));
    expect(assignTags(waiting, held)).toEqual(new Map([['a', TRACEFLOW_TAGS[12]], ['b', TRACEFLOW_TAGS[13]]]));
  });
});

describe('completion', () => {
  test("done when any node's last observation is Delivered, Dropped, Rejected or ForwardedOutOfOverlay", () => {
    for (const action of ['Delivered', 'Dropped', 'Rejected', 'ForwardedOutOfOverlay'] as const) {
      expect(isComplete([{ node: 'n1', observations: [{ component: 'SpoofGuard', action: 'Forwarded' }, { component: 'Forwarding', action }] }])).toBe(true);
    }
  });

  test('not done while the packet went on through a tunnel, or a final action is not the last', () => {
    expect(isComplete(undefined)).toBe(false);
    expect(isComplete([{ node: 'n1', observations: [{ action: 'Forwarded' }] }])).toBe(false);
    expect(isComplete([{ node: 'n1', observations: [{ action: 'Dropped' }, { action: 'Forwarded' }] }])).toBe(false);
    expect(isComplete([{ node: 'n1', observations: [{ action: 'Forwarded' }] }, { node: 'n2', observations: [{ action: 'Received' }, { action: 'Delivered' }] }])).toBe(true);
  });

  test('with a source pod, not done until its node (the Sender) has reported too, unless only drops are traced', () => {
    const receiverOnly = [{ node: 'n2', role: 'Receiver' as const, observations: [{ action: 'Received' as const }, { action: 'Delivered' as const }] }];
    const source = { namespace: 'ns', pod: 'a' };
    expect(isComplete(receiverOnly, { source })).toBe(false);
    expect(isComplete([...receiverOnly, { node: 'n1', role: 'Sender', observations: [{ action: 'Forwarded' }] }], { source })).toBe(true);
    expect(isComplete(receiverOnly, { source, droppedOnly: true })).toBe(true);
    expect(isComplete(receiverOnly, { source: { ip: '192.0.2.1' } })).toBe(true);
  });
});

describe('deadlines and timeout reasons', () => {
  const started = (name: string, over: Partial<Traceflow['spec']> = {}, results?: NonNullable<Traceflow['status']>['results']): Traceflow =>
    traceflow(name, over, { phase: 'Running', dataplaneTag: 7, startTime: rfc3339(clock.now()), ...(results ? { results } : {}) });

  test('a Running one times out at startTime + spec.timeout (default 20 s)', () => {
    const tf = started('r');
    expect(runningDeadline(tf)).toBe(clock.now() + 20_000);
    expect(runningDeadline(started('r5', { timeout: 5 }))).toBe(clock.now() + 5_000);
    expect(reviewTraceflow(tf, clock.now() + 19_999, view, noFacts)).toEqual({ kind: 'none', wakeAt: clock.now() + 20_000 });
    expect(reviewTraceflow(tf, clock.now() + 20_000, view, noFacts)).toEqual({ kind: 'fail', reason: 'timed out after 20s: no result from any node' });
  });

  test('a final result wins over the deadline', () => {
    const tf = started('done', {}, [{ node: 'n1', role: 'Sender', observations: [{ action: 'Delivered' }] }]);
    expect(reviewTraceflow(tf, clock.now() + 60_000, view, noFacts)).toEqual({ kind: 'succeed' });
  });

  test('no result: names the source Pod node, and says when its agent is not running', () => {
    const alive: AntreaAgentInfo = { metadata: { name: 'n1' }, agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: rfc3339(clock.now()) }] };
    const infos = new Map([['n1', alive]]);
    const at = (ms: number): TimeoutFacts => ({ senderNode: 'n1', agentRunning: (node) => agentRunning(infos.get(node), clock.now() + ms, 60_000) });
    expect(timeoutReason(started('r'), at(20_000))).toBe("timed out after 20s: no result from node n1 (the source Pod's node)");
    // Three 60 s heartbeats missed.
    expect(timeoutReason(started('r'), at(180_001))).toBe("timed out after 20s: no result from node n1 (the source Pod's node); the agent on node n1 is not running (no recent AntreaAgentInfo heartbeat)");
    expect(agentRunning(undefined, clock.now(), 60_000)).toBe(false);
  });

  test('results but none final: names each node that reported and its last action, and the destination node that did not', () => {
    const tf = started('fwd', {}, [{ node: 'n1', role: 'Sender', observations: [{ action: 'Forwarded' }] }]);
    expect(timeoutReason(tf, { senderNode: 'n1', agentRunning: () => true })).toBe('timed out after 20s: node n1 reported (last: Forwarded), no final result from any node');
    expect(timeoutReason(tf, { senderNode: 'n1', receiverNode: 'n2', agentRunning: (n) => n !== 'n2' })).toBe(
      "timed out after 20s: node n1 reported (last: Forwarded), no final result from any node; no result from node n2 (the destination Pod's node); the agent on node n2 is not running (no recent AntreaAgentInfo heartbeat)",
    );
  });

  test('a Pending one fails when its timeout, counted from creation, passes', () => {
    const tf = traceflow('p', { timeout: 10 }, { phase: 'Pending', reason: 'waiting' });
    expect(pendingDeadline(tf, clock.now())).toBe(clock.now() + 10_000);
    expect(reviewTraceflow(tf, clock.now() + 9_000, view, noFacts)).toEqual({ kind: 'wait-tag' });
    expect(reviewTraceflow(tf, clock.now() + 10_000, view, noFacts)).toEqual({ kind: 'fail', reason: 'timed out after 10s waiting for a free data-plane tag' });
  });

  test('a new one is validated; a finished one needs nothing; one finished before a restart counts as finished at its deadline', () => {
    expect(reviewTraceflow(traceflow('new'), clock.now(), view, noFacts)).toEqual({ kind: 'wait-tag' });
    expect(reviewTraceflow(traceflow('bad', { source: { namespace: 'default', pod: 'gone' } }), clock.now(), view, noFacts)).toEqual({ kind: 'fail', reason: 'spec.source.pod: Pod default/gone not found' });
    const done = started('old');
    done.status!.phase = 'Succeeded';
    expect(reviewTraceflow(done, clock.now(), view, noFacts)).toEqual({ kind: 'none' });
    expect(finishedBy(done, clock.now() + 3_600_000)).toBe(clock.now() + 20_000);
    expect(finishedBy(done, clock.now() + 5_000)).toBe(clock.now() + 5_000);
  });
});
