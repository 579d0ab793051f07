// build/externalnode/install-vm.sh rendered into a temporary root: the systemd unit and the agent
// configuration it writes, read back the way systemd and the agent read them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseAgentConfig } from '@switchyard/apis';

const SCRIPT = join(__dirname, '..', 'build', 'externalnode', 'install-vm.sh');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-install-vm-'));
  writeFileSync(join(dir, 'switchyard-agent'), '#!/bin/sh\n');
  writeFileSync(join(dir, 'agent.kubeconfig'), 'apiVersion: v1\nkind: Config\n');
  writeFileSync(join(dir, 'token'), 'secret\n');
  // Antrea's sample shape: an empty kubeconfig and the namespace commented out.
  writeFileSync(join(dir, 'antrea-agent.conf'), 'featureGates:\n  ExternalNode: true\nclientConnection:\n  kubeconfig: ""\n#externalNodeNamespace: default\npolicyBypassRules:\n  - direction: ingress\n    protocol: tcp\n    cidr: 1.1.1.1/32\n    port: 22\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const install = (...extra: string[]) =>
  spawnSync('bash', [SCRIPT, '--root', join(dir, 'root'), '--ns', 'vm-ns', '--bin', join(dir, 'switchyard-agent'), '--config', join(dir, 'antrea-agent.conf'), '--kubeconfig', join(dir, 'agent.kubeconfig'), ...extra], { encoding: 'utf8' });

describe('install-vm.sh', () => {
  test('renders the systemd unit with NODE_NAME and the controller flags', () => {
    const r = install('--nodename', 'vm1', '--controller-url', 'https://10.0.0.1:443', '--token-file', join(dir, 'token'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'root/etc/systemd/system/switchyard-agent.service'), 'utf8')).toBe(
      [
        '[Unit]',
        'Description=switchyard-agent (ExternalNode): Antrea NetworkPolicy on this host through Open vSwitch',
        'After=network-online.target openvswitch-switch.service',
        'Wants=network-online.target',
        '',
        '[Service]',
        'Environment=NODE_NAME=vm1',
        'ExecStart=/usr/sbin/switchyard-agent --config=/etc/switchyard/antrea-agent.conf --data-dir=/var/lib/switchyard --controller-url=https://10.0.0.1:443 --token-file=/etc/switchyard/controller-token',
        'Restart=on-failure',
        'RestartSec=5',
        '',
        '[Install]',
        'WantedBy=multi-user.target',
        '',
      ].join('\n'),
    );
    // Credentials are root-only; the binary is executable.
    expect(statSync(join(dir, 'root/etc/switchyard/antrea-agent.kubeconfig')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'root/etc/switchyard/controller-token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'root/usr/sbin/switchyard-agent')).mode & 0o111).not.toBe(0);
  });

  test('renders a configuration the agent reads as an ExternalNode agent of the namespace', () => {
    expect(install().status).toBe(0);
    const { config, warnings } = parseAgentConfig(parseYaml(readFileSync(join(dir, 'root/etc/switchyard/antrea-agent.conf'), 'utf8')));
    expect(warnings).toEqual([]);
    expect(config.nodeType).toBe('externalNode');
    expect(config.externalNode).toEqual({ externalNodeNamespace: 'vm-ns', policyBypassRules: [{ direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32', port: 22 }] });
    expect(config.clientConnection.kubeconfig).toBe('/etc/switchyard/antrea-agent.kubeconfig');
    expect(config.featureGates.ExternalNode).toBe(true);
    // Without --nodename the agent falls back to NODE_NAME from elsewhere, then the hostname.
    expect(readFileSync(join(dir, 'root/etc/systemd/system/switchyard-agent.service'), 'utf8')).not.toContain('NODE_NAME');
  });

  test('installing twice gives the same files', () => {
    expect(install('--nodename', 'vm1').status).toBe(0);
    const first = execFileSync('sh', ['-c', `cd ${join(dir, 'root')} && find . -type f -exec md5sum {} + | sort`], { encoding: 'utf8' });
    expect(install('--nodename', 'vm1').status).toBe(0);
    expect(execFileSync('sh', ['-c', `cd ${join(dir, 'root')} && find . -type f -exec md5sum {} + | sort`], { encoding: 'utf8' })).toBe(first);
  });

  test('refuses missing or malformed flags, naming them, and writes nothing', () => {
    const noNs = spawnSync('bash', [SCRIPT, '--root', join(dir, 'root'), '--bin', join(dir, 'switchyard-agent'), '--config', join(dir, 'antrea-agent.conf'), '--kubeconfig', join(dir, 'agent.kubeconfig')], { encoding: 'utf8' });
    expect(noNs.status).toBe(2);
    expect(noNs.stderr).toContain('--ns');
    const badName = install('--nodename', 'VM_1');
    expect(badName.status).toBe(2);
    expect(badName.stderr).toContain("--nodename 'VM_1'");
    expect(() => statSync(join(dir, 'root'))).toThrow();
  });
});
