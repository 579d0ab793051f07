import type { KubeObject } from '@switchyard/kube';
import type { ServicePortSpec } from '@switchyard/openflow-pipeline';
import { parseAgentConfig } from '@switchyard/apis';
import { RECONCILE_RETRY } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_AFFINITY_TIMEOUT, SERVICE_GROUP_ID_BASE, ServiceController, ServiceGroupIds, servicePortKey, servicesToSpecs } from '../src/features/services/services';
import { agentOptionsFromConfig } from '../src/index';

const svc = (name: string, spec: Record<string, unknown>, ns = 'default'): KubeObject => ({ metadata: { name, namespace: ns }, spec: { type: 'ClusterIP', ...spec } });
interface Ep {
  ip: string;
  ready?: boolean;
  serving?: boolean;
  node?: string;
}
const slice = (name: string, service: string, ports: Record<string, unknown>[], eps: Ep[], extra: Record<string, unknown> = {}, ns = 'default'): KubeObject => ({
  metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4',
  ports,
  endpoints: eps.map((e) => ({
    addresses: [e.ip],
    conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.ready === false },
    ...(e.node ? { nodeName: e.node } : {}),
  })),
  ...extra,
});
const map = (services: KubeObject[], slices: KubeObject[], groupIds = new ServiceGroupIds()) => servicesToSpecs({ services, slices, nodeName: 'n1', groupIds });

