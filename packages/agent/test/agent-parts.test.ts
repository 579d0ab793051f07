/** The node agent's part list: which parts the options turn on, and their start order. */
import type { KubeClient } from '@switchyard/kube';
import { partOrder } from '@switchyard/runtime';
import { agentContext } from '../src/context';
import { computeNodeFlows, dumpFlows, type NodeState } from '@switchyard/openflow-pipeline';
import { AGENT_PARTS, externalNodePipelineFeatures, nodePipelineFeatures, type AgentPartContext } from '../src/features/index';
import { agentHealth } from '../src/health';
import type { AgentOptions } from '../src/options';

const kube: KubeClient = { request: async () => { throw new Error('not called'); }, watch: async () => { throw new Error('not called'); } };
const base: AgentOptions = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ovsdbRemote: 'unix:/x', dataDir: '/tmp/x' };

/** The names of the enabled parts in start order, and what the composition warned about. */
function order(o: Partial<AgentOptions>): { names: string[]; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { debug: () => undefined, info: () => undefined, warn: (_: object, msg?: string) => void warnings.push(msg ?? ''), error: () => undefined };
  const ctx = agentContext({ ...base, ...o, logger });
  try {
    const part: AgentPartContext = { ...ctx, introspect: () => { throw new Error('not read while ordering'); } };
    return { names: partOrder(AGENT_PARTS, part).map((e) => e.name), warnings };
  } finally {
    ctx.net.close();
  }
}

describe('the node agent parts', () => {
  test('without a Kubernetes API: node, pods, policies and api only', () => {
    expect(order({}).names).toEqual(['node', 'pods', 'policies', 'api']);
  });

  test('with a Kubernetes API: routes, pod GC, Services (AntreaProxy on by default), Traceflow (on by default) and AntreaAgentInfo after them', () => {
    expect(order({ kube }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'traceflow', 'agentinfo']);
    expect(order({ kube, enableProxy: false, traceflow: false }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'agentinfo']);
  });

  test('ServiceExternalIP (off by default) starts after the services part, and only with a Kubernetes API', () => {
    expect(order({ kube, serviceExternalIP: true }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'traceflow', 'external-ip', 'agentinfo']);
    expect(order({ serviceExternalIP: true }).names).not.toContain('external-ip');
    // Egress places its IPs through the external IP part, after it; without AntreaProxy it stays off.
    expect(order({ kube, egress: true, enableProxy: true }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'traceflow', 'external-ip', 'egress', 'agentinfo']);
    expect(order({ kube, egress: true, enableProxy: false }).names).not.toContain('egress');
  });

  test('WireGuard starts before the routes part (its routes name the device)', () => {
    const { names } = order({ kube, trafficEncryptionMode: 'wireGuard' });
    expect(names.indexOf('wireguard')).toBeGreaterThan(-1);
    expect(names.indexOf('wireguard')).toBeLessThan(names.indexOf('routes'));
  });

  test('Multi-cluster needs AntreaProxy: without it the part is off and the composition warns once', () => {
    const multicluster = { namespace: 'kube-system', enablePodToPodConnectivity: false };
    const on = order({ kube, multicluster });
    expect(on.names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'multicluster', 'traceflow', 'agentinfo']);
    expect(on.warnings).toEqual([]);
    const off = order({ kube, multicluster, enableProxy: false });
    expect(off.names).not.toContain('multicluster');
    expect(off.warnings).toEqual(['Multicluster needs AntreaProxy: the gateway dataplane stays off']);
    // Without a Kubernetes API there is nothing to warn about: the part is off with the others.
    expect(order({ multicluster }).warnings).toEqual([]);
  });
});

test("the agent's health answer names its parts under controllers", () => {
  expect(agentHealth({ ok: false, parts: [{ name: 'node', ok: true, detail: 'd' }, { name: 'pods', ok: false, detail: 'e' }] })).toEqual({
    ok: false,
    controllers: [{ name: 'node', ok: true, detail: 'd' }, { name: 'pods', ok: false, detail: 'e' }],
  });
});

/** A node state with something for every feature, and the NodeConfig flags the agent's options stand for. */
function sampleState(flags: Partial<NodeState['config']>): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ...flags },
    pods: [{ name: 'a', namespace: 'x', ofport: 5, ips: ['10.10.1.5'], mac: '02:00:00:00:00:05' }],
    remoteNodes: [{ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }],
    services: [{ groupId: 1, protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.10.1.5', port: 8080 }] }],
    policies: [], addressGroups: [], appliedToGroups: [],
  };
}

test.each([
  ['defaults', {}],
  ['no proxy, no packet-in meters, netdev datapath', { enableProxy: false, packetInRate: 0, datapathType: 'netdev' as const }],
  ['WireGuard', { trafficEncryptionMode: 'wireGuard' as const }],
])("the feature folders' pipeline list gives the flows of the pipeline's preset for the same options (%s)", (_name, o) => {
  const ctx = agentContext({ ...base, kube, ...o });
  const flags = {
    enableProxy: ctx.options.enableProxy, enableAntreaPolicy: true, packetInMeters: ctx.options.packetInRate > 0,
    netdevDatapath: ctx.options.datapathType === 'netdev', ...(ctx.wireGuard ? { wireGuard: true } : {}),
  };
  const state = sampleState(flags);
  const fromFolders = dumpFlows(computeNodeFlows(state, { features: nodePipelineFeatures(ctx) }));
  expect(fromFolders).toEqual(dumpFlows(computeNodeFlows(state)));
  expect(fromFolders.some((l) => l.includes('table=ServiceLB') && l.includes('nw_dst=10.96.0.10'))).toBe(ctx.options.enableProxy);
  ctx.net.close();
});

test("an ExternalNode's pipeline list gives the flows of the pipeline's ExternalNode preset", () => {
  const state: NodeState = {
    ...sampleState({ enableAntreaPolicy: true, netdevDatapath: false }),
    pods: [], remoteNodes: [], services: [],
    externalNode: { interfaces: [{ uplinkOfport: 1, pairOfport: 2, ips: ['192.168.77.1'] }] },
  };
  expect(dumpFlows(computeNodeFlows(state, { features: externalNodePipelineFeatures('system') }))).toEqual(dumpFlows(computeNodeFlows(state)));
});
