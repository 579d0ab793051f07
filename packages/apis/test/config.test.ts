import { parse } from 'yaml';
import { ConfigError, parseAgentConfig, parseControllerConfig, parseMultiClusterConfig } from '../src/index';
import { seedDocs } from './support/seeds';

/** Every embedded config file of the seed ConfigMaps, by data key. */
function seedConfigFiles(): { source: string; key: string; value: unknown }[] {
  const out: { source: string; key: string; value: unknown }[] = [];
  for (const d of seedDocs()) {
    if (d.value['kind'] !== 'ConfigMap') continue;
    for (const [key, text] of Object.entries((d.value['data'] as Record<string, string> | undefined) ?? {})) {
      out.push({ source: d.file, key, value: parse(text) });
    }
  }
  return out;
}
const parserFor = (key: string) =>
  key === 'antrea-agent.conf' ? parseAgentConfig : key === 'antrea-controller.conf' ? parseControllerConfig : parseMultiClusterConfig;

describe('config parsing', () => {
  const files = seedConfigFiles();

  test('the seeds carry agent, controller and multi-cluster config files', () => {
    expect(new Set(files.map((f) => f.key))).toEqual(new Set(['antrea-agent.conf', 'antrea-controller.conf', 'controller_manager_config.yaml']));
  });

  test.each(files.map((f) => [`${f.source} ${f.key}`, f] as const))('%s parses unchanged with no warnings', (_l, f) => {
    const { warnings } = parserFor(f.key)(f.value);
    expect(warnings).toEqual([]);
  });

  test('the multicluster WireGuard seed sets the encryption mode and port, defaults the rest', () => {
    const f = files.find((x) => x.source.includes('wireguard'));
    const { config } = parseAgentConfig(f?.value);
    expect(config.featureGates['Multicluster']).toBe(true);
    expect(config.featureGates['AntreaProxy']).toBe(true);
    expect(config.multicluster).toEqual({
      enableGateway: true,
      namespace: '',
      enableStretchedNetworkPolicy: false,
      enablePodToPodConnectivity: false,
      trafficEncryptionMode: 'wireGuard',
      wireGuard: { port: 51821 },
    });
    expect(config.ovsBridge).toBe('br-int');
    expect(config.hostGateway).toBe('antrea-gw0');
    expect(config.trafficEncapMode).toBe('encap');
    expect(config.tunnelType).toBe('geneve');
  });

  test('the stretched NetworkPolicy seed enables it in controller and agent', () => {
    const f = files.filter((x) => x.source.includes('stretched'));
    const controller = parseControllerConfig(f.find((x) => x.key === 'antrea-controller.conf')?.value).config;
    const agent = parseAgentConfig(f.find((x) => x.key === 'antrea-agent.conf')?.value).config;
    expect(controller.multicluster.enableStretchedNetworkPolicy).toBe(true);
    expect(agent.multicluster.enableStretchedNetworkPolicy).toBe(true);
    expect(controller.nodeIPAM.nodeCIDRMaskSizeIPv4).toBe(24);
  });

  test('the ExternalNode guide fragment (top-level externalNodeNamespace and policyBypassRules) lands under externalNode', () => {
    const d = seedDocs().find((x) => x.file === 'external-node-05-agent-conf-fragment.yaml');
    const { config, warnings } = parseAgentConfig(d?.value);
    expect(warnings).toEqual([]);
    expect(config.externalNode).toEqual({
      externalNodeNamespace: 'vm-ns',
      policyBypassRules: [{ direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32', port: 22 }],
    });
  });

  test('the Multi-cluster controller config seeds parse with their podCIDRs and defaults', () => {
    const f = files.find((x) => x.key === 'controller_manager_config.yaml');
    const { config } = parseMultiClusterConfig(f?.value);
    expect(config.podCIDRs).toEqual(['10.10.1.1/16']);
    expect(config.endpointIPType).toBe('ClusterIP');
    const frag = seedDocs().find((x) => x.file === 'multicluster-13-mc-controller-conf-fragment.yaml');
    expect(parseMultiClusterConfig(frag?.value)).toMatchObject({ warnings: [], config: { enableStretchedNetworkPolicy: true } });
  });

  test('unknown keys are reported with their key path, not dropped silently', () => {
    const { warnings } = parseAgentConfig({
      ovsBrige: 'br-x',
      multicluster: { enableGateway: true, wireGuard: { prot: 1 } },
      featureGates: { Multicluster: true, NoSuchGate: true },
    });
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_FEATURE_GATE', path: 'featureGates.NoSuchGate' }),
      expect.objectContaining({ code: 'UNKNOWN_KEY', path: 'multicluster.wireGuard.prot' }),
      expect.objectContaining({ code: 'UNKNOWN_KEY', path: 'ovsBrige' }),
    ]);
  });

  test('an empty file yields the full default configuration', () => {
    const { config, warnings } = parseAgentConfig(null);
    expect(warnings).toEqual([]);
    expect(config.featureGates['ExternalNode']).toBe(false);
    expect(config.externalNode.externalNodeNamespace).toBe('default');
    expect(config.wireGuard.port).toBe(51820);
    expect(config.nodeType).toBe('k8sNode');
  });

  test('a wrong type or an out-of-enum value is a ConfigError with the key path', () => {
    expect(() => parseAgentConfig({ multicluster: { wireGuard: { port: 'x' } } })).toThrow(
      expect.objectContaining({ code: 'INVALID_TYPE', path: 'multicluster.wireGuard.port', value: 'x' }),
    );
    expect(() => parseAgentConfig({ trafficEncapMode: 'tunnel' })).toThrow(ConfigError);
    expect(() => parseAgentConfig({ trafficEncapMode: 'tunnel' })).toThrow(expect.objectContaining({ code: 'INVALID_VALUE', path: 'trafficEncapMode' }));
    expect(() => parseAgentConfig({ policyBypassRules: [{ direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32' }] })).toThrow(
      expect.objectContaining({ path: 'externalNode.policyBypassRules[0].port' }),
    );
    expect(() => parseAgentConfig(['not', 'a', 'map'])).toThrow(expect.objectContaining({ code: 'NOT_AN_OBJECT' }));
  });
});