describe('servicesToSpecs', () => {
  test('one spec per Service port, target ports resolved by the slice port names', () => {
    const { specs, skipped } = map(
      [svc('web', { clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, targetPort: 'web' }, { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 }] })],
      [slice('web-a', 'web', [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'dns', port: 5353, protocol: 'UDP' }], [{ ip: '10.1.0.5', node: 'n1' }, { ip: '10.1.0.4', node: 'n2' }])],
    );
    expect(skipped).toEqual([]);
    expect(specs).toEqual<ServicePortSpec[]>([
      { groupId: SERVICE_GROUP_ID_BASE, service: 'default/web', protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.1.0.4', port: 8080 }, { ip: '10.1.0.5', port: 8080, local: true }] },
      { groupId: SERVICE_GROUP_ID_BASE + 1, service: 'default/web', protocol: 'UDP', clusterIP: '10.96.0.10', port: 53, endpoints: [{ ip: '10.1.0.4', port: 5353 }, { ip: '10.1.0.5', port: 5353, local: true }] },
    ]);
  });

  test('a named target port may resolve to different numbers on different slices', () => {
    const { specs } = map(
      [svc('web', { clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, targetPort: 'web' }] })],
      [slice('web-a', 'web', [{ name: 'http', port: 8080, protocol: 'TCP' }], [{ ip: '10.1.0.4' }]), slice('web-b', 'web', [{ name: 'http', port: 9090, protocol: 'TCP' }], [{ ip: '10.1.0.9' }])],
    );
    expect(specs[0]?.endpoints).toEqual([{ ip: '10.1.0.4', port: 8080 }, { ip: '10.1.0.9', port: 9090 }]);
  });

  test('an unnamed port matches the slice port without a name; protocol must match too', () => {
    const { specs } = map(
      [svc('a', { clusterIP: '10.96.0.11', ports: [{ port: 80 }] })],
      [slice('a-1', 'a', [{ port: 8080, protocol: 'UDP' }, { name: null, port: 8081, protocol: 'TCP' }], [{ ip: '10.1.0.4' }])],
    );
    expect(specs[0]?.endpoints).toEqual([{ ip: '10.1.0.4', port: 8081 }]);
  });

  test('not-ready endpoints are left out while a ready one exists; serving ones are used when none is ready', () => {
    const service = svc('w', { clusterIP: '10.96.0.12', ports: [{ port: 80 }] });
    const ports = [{ port: 80, protocol: 'TCP' }];
    const mixed = map([service], [slice('w-1', 'w', ports, [{ ip: '10.1.0.2', ready: false, serving: true }, { ip: '10.1.0.3' }, { ip: '10.1.0.4', ready: false, serving: false }])]);
    expect(mixed.specs[0]?.endpoints).toEqual([{ ip: '10.1.0.3', port: 80 }]);
    const terminating = map([service], [slice('w-1', 'w', ports, [{ ip: '10.1.0.2', ready: false, serving: true }, { ip: '10.1.0.4', ready: false, serving: false }])]);
    expect(terminating.specs[0]?.endpoints).toEqual([{ ip: '10.1.0.2', port: 80 }]);
    const none = map([service], [slice('w-1', 'w', ports, [{ ip: '10.1.0.4', ready: false, serving: false }])]);
    expect(none.specs[0]?.endpoints).toEqual([]);
  });

  test('endpoints without conditions count as ready (the API leaves nil as unknown = ready)', () => {
    const s = slice('w-1', 'w', [{ port: 80, protocol: 'TCP' }], []);
    s.endpoints = [{ addresses: ['10.1.0.7'] }];
    expect(map([svc('w', { clusterIP: '10.96.0.12', ports: [{ port: 80 }] })], [s]).specs[0]?.endpoints).toEqual([{ ip: '10.1.0.7', port: 80 }]);
  });

  test('a Service without slices still gets its port (with no endpoints, so the pipeline rejects)', () => {
    expect(map([svc('e', { clusterIP: '10.96.0.13', ports: [{ port: 80 }] })], []).specs).toEqual([{ groupId: SERVICE_GROUP_ID_BASE, service: 'default/e', protocol: 'TCP', clusterIP: '10.96.0.13', port: 80, endpoints: [] }]);
  });

  test('headless and ExternalName Services have no specs', () => {
    const { specs, skipped } = map(
      [svc('h', { clusterIP: 'None', ports: [{ port: 80 }] }), svc('x', { type: 'ExternalName', externalName: 'example.com', ports: [{ port: 80 }] }), svc('pending', { ports: [{ port: 80 }] })],
      [slice('h-1', 'h', [{ port: 80, protocol: 'TCP' }], [{ ip: '10.1.0.2' }])],
    );
    expect(specs).toEqual([]);
    expect(skipped).toEqual([]);
  });

  test('NodePort and LoadBalancer Services carry their node ports; ClusterIP ones do not', () => {
    const { specs } = map(
      [
        svc('np', { type: 'NodePort', clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort: 30080 }] }),
        svc('lb', { type: 'LoadBalancer', clusterIP: '10.96.0.21', ports: [{ port: 443, nodePort: 30443 }] }),
        svc('ci', { clusterIP: '10.96.0.22', ports: [{ port: 80, nodePort: 30999 }] }),
      ],
      [],
    );
    expect(specs.map((s) => [s.clusterIP, s.nodePort])).toEqual([
      ['10.96.0.22', undefined],
      ['10.96.0.21', 30443],
      ['10.96.0.20', 30080],
    ]);
  });

  test('ClientIP affinity takes the configured timeout, else 10800 s', () => {
    const { specs } = map(
      [
        svc('a', { clusterIP: '10.96.0.30', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }),
        svc('b', { clusterIP: '10.96.0.31', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } }, ports: [{ port: 80 }] }),
        svc('c', { clusterIP: '10.96.0.32', sessionAffinity: 'None', ports: [{ port: 80 }] }),
      ],
      [],
    );
    expect(specs.map((s) => s.affinityTimeout)).toEqual([DEFAULT_AFFINITY_TIMEOUT, 60, undefined]);
  });

  test('endpoints of slices split across several objects are merged and deduplicated; other services\' slices ignored', () => {
    const ports = [{ port: 80, protocol: 'TCP' }];
    const { specs } = map(
      [svc('w', { clusterIP: '10.96.0.40', ports: [{ port: 80 }] })],
      [
        slice('w-1', 'w', ports, [{ ip: '10.1.0.10' }, { ip: '10.1.0.2' }]),
        slice('w-2', 'w', ports, [{ ip: '10.1.0.3' }, { ip: '10.1.0.2' }]),
        slice('w-1', 'w', ports, [{ ip: '10.9.9.9' }], {}, 'other'),
        slice('v-1', 'v', ports, [{ ip: '10.8.8.8' }]),
        slice('w-6', 'w', ports, [{ ip: '10.7.7.7' }], { addressType: 'IPv6' }),
      ],
    );
    expect(specs[0]?.endpoints.map((e) => e.ip)).toEqual(['10.1.0.2', '10.1.0.3', '10.1.0.10']);
  });

  test('invalid objects are reported and skipped without affecting the others', () => {
    const bad = slice('ok-1', 'ok', [{ port: 80, protocol: 'TCP' }], [{ ip: '10.1.0.2' }, { ip: 'not-an-ip' }]);
    const { specs, skipped } = map(
      [
        svc('v6', { clusterIP: 'fd00::10', ports: [{ port: 80 }] }),
        svc('ports', { clusterIP: '10.96.0.50', ports: [{ name: 'a', port: 0 }, { name: 'b', port: 81, protocol: 'ICMP' }, { name: 'c', port: 82 }] }),
        svc('ok', { clusterIP: '10.96.0.51', ports: [{ port: 80 }] }),
        svc('aff', { clusterIP: '10.96.0.52', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } }, ports: [{ port: 80 }] }),
      ],
      [bad],
    );
    expect(specs.map((s) => `${s.clusterIP}:${s.port}`)).toEqual(['10.96.0.51:80', '10.96.0.50:82']);
    expect(specs[0]?.endpoints).toEqual([{ ip: '10.1.0.2', port: 80 }]);
    expect(skipped.map((s) => [s.object, s.path])).toEqual([
      ['service default/aff', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds'],
      ['endpointslice default/ok-1', 'endpoints[1].addresses[0]'],
      ['service default/ports', 'spec.ports[0].port'],
      ['service default/ports', 'spec.ports[1].protocol'],
      ['service default/v6', 'spec.clusterIP'],
    ]);
  });

  test('group ids are stable across updates, released on delete and reused by later Services', () => {
    const ids = new ServiceGroupIds(100);
    const a = svc('a', { clusterIP: '10.96.0.60', ports: [{ name: 'x', port: 80 }, { name: 'y', port: 81 }] });
    const b = svc('b', { clusterIP: '10.96.0.61', ports: [{ port: 80 }] });
    const first = map([a, b], [], ids).specs.map((s) => s.groupId);
    expect(first).toEqual([100, 101, 102]);
    // Endpoints change, a port is added: existing ids stay.
    const a2 = svc('a', { clusterIP: '10.96.0.60', ports: [{ name: 'x', port: 80 }, { name: 'y', port: 81 }, { name: 'z', port: 82 }] });
    const second = map([a2, b], [slice('a-1', 'a', [{ name: 'x', port: 80, protocol: 'TCP' }], [{ ip: '10.1.0.2' }])], ids).specs;
    expect(second.map((s) => s.groupId)).toEqual([100, 101, 103, 102]);
    // a is deleted while c appears: b keeps its id; c does not take an id freed in the same batch
    // (its group is being deleted in that very sync).
    const c = svc('c', { clusterIP: '10.96.0.62', ports: [{ port: 80 }] });
    const third = map([b, c], [], ids).specs;
    expect(third.map((s) => [s.clusterIP, s.groupId])).toEqual([['10.96.0.61', 102], ['10.96.0.62', 104]]);
    // A later Service reuses the lowest released id.
    const d = svc('d', { clusterIP: '10.96.0.63', ports: [{ port: 80 }] });
    expect(map([b, c, d], [], ids).specs.map((s) => s.groupId)).toEqual([102, 104, 100]);
    expect(new Map(ids.entries())).toEqual(new Map([[servicePortKey('default', 'b', '', 'TCP'), 102], [servicePortKey('default', 'c', '', 'TCP'), 104], [servicePortKey('default', 'd', '', 'TCP'), 100]]));
  });
});

