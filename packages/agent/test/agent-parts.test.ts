/** The node agent's part list: which parts the options turn on, and their start order. */
import type { KubeClient } from '@switchyard/kube';
import { partOrder } from '@switchyard/runtime';
import { agentContext } from '../src/context';
import { EXTERNAL_NODE_FEATURES, POD_NODE_FEATURES } from '@switchyard/openflow-pipeline';
import { AGENT_PARTS, EXTERNAL_NODE_PIPELINE_FEATURES, NODE_PIPELINE_FEATURES, type AgentPartContext } from '../src/features/index';
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

  test('with a Kubernetes API: routes, pod GC, Services (AntreaProxy on by default) and AntreaAgentInfo after them', () => {
    expect(order({ kube }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'agentinfo']);
    expect(order({ kube, enableProxy: false }).names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'agentinfo']);
  });

  test('WireGuard starts before the routes part (its routes name the device)', () => {
    const { names } = order({ kube, trafficEncryptionMode: 'wireGuard' });
    expect(names.indexOf('wireguard')).toBeGreaterThan(-1);
    expect(names.indexOf('wireguard')).toBeLessThan(names.indexOf('routes'));
  });

  test('Multi-cluster needs AntreaProxy: without it the part is off and the composition warns once', () => {
    const multicluster = { namespace: 'kube-system', enablePodToPodConnectivity: false };
    const on = order({ kube, multicluster });
    expect(on.names).toEqual(['node', 'pods', 'policies', 'api', 'routes', 'pod-gc', 'services', 'multicluster', 'agentinfo']);
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

test("the feature folders' pipeline features are the pipeline's feature lists, in the same order", () => {
  expect(NODE_PIPELINE_FEATURES).toEqual(POD_NODE_FEATURES);
  expect(EXTERNAL_NODE_PIPELINE_FEATURES).toEqual(EXTERNAL_NODE_FEATURES);
});
