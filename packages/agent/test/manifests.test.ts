// build/agent.yaml: the config parses with Antrea's agent keys, the conflist is valid for the
// plugin, and the DaemonSet mounts what the agent and the plugin use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { parseAgentConfig } from '@switchyard/apis';
import { agentOptionsFromConfig, parseNetConf } from '../src/index';

type Obj = { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const docs = YAML.parseAllDocuments(readFileSync(join(__dirname, '../build/agent.yaml'), 'utf8')).map((d) => d.toJSON() as Obj);
const byKind = (kind: string): Obj[] => docs.filter((d) => d.kind === kind);

it('antrea-agent.conf in the ConfigMap parses without warnings and maps to agent options', () => {
  const conf = byKind('ConfigMap')[0]!.data!['antrea-agent.conf']!;
  const { config, warnings } = parseAgentConfig(YAML.parse(conf));
  expect(warnings).toEqual([]);
  const o = agentOptionsFromConfig(config, { nodeName: 'n', podCIDR: '10.0.0.0/24', nodeIP: '1.1.1.1', dataDir: '/var/lib/switchyard' });
  expect(o).toMatchObject({ bridge: 'br-int', cniSocket: '/var/run/antrea/cni.sock', ovsdbRemote: 'unix:/var/run/openvswitch/db.sock' });
});

it('the conflist gives the plugin a valid configuration on the agent socket', () => {
  const list = JSON.parse(byKind('ConfigMap')[0]!.data!['10-switchyard.conflist']!) as { cniVersion: string; name: string; plugins: Record<string, unknown>[] };
  const ours = list.plugins[0]!;
  // A runtime passes each plugin its entry plus the list's name and cniVersion.
  const conf = parseNetConf(JSON.stringify({ ...ours, name: list.name, cniVersion: list.cniVersion }));
  expect(conf.type).toBe('switchyard-cni');
  expect(conf.raw.cniSocket).toBe('/var/run/antrea/cni.sock');
});

it('the DaemonSet runs the agent with the node name and mounts sockets, netns, state and the CNI dirs', () => {
  const ds = byKind('DaemonSet')[0]!;
  const pod = ds.spec.template.spec;
  expect(pod.hostNetwork).toBe(true);
  expect(pod.serviceAccountName).toBe('switchyard-agent');
  const agent = pod.containers.find((c: { name: string }) => c.name === 'switchyard-agent');
  expect(agent.env).toContainEqual({ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
  expect(agent.env).toContainEqual({ name: 'ANTREA_IPSEC_PSK', valueFrom: { secretKeyRef: { name: 'antrea-ipsec', key: 'psk', optional: true } } });
  const mounts = agent.volumeMounts.map((m: { mountPath: string }) => m.mountPath);
  expect(mounts).toEqual(expect.arrayContaining(['/var/run/antrea', '/var/run/openvswitch', '/var/run/netns', '/var/lib/switchyard', '/etc/antrea']));
  const install = pod.initContainers[0];
  expect(install.command.join(' ')).toContain('/host/opt/cni/bin/switchyard-cni');
  const volumes = new Set(pod.volumes.map((v: { name: string }) => v.name));
  for (const c of [...pod.containers, ...pod.initContainers]) for (const m of c.volumeMounts) expect(volumes.has(m.name)).toBe(true);
});