describe('servicesToSpecs: IPv6 and dual-stack Services (issue 36)', () => {
  const ports = [{ name: 'http', port: 8080, protocol: 'TCP' }];
  const dual = svc('web', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00:10:96::a'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack', ports: [{ name: 'http', port: 80 }] });
  const slices = [
    slice('web-4', 'web', ports, [{ ip: '10.1.0.5', node: 'n1' }, { ip: '10.1.1.4', node: 'n2' }]),
    slice('web-6', 'web', ports, [{ ip: 'fd00:10:1:1::4', node: 'n2' }, { ip: 'FD00:10:1::5', node: 'n1' }], { addressType: 'IPv6' }),
  ];
  const map6 = (services: KubeObject[], sl: KubeObject[], groupIds = new ServiceGroupIds()) => servicesToSpecs({ services, slices: sl, nodeName: 'n1', groupIds, ipv6: true });

  test('a dual-stack Service on a dual-stack node: one spec per family, each with its own group and its family\'s slice', () => {
    const ids = new ServiceGroupIds();
    const { specs, skipped } = map6([dual], slices, ids);
    expect(skipped).toEqual([]);
    expect(specs).toEqual<ServicePortSpec[]>([
      { groupId: SERVICE_GROUP_ID_BASE, service: 'default/web', protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.1.0.5', port: 8080, local: true }, { ip: '10.1.1.4', port: 8080 }] },
      // RFC 5952 text, sorted by address.
      { groupId: SERVICE_GROUP_ID_BASE + 1, service: 'default/web', protocol: 'TCP', clusterIP: 'fd00:10:96::a', port: 80, endpoints: [{ ip: 'fd00:10:1::5', port: 8080, local: true }, { ip: 'fd00:10:1:1::4', port: 8080 }] },
    ]);
    expect(new Map(ids.entries())).toEqual(new Map([[servicePortKey('default', 'web', 'http', 'TCP'), SERVICE_GROUP_ID_BASE], [servicePortKey('default', 'web', 'http', 'TCP', 'IPv6'), SERVICE_GROUP_ID_BASE + 1]]));
    expect(servicePortKey('default', 'web', 'http', 'TCP', 'IPv6')).toBe('default/web/http/TCP/IPv6');
  });

  test('the same Service on an IPv4-only node: the IPv4 spec exactly as before, the IPv6 ClusterIP reported and skipped', () => {
    const { specs, skipped } = map([dual], slices);
    expect(specs).toEqual<ServicePortSpec[]>([
      { groupId: SERVICE_GROUP_ID_BASE, service: 'default/web', protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.1.0.5', port: 8080, local: true }, { ip: '10.1.1.4', port: 8080 }] },
    ]);
    expect(skipped).toEqual([{ object: 'service default/web', path: 'spec.clusterIPs[1]', value: 'fd00:10:96::a', reason: 'an IPv6 ClusterIP on a node without IPv6 (podCIDRv6): not proxied here' }]);
  });

  test('an IPv6-only Service (IPv6 primary, internalTrafficPolicy Local): its spec and local group; its node port is reported, not served', () => {
    const six = svc('six', { type: 'NodePort', clusterIP: 'fd00:10:96::b', clusterIPs: ['fd00:10:96::b'], ipFamilies: ['IPv6'], internalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    const { specs, skipped } = map6([six], [slice('six-6', 'six', ports, [{ ip: 'fd00:10:1::7', node: 'n1' }], { addressType: 'IPv6' })]);
    expect(specs).toEqual<ServicePortSpec[]>([{
      groupId: SERVICE_GROUP_ID_BASE, service: 'default/six', protocol: 'TCP', clusterIP: 'fd00:10:96::b', port: 80, internalLocal: true, localGroupId: SERVICE_GROUP_ID_BASE + 1,
      endpoints: [{ ip: 'fd00:10:1::7', port: 8080, local: true }],
    }]);
    expect(skipped).toEqual([{ object: 'service default/six', path: 'spec.ports[0].nodePort', value: 30080, reason: 'not served over IPv6: this node has no IPv6 address (--node-ip <IPv4>,<IPv6>, or an IPv6 InternalIP in the Node\'s status.addresses)' }]);
  });

  test('a dual-stack NodePort Service on a node without an IPv6 address: the node port on the IPv4 spec only, the IPv6 one reported', () => {
    const np = svc('np', { type: 'NodePort', clusterIP: 'fd00:10:96::c', clusterIPs: ['fd00:10:96::c', '10.96.0.12'], ports: [{ name: 'http', port: 80, nodePort: 30081 }] });
    const { specs, skipped } = map6([np], []);
    expect(skipped).toEqual([{ object: 'service default/np', path: 'spec.ports[0].nodePort', value: 30081, reason: 'not served over IPv6: this node has no IPv6 address (--node-ip <IPv4>,<IPv6>, or an IPv6 InternalIP in the Node\'s status.addresses)' }]);
    // IPv6 first: the Service's primary family.
    expect(specs.map((s) => [s.clusterIP, s.nodePort])).toEqual([['fd00:10:96::c', undefined], ['10.96.0.12', 30081]]);
  });

  test('on a node with an IPv6 address (ipv6NodePorts) both specs get the node port, and externalTrafficPolicy Local a local group each', () => {
    const np = svc('np', { type: 'NodePort', externalTrafficPolicy: 'Local', clusterIP: 'fd00:10:96::c', clusterIPs: ['fd00:10:96::c', '10.96.0.12'], ports: [{ name: 'http', port: 80, nodePort: 30081 }] });
    const six = svc('six', { type: 'NodePort', clusterIP: 'fd00:10:96::d', clusterIPs: ['fd00:10:96::d'], ports: [{ name: 'http', port: 80, nodePort: 30082 }] });
    const { specs, skipped } = servicesToSpecs({ services: [np, six], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), ipv6: true, ipv6NodePorts: true });
    expect(skipped).toEqual([]);
    expect(specs.map((s) => [s.clusterIP, s.nodePort, s.externalLocal, s.localGroupId !== undefined])).toEqual([
      ['fd00:10:96::c', 30081, true, true],
      ['10.96.0.12', 30081, true, true],
      ['fd00:10:96::d', 30082, undefined, false],
    ]);
    expect(specs[0]!.localGroupId).not.toBe(specs[1]!.localGroupId);
  });

  test('an IPv4 address in an IPv6 slice is reported with its path and left out; the other endpoints stay', () => {
    const six = svc('six', { clusterIP: 'fd00:10:96::b', clusterIPs: ['fd00:10:96::b'], ports: [{ name: 'http', port: 80 }] });
    const { specs, skipped } = map6([six], [slice('six-6', 'six', ports, [{ ip: '10.1.0.9' }, { ip: 'fd00:10:1::9' }], { addressType: 'IPv6' })]);
    expect(specs[0]?.endpoints).toEqual([{ ip: 'fd00:10:1::9', port: 8080 }]);
    expect(skipped).toEqual([{ object: 'endpointslice default/six-6', path: 'endpoints[0].addresses[0]', value: '10.1.0.9', reason: 'not an IPv6 address' }]);
  });
});

describe('ServiceController', () => {
  const service = svc('w', { clusterIP: '10.96.1.1', ports: [{ port: 80 }] });
  const ports = [{ port: 8080, protocol: 'TCP' }];

  test('a burst of events costs one apply with the latest state', async () => {
    const applied: ServicePortSpec[][] = [];
    const c = new ServiceController({ nodeName: 'n1', sink: { setServices: async (s) => applied.push(s) } });
    c.onServiceEvent({ type: 'ADDED', object: service });
    c.onSliceEvent({ type: 'ADDED', object: slice('w-1', 'w', ports, [{ ip: '10.1.0.2' }]) });
    c.onSliceEvent({ type: 'MODIFIED', object: slice('w-1', 'w', ports, [{ ip: '10.1.0.2' }, { ip: '10.1.0.3', node: 'n1' }]) });
    await c.idle();
    expect(applied).toHaveLength(1);
    expect(applied[0]?.[0]?.endpoints).toEqual([{ ip: '10.1.0.2', port: 8080 }, { ip: '10.1.0.3', port: 8080, local: true }]);
  });

  test('primed state is not applied again when the watches replay it; a delete empties the specs', async () => {
    const applied: ServicePortSpec[][] = [];
    const c = new ServiceController({ nodeName: 'n1', sink: { setServices: async (s) => applied.push(s) } });
    const sl = slice('w-1', 'w', ports, [{ ip: '10.1.0.2' }]);
    const primed = c.prime([service], [sl]);
    expect(primed).toHaveLength(1);
    c.onServiceEvent({ type: 'ADDED', object: service });
    c.onSliceEvent({ type: 'ADDED', object: sl });
    await c.idle();
    expect(applied).toEqual([]);
    c.onServiceEvent({ type: 'DELETED', object: service });
    await c.idle();
    expect(applied).toEqual([[]]);
    expect(c.groups()).toEqual([]);
  });

  test('a failing apply is logged and retried at the next event', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const applied: ServicePortSpec[][] = [];
    const c = new ServiceController({
      nodeName: 'n1',
      sink: { setServices: async (s) => { if (fail) throw new Error('switch gone'); applied.push(s); } },
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (o) => errors.push(o) },
    });
    c.onServiceEvent({ type: 'ADDED', object: service });
    await c.idle();
    expect(errors).toHaveLength(1);
    expect(c.lastError).toBeInstanceOf(Error);
    fail = false;
    c.onSliceEvent({ type: 'ADDED', object: slice('w-1', 'w', ports, [{ ip: '10.1.0.2' }]) });
    await c.idle();
    expect(applied).toHaveLength(1);
    expect(c.lastError).toBeUndefined();
  });
  test('a failed apply is retried after a backoff on its clock with no event to trigger it, and a stopped controller retries nothing', async () => {
    const clock = new ManualClock();
    let failures = 1;
    const applied: ServicePortSpec[][] = [];
    const c = new ServiceController({
      nodeName: 'n1',
      clock,
      sink: { setServices: async (s) => { if (failures-- > 0) throw new Error('switch gone'); applied.push(s); } },
    });
    c.onServiceEvent({ type: 'ADDED', object: service });
    await c.idle();
    expect(c.lastError).toBeInstanceOf(Error);
    await clock.advanceAsync(RECONCILE_RETRY.initialMs);
    await c.idle();
    expect(applied).toHaveLength(1);
    expect(c.lastError).toBeUndefined();
    failures = 1;
    c.onServiceEvent({ type: 'DELETED', object: service });
    await c.idle();
    await c.stop();
    await clock.advanceAsync(60_000);
    expect(applied).toHaveLength(1);
  });
});

