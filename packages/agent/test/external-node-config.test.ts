import { policyBypassFromConfig } from '../src/options';

describe('policyBypassRules from antrea-agent.conf', () => {
  test('maps each protocol of the guide, ports only where they belong', () => {
    expect(policyBypassFromConfig([
      { direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32', port: 22 },
      { direction: 'egress', protocol: 'udp', cidr: '10.0.0.53/32', port: 53 },
      { direction: 'ingress', protocol: 'icmp', cidr: '10.0.0.0/8' },
      { direction: 'egress', protocol: 'ip', cidr: '192.168.0.0/16' },
    ])).toEqual([
      { direction: 'ingress', protocol: 'TCP', cidr: '1.1.1.1/32', port: 22 },
      { direction: 'egress', protocol: 'UDP', cidr: '10.0.0.53/32', port: 53 },
      { direction: 'ingress', protocol: 'ICMP', cidr: '10.0.0.0/8' },
      { direction: 'egress', protocol: 'IP', cidr: '192.168.0.0/16' },
    ]);
  });

  test('refuses tcp without a port and icmp with one, naming the rule', () => {
    expect(() => policyBypassFromConfig([{ direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32' }])).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: 'externalNode.policyBypassRules[0].port' }));
    expect(() => policyBypassFromConfig([{ direction: 'ingress', protocol: 'ip', cidr: '1.1.1.1/32' }, { direction: 'ingress', protocol: 'icmp', cidr: '1.1.1.1/32', port: 7 }])).toThrow(
      expect.objectContaining({ path: 'externalNode.policyBypassRules[1].port', value: 7 }),
    );
  });
});
