import { parseControllerConfig } from '@switchyard/apis';
import { parsePromText } from '@switchyard/testbed';
import { MetricsRegistry } from '../src/metrics';
import { optionsFromConfig } from '../src/options';
import { nodeOf } from '@switchyard/kube';

describe('optionsFromConfig', () => {
  test('maps antrea-controller.conf keys; flags win; node IPAM only when enabled', () => {
    const { config } = parseControllerConfig({ apiPort: 10350, featureGates: { ExternalNode: true }, clientConnection: { kubeconfig: '/etc/k.conf' }, nodeIPAM: { enableNodeIPAM: true, clusterCIDRs: ['10.0.0.0/16'], nodeCIDRMaskSizeIPv4: 26 } });
    expect(optionsFromConfig(config)).toEqual({ kubeconfig: '/etc/k.conf', port: 10350, externalNode: true, egress: true, nodeIPAM: { clusterCIDRs: ['10.0.0.0/16'], nodeMaskSizeIPv4: 26, nodeMaskSizeIPv6: 64 } });
    expect(optionsFromConfig(config, { port: 1, kubeconfig: '/x' })).toMatchObject({ port: 1, kubeconfig: '/x' });
    const defaults = optionsFromConfig(parseControllerConfig({}).config);
    expect(defaults.port).toBe(10349);
    expect(defaults.nodeIPAM).toBeUndefined();
    expect(defaults.ipPools).toBeUndefined();
  });

  test('the AntreaIPAM feature gate switches the IPPool controller on', () => {
    expect(optionsFromConfig(parseControllerConfig({ featureGates: { AntreaIPAM: true } }).config).ipPools).toBe(true);
  });

  test('the ServiceExternalIP feature gate switches the external IP allocator on (off by default, as the agents\' gate)', () => {
    expect(optionsFromConfig(parseControllerConfig({ featureGates: { ServiceExternalIP: true } }).config).serviceExternalIP).toBe(true);
    expect(optionsFromConfig(parseControllerConfig({}).config).serviceExternalIP).toBeUndefined();
  });

  test('the IPsecCertAuth feature gate runs the IPsec CSR signer with ipsecCSRSigner', () => {
    expect(optionsFromConfig(parseControllerConfig({ featureGates: { IPsecCertAuth: true }, ipsecCSRSigner: { autoApprove: false } }).config).ipsecCSRSigner).toEqual({ autoApprove: false, selfSignedCA: true });
    expect(optionsFromConfig(parseControllerConfig({ ipsecCSRSigner: { autoApprove: false } }).config).ipsecCSRSigner).toBeUndefined();
  });

  test('stretched NetworkPolicy needs the Multicluster gate and multicluster.enableStretchedNetworkPolicy', () => {
    const opts = (raw: Record<string, unknown>) => optionsFromConfig(parseControllerConfig(raw).config).stretchedNetworkPolicy;
    expect(opts({ featureGates: { Multicluster: true }, multicluster: { enableStretchedNetworkPolicy: true } })).toBe(true);
    expect(opts({ featureGates: { Multicluster: true } })).toBeUndefined();
    expect(opts({ multicluster: { enableStretchedNetworkPolicy: true } })).toBeUndefined();
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
  test('renders Prometheus text with labels escaped', async () => {
    const m = new MetricsRegistry();
    let events = 3;
    m.register('a_total', 'counter', 'A things', () => events);
    m.register('b', 'gauge', 'B', () => [{ labels: { r: 'x"y' }, value: 1.5 }], ['r']);
    const text = await m.render();
    expect(text).toContain('# HELP a_total A things\n# TYPE a_total counter\na_total 3\n');
    expect(text).toContain('# HELP b B\n# TYPE b gauge\nb{r="x\\"y"} 1.5\n');
    expect([...parsePromText(text).values()]).toEqual([
      { name: 'a_total', type: 'counter', help: 'A things', samples: [{ name: 'a_total', labels: {}, value: 3 }] },
      { name: 'b', type: 'gauge', help: 'B', samples: [{ name: 'b', labels: { r: 'x"y' }, value: 1.5 }] },
    ]);
    events = 5;
    expect(await m.render()).toContain('\na_total 5\n');
  });

  test('two registries keep their families apart, and a bad label is a typed error', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.register('x_total', 'counter', 'X', () => 1n);
    b.register('x_total', 'counter', 'X', () => 2);
    expect(await a.render()).toContain('\nx_total 1\n');
    expect(await b.render()).toContain('\nx_total 2\n');
    expect(() => a.register('bad name', 'gauge', 'B', () => 1)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', value: 'bad name' }));
  });
});