describe('agentOptionsFromConfig: AntreaProxy', () => {
  const node = { nodeName: 'n1', podCIDR: '10.0.1.0/24', nodeIP: '192.168.0.2', dataDir: '/var/lib/switchyard' };
  test('on by default, off with the AntreaProxy feature gate off', () => {
    expect(agentOptionsFromConfig(parseAgentConfig({}).config, node).enableProxy).toBe(true);
    expect(agentOptionsFromConfig(parseAgentConfig({ featureGates: { AntreaProxy: false } }).config, node).enableProxy).toBe(false);
  });
  test('off with antreaProxy.enable: false (Antrea >= 2.0), which the config parser knows', () => {
    const parsed = parseAgentConfig({ antreaProxy: { enable: false } });
    expect(parsed.warnings.filter((w) => w.path.includes('enable'))).toEqual([]);
    expect(agentOptionsFromConfig(parsed.config, node).enableProxy).toBe(false);
  });
  test('IPPools (AntreaIPAM) follow the feature gate, off by default', () => {
    expect(agentOptionsFromConfig(parseAgentConfig({}).config, node).enableIPPools).toBe(false);
    expect(agentOptionsFromConfig(parseAgentConfig({ featureGates: { AntreaIPAM: true } }).config, node).enableIPPools).toBe(true);
  });
});

