// The native CNI plugin (native/switchyard-cni.c) against the agent on a real OVS: the same
// contract as the Node.js plugin, checked by running both with the same environment and stdin and
// comparing what they print and their exit codes byte for byte (VERSION, spec errors the agent
// answers, an ADD/CHECK/DEL of a real pod), plus what only the native plugin decides (the socket
// from the configuration, the agent unreachable) and a configuration larger than HTTP/2's first
// flow-control window. Needs root, OVS and a C compiler at build time (scripts/build-native.mjs).
import { existsSync } from 'node:fs';
import { Testbed } from '@switchyard/testbed';
import { NATIVE_PLUGIN, PLUGIN, cni, ensurePluginBuilt, netconf, podArgs, sandbox, startNode, stopNode, type Node } from './helpers';

let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  node = await startNode(tb, '10.91.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

type Env = Parameters<typeof cni>[1];
/** Runs both plugins with the same input; returns [node, native] as code + raw output. */
async function both(command: string, env: Env, stdin: string): Promise<[string, string]> {
  const a = await cni(command, env, stdin, PLUGIN);
  const b = await cni(command, env, stdin, NATIVE_PLUGIN);
  return [`${a.code} ${a.raw}`, `${b.code} ${b.raw}`];
}

describe('switchyard-cni-native', () => {
  it('is built with the package, a static executable', () => {
    expect(existsSync(NATIVE_PLUGIN)).toBe(true);
  });

  it('answers VERSION as the Node.js plugin does, without an agent', async () => {
    const [a, b] = await both('VERSION', {}, '');
    expect(b).toBe(a);
    expect(JSON.parse(b.slice(2))).toMatchObject({ cniVersion: '1.0.0' });
  });

  it('spec errors come from the agent, the same as the Node.js plugin prints them', async () => {
    const sock = node!.socket;
    const cases: [string, Env, string][] = [
      // Not JSON: no cniSocket to read, so the socket of SWITCHYARD_CNI_SOCKET (else the default one) takes it.
      ['ADD', { containerId: 'c1', netns: '/x', ifname: 'eth0', socket: sock }, '{not json'],
      ['ADD', { containerId: 'c1', netns: '/x', ifname: 'eth0' }, JSON.stringify({ cniVersion: '1.0.0', type: 'switchyard-cni', cniSocket: sock })],
      ['ADD', { containerId: 'c1', netns: '/x', ifname: 'eth0' }, netconf(sock, { cniVersion: '9.9.9' })],
      ['ADD', { netns: '/x', ifname: 'eth0' }, netconf(sock)],
      ['CHECK', { containerId: 'c1', netns: '/x', ifname: 'eth0' }, netconf(sock, { cniVersion: '0.3.1' })],
      ['BOGUS', { containerId: 'c1', netns: '/x', ifname: 'eth0' }, netconf(sock)],
      ['DEL', { containerId: 'never-added', ifname: 'eth0', args: podArgs('default', 'ghost') }, netconf(sock)],
    ];
    for (const [command, env, stdin] of cases) {
      const [a, b] = await both(command, env, stdin);
      expect({ command, stdin, out: b }).toEqual({ command, stdin, out: a });
    }
  });

  it('ADD, CHECK and DEL of a real pod: the same result shape as the Node.js plugin, and the pod is attached', async () => {
    const sb = await sandbox(tb, 'native-a');
    const env = { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', sb.name) };
    const add = await cni('ADD', env, netconf(node!.socket), NATIVE_PLUGIN);
    expect(add.code).toBe(0);
    const ip = (add.out.ips as { address: string }[])[0]!.address;
    expect(ip).toMatch(/^10\.91\.0\.\d+\/24$/);
    // The Node.js plugin's ADD of another pod: the same keys, the same cniVersion.
    const sb2 = await sandbox(tb, 'native-b');
    const add2 = await cni('ADD', { ...env, containerId: sb2.containerId, netns: sb2.netns.path, args: podArgs('default', sb2.name) }, netconf(node!.socket), PLUGIN);
    expect(Object.keys(add.out).sort()).toEqual(Object.keys(add2.out).sort());
    expect(node!.agent.part('node').interfaces.list().map((i) => i.podName).sort()).toEqual(['native-a', 'native-b']);
    // CHECK with the ADD's result as prevResult passes; DEL detaches.
    expect((await cni('CHECK', env, netconf(node!.socket, { prevResult: add.out }), NATIVE_PLUGIN)).code).toBe(0);
    expect((await cni('DEL', env, netconf(node!.socket, { prevResult: add.out }), NATIVE_PLUGIN)).code).toBe(0);
    expect((await cni('DEL', { ...env, containerId: sb2.containerId, netns: sb2.netns.path, args: podArgs('default', sb2.name) }, netconf(node!.socket), PLUGIN)).code).toBe(0);
    expect(node!.agent.part('node').interfaces.list()).toEqual([]);
  });

  it('a configuration over 64 KiB crosses HTTP/2 flow control and gets the same answer', async () => {
    const big = netconf(node!.socket, { padding: 'x'.repeat(200_000) });
    const [a, b] = await both('ADD', { containerId: 'big', netns: '/nonexistent', ifname: 'eth0', args: podArgs('default', 'big') }, big);
    expect(b).toBe(a);
    expect(b.startsWith('1 ')).toBe(true); // the netns does not exist: a spec error, from the agent
  });

  it('the socket comes from the configuration, else ipam.cniSocket; unreachable means code 11 with the configuration\'s version', async () => {
    const env = { containerId: 'c9', netns: '/x', ifname: 'eth0' };
    const gone = await cni('ADD', env, netconf('/tmp/no-such-switchyard.sock', { cniVersion: '0.4.0' }), NATIVE_PLUGIN);
    expect(gone.code).toBe(1);
    expect(gone.out).toEqual({ cniVersion: '0.4.0', code: 11, msg: 'switchyard agent unavailable', details: 'cannot reach /tmp/no-such-switchyard.sock: No such file or directory' });
    // As another plugin's IPAM: the socket from the ipam section reaches the agent, which answers (here a spec error).
    const ipam = JSON.stringify({ cniVersion: '1.0.0', name: 'sec', type: 'macvlan', ipam: { type: 'switchyard-cni', cniSocket: node!.socket } });
    const viaIpam = await cni('ADD', env, ipam, NATIVE_PLUGIN);
    expect(viaIpam.out.code).not.toBe(11);
    expect(await cni('ADD', env, ipam, PLUGIN)).toEqual(viaIpam);
  });
});
