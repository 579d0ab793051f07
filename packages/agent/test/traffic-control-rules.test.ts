/** TrafficControl's pure translation: which pods a TrafficControl selects here, and the rules the pipeline gets. */
import type { TrafficControl } from '@switchyard/apis/types';
import type { NodeState } from '@switchyard/openflow-pipeline';
import { checkFeatureContract } from '@switchyard/openflow-pipeline/testing';
import { agentContext } from '../src/context';
import { nodePipelineFeatures } from '../src/features/pipeline';
import { appliesTo, trafficControlRules, unsupported, type LocalPodFacts } from '../src/features/traffic-control/rules';

const tc = (name: string, spec: Partial<TrafficControl['spec']>): TrafficControl => ({
  metadata: { name },
  spec: { appliedTo: {}, direction: 'Both', action: 'Mirror', targetPort: { ovsInternal: { name: 'tap0' } }, ...spec },
});
const pods: LocalPodFacts[] = [
  { namespace: 'prod', name: 'web-1', labels: { app: 'web' }, ofport: 7 },
  { namespace: 'dev', name: 'web-2', labels: { app: 'web' }, ofport: 5 },
  { namespace: 'prod', name: 'db', labels: { app: 'db' }, ofport: 9 },
  { namespace: 'prod', name: 'web-3', labels: { app: 'web' } }, // not attached yet
];
const nsLabels = new Map([['prod', { env: 'prod' }], ['dev', { env: 'dev' }]]);
const ports = new Map([['ovsInternal/tap0', 20], ['ovsInternal/tap1', 21], ['device/eno2', 22]]);
const ofportOf = (p: { kind: string; name: string }) => ports.get(`${p.kind}/${p.name}`);

describe('appliesTo', () => {
  const sel = (t: TrafficControl) => pods.filter((p) => appliesTo(t, p, nsLabels)).map((p) => p.name);
  test('a pod selector selects in every Namespace', () => {
    expect(sel(tc('a', { appliedTo: { podSelector: { matchLabels: { app: 'web' } } } }))).toEqual(['web-1', 'web-2', 'web-3']);
  });
  test('a Namespace selector selects every pod of those Namespaces', () => {
    expect(sel(tc('a', { appliedTo: { namespaceSelector: { matchLabels: { env: 'prod' } } } }))).toEqual(['web-1', 'db', 'web-3']);
  });
  test('both select the pods of the selected Namespaces that match', () => {
    expect(sel(tc('a', { appliedTo: { podSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { env: 'prod' } } } }))).toEqual(['web-1', 'web-3']);
  });
  test('an empty appliedTo selects nothing; an empty selector selects everything', () => {
    expect(sel(tc('a', { appliedTo: {} }))).toEqual([]);
    expect(sel(tc('a', { appliedTo: { podSelector: {} } }))).toHaveLength(4);
  });
});

describe('trafficControlRules', () => {
  test('gives each supported TrafficControl, by name, the ports of the attached pods it selects', () => {
    const rules = trafficControlRules([
      tc('z-all-prod', { appliedTo: { namespaceSelector: { matchLabels: { env: 'prod' } } }, targetPort: { device: { name: 'eno2' } }, direction: 'Egress' }),
      tc('a-web', { appliedTo: { podSelector: { matchLabels: { app: 'web' } } }, action: 'Redirect', returnPort: { ovsInternal: { name: 'tap1' } } }),
    ], pods, nsLabels, ofportOf);
    expect(rules).toEqual([
      { name: 'a-web', action: 'Redirect', direction: 'Both', podOfports: [5, 7], targetOfport: 20, returnOfport: 21 },
      { name: 'z-all-prod', action: 'Mirror', direction: 'Egress', podOfports: [7, 9], targetOfport: 22 },
    ]);
  });

  test('keeps a TrafficControl that selects no pod here (its target port stays), and leaves out one whose port is not realized yet', () => {
    const rules = trafficControlRules([tc('none', { appliedTo: { podSelector: { matchLabels: { app: 'cache' } } } }), tc('later', { targetPort: { ovsInternal: { name: 'tap9' } } })], pods, nsLabels, ofportOf);
    expect(rules).toEqual([{ name: 'none', action: 'Mirror', direction: 'Both', podOfports: [], targetOfport: 20 }]);
  });

  test('refuses tunnel targets and a Redirect without a return port, saying which field', () => {
    expect(unsupported(tc('g', { targetPort: { geneve: { remoteIP: '10.0.10.2' } } }))).toMatch(/^targetPort: /);
    expect(unsupported(tc('r', { action: 'Redirect' }))).toMatch(/^returnPort: /);
    expect(unsupported(tc('m', {}))).toBeUndefined();
    expect(trafficControlRules([tc('g', { targetPort: { geneve: { remoteIP: '10.0.10.2' } }, appliedTo: { podSelector: {} } })], pods, nsLabels, ofportOf)).toEqual([]);
  });
});

describe('the folder\'s pipeline feature', () => {
  test('keeps the pipeline feature contract in the agent\'s own feature list, over states the translation produces', () => {
    const ctx = agentContext({ nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', ovsdbRemote: 'unix:/x', dataDir: '/tmp/x', kube: { request: async () => ({}), watch: async () => ({}) } as never, trafficControl: true });
    try {
      const features = nodePipelineFeatures(ctx);
      const feature = features.find((f) => f.name === 'trafficControl')!;
      const base: NodeState = {
        config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1' },
        pods: pods.filter((p) => p.ofport !== undefined).map((p, i) => ({ name: p.name, namespace: p.namespace, ofport: p.ofport!, ips: [`10.10.1.${10 + i}`], mac: `02:00:00:00:01:0${i}` })),
        remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [],
      };
      const web = tc('web', { appliedTo: { podSelector: { matchLabels: { app: 'web' } } } });
      const states = [[], [web], [web, tc('prod', { appliedTo: { namespaceSelector: { matchLabels: { env: 'prod' } } }, action: 'Redirect', returnPort: { ovsInternal: { name: 'tap1' } } })], []]
        .map((tcs) => ({ ...base, extensions: { trafficControl: trafficControlRules(tcs, pods, nsLabels, ofportOf) } }));
      expect(checkFeatureContract({ feature, features, states }).states).toBe(4);
    } finally {
      ctx.net.close();
    }
  });
});