describe('group ids kept across restarts', () => {
  const B = SERVICE_GROUP_ID_BASE;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sy-svc-ids-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ab = [svc('b', { clusterIP: '10.96.2.2', ports: [{ port: 80 }] }), svc('a', { clusterIP: '10.96.2.1', ports: [{ port: 80 }] })];
  const ids = (specs: ServicePortSpec[]) => Object.fromEntries(specs.map((x) => [x.service, x.groupId]));

  test('seed takes a recorded allocation: the ids stay, the next id follows the highest, the gaps are handed out first, bad entries are left out', () => {
    const g = new ServiceGroupIds();
    g.seed({ x: B + 3, y: B, dup: B + 3, low: B - 1, frac: B + 1.5 });
    expect(g.entries()).toEqual([['x', B + 3], ['y', B]]);
    expect([g.idOf('n1'), g.idOf('n2'), g.idOf('n3'), g.idOf('x')]).toEqual([B + 1, B + 2, B + 4, B + 3]);
  });

  test('a restarted controller gives each Service port the id it had, whatever the listing order', async () => {
    const file = join(dir, 'services', 'group-ids.json');
    const first = new ServiceController({ nodeName: 'n1', groupIdsFile: file, sink: { setServices: async () => undefined } });
    // Created b, then a a moment later: b gets the first id (within one burst ids go by name).
    for (const o of ab) {
      first.onServiceEvent({ type: 'ADDED', object: o });
      await first.idle();
    }
    expect(ids(first.specs)).toEqual({ 'default/b': B, 'default/a': B + 1 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ groupIds: { [servicePortKey('default', 'b', '', 'TCP')]: B, [servicePortKey('default', 'a', '', 'TCP')]: B + 1 } });
    // The next run lists them by name (a first): with the record the ids stay; without, they move.
    const listed = [...ab].reverse();
    const again = new ServiceController({ nodeName: 'n1', groupIdsFile: file, sink: { setServices: async () => undefined } });
    expect(ids(again.prime(listed, []))).toEqual({ 'default/b': B, 'default/a': B + 1 });
    const fresh = new ServiceController({ nodeName: 'n1', sink: { setServices: async () => undefined } });
    expect(ids(fresh.prime(listed, []))).toEqual({ 'default/a': B, 'default/b': B + 1 });
    // A deleted Service leaves the record, a new one joins it; a keeps its id throughout.
    again.onServiceEvent({ type: 'DELETED', object: ab[0]! });
    again.onServiceEvent({ type: 'ADDED', object: svc('c', { clusterIP: '10.96.2.3', ports: [{ port: 80 }] }) });
    await again.idle();
    expect(ids(again.specs)['default/a']).toBe(B + 1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ groupIds: Object.fromEntries(again.groups()) });
    expect(Object.keys(Object.fromEntries(again.groups())).sort()).toEqual([servicePortKey('default', 'a', '', 'TCP'), servicePortKey('default', 'c', '', 'TCP')]);
  });

  test('an unreadable record is reported and the ids are numbered afresh', () => {
    const file = join(dir, 'group-ids.json');
    writeFileSync(file, '{"groupIds": [1, 2');
    const warnings: unknown[] = [];
    const c = new ServiceController({ nodeName: 'n1', groupIdsFile: file, sink: { setServices: async () => undefined }, logger: { debug: () => undefined, info: () => undefined, warn: (o) => warnings.push(o), error: () => undefined } });
    expect(ids(c.prime(ab, []))).toEqual({ 'default/a': B, 'default/b': B + 1 });
    expect(warnings).toEqual([expect.objectContaining({ file })]);
  });
});
