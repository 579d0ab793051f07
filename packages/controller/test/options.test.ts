import { parseControllerConfig } from '@switchyard/apis';
import { MetricsRegistry } from '../src/metrics';
import { optionsFromConfig } from '../src/options';
import { nodeOf } from '@switchyard/kube';

describe('optionsFromConfig', () => {
  test('maps antrea-controller.conf keys; flags win; node IPAM only when enabled', () => {
    const { config } = parseControllerConfig({ apiPort: 10350, featureGates: { ExternalNode: true }, clientConnection: { kubeconfig: '/etc/k.conf' }, nodeIPAM: { enableNodeIPAM: true, clusterCIDRs: ['10.0.0.0/16'], nodeCIDRMaskSizeIPv4: 26 } });
    expect(optionsFromConfig(config)).toEqual({ kubeconfig: '/etc/k.conf', port: 10350, externalNode: true, nodeIPAM: { clusterCIDRs: ['10.0.0.0/16'], nodeMaskSizeIPv4: 26, nodeMaskSizeIPv6: 64 } });
    expect(optionsFromConfig(config, { port: 1, kubeconfig: '/x' })).toMatchObject({ port: 1, kubeconfig: '/x' });
    const defaults = optionsFromConfig(parseControllerConfig({}).config);
    expect(defaults.port).toBe(10349);
    expect(defaults.nodeIPAM).toBeUndefined();
    expect(defaults.ipPools).toBeUndefined();
  });

  test('the AntreaIPAM feature gate switches the IPPool controller on', () => {
    expect(optionsFromConfig(parseControllerConfig({ featureGates: { AntreaIPAM: true } }).config).ipPools).toBe(true);
  });
});

describe('nodeOf', () => {
  test('reads the node-name claim of a pod-bound token, or a system:node: user name', () => {
    expect(nodeOf({ username: 'system:serviceaccount:kube-system:switchyard-agent', groups: [], extra: { 'authentication.kubernetes.io/node-name': ['n1'] } })).toBe('n1');
    expect(nodeOf({ username: 'system:node:n2', groups: ['system:nodes'] })).toBe('n2');
    expect(nodeOf({ username: 'admin', groups: ['system:masters'] })).toBeUndefined();
  });
});

describe('MetricsRegistry', () => {
  test('renders Prometheus text with labels escaped', () => {
    const m = new MetricsRegistry();
    m.register('a_total', 'counter', 'A things', () => 3);
    m.register('b', 'gauge', 'B', () => [{ labels: { r: 'x"y' }, value: 1.5 }]);
    expect(m.render()).toBe('# HELP a_total A things\n# TYPE a_total counter\na_total 3\n# HELP b B\n# TYPE b gauge\nb{r="x\\"y"} 1.5\n');
  });
});
