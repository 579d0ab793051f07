// CNI ADD / CHECK / DEL through the real switchyard-cni binary, as a container runtime execs it,
// against the agent on a real OVS (userspace datapath) with pods in real network namespaces.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { parseDumpFlows } from '@switchyard/openflow/codec';
import { PLUGIN, addPod, cni, ensurePluginBuilt, netconf, podArgs, sandbox, startNode, stopNode, type Node, type Sandbox } from './helpers';

let tb: Testbed;
let node: Node | undefined;
const CIDR = '10.90.0.0/24';

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  node = await startNode(tb, CIDR);
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const ipamDir = (): string => join(node!.dir, 'networks', 'switchyard');
const allocated = (): string[] => readdirSync(ipamDir()).filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f));
const nodeLinks = async (): Promise<string[]> =>
  (JSON.parse((await run(['ip', '-j', 'link', 'show'], { netns: node!.ovs.netns.name })).stdout) as { ifname: string }[]).map((l) => l.ifname);
const dumpFlows = async (): Promise<string> => node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int'));
const portIds = async (name: string): Promise<string> => (await node!.ovs.vsctl('get', 'port', name, 'external_ids')).trim();

/** Starts a TCP server answering `pong` on port 7000 in a netns (the testbed kills it at cleanup). */
function serveTcp(netns: string, listen = 'TCP-LISTEN:7000,reuseaddr,fork'): void {
  tb.spawn(['socat', listen, 'SYSTEM:echo pong'], netns);
}
/** Whether `from` reaches `ip`'s pong server over TCP (the 3-way handshake crosses conntrack). */
async function reaches(from: Sandbox, ip: string): Promise<void> {
  await exchange(from, ['socat', '-T3', '-', `TCP:${ip}:7000`], 'pong');
}

/** Runs a one-shot socat client in a pod until the server answers. */
async function exchange(from: Sandbox, argv: string[], expected: string): Promise<string> {
  let last = '';
  await waitFor(
    `${expected} from ${argv.join(' ')}`,
    async () => {
      const r = await from.netns.exec(argv, { allowFailure: true, input: 'ping\n', timeoutMs: 5000 });
      last = r.stdout.trim();
      return last === expected;
    },
    { timeoutMs: 15_000, intervalMs: 200 },
  );
  return last;
}

describe('switchyard-cni against the agent', () => {
  const pods: { sb: Sandbox; ip: string; result: Record<string, unknown> }[] = [];

  it('the plugin is one executable file importing only node builtins', () => {
    const text = readFileSync(PLUGIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node')).toBe(true);
    expect(statSync(PLUGIN).mode & 0o111).not.toBe(0);
    const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const i of imports) expect(builtinModules).toContain(i);
    expect(text).not.toMatch(/require\(/);
  });

  it('answers VERSION with the supported versions', async () => {
    const r = await cni('VERSION', {}, '{"cniVersion":"1.0.0"}');
    expect(r.code).toBe(0);
    expect(r.out).toEqual({ cniVersion: '1.0.0', supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0'] });
  });

  it('ADDs three pods: addresses from the node CIDR, veth in the pod netns, OVS port with external_ids', async () => {
    for (const name of ['web-a', 'web-b', 'db-c']) {
      const sb = await sandbox(tb, name);
      const { ip, result } = await addPod(node!, sb);
      pods.push({ sb, ip, result });
    }
    expect(pods.map((p) => p.ip)).toEqual(['10.90.0.2', '10.90.0.3', '10.90.0.4']);
    for (const p of pods) {
      const ifs = p.result.interfaces as { name: string; mac?: string; sandbox?: string }[];
      expect(p.result.cniVersion).toBe('1.0.0');
      expect(p.result.ips).toEqual([{ address: `${p.ip}/24`, gateway: '10.90.0.1', interface: 1 }]);
      expect(p.result.routes).toEqual([{ dst: '0.0.0.0/0', gw: '10.90.0.1' }]);
      expect(ifs[1]).toMatchObject({ name: 'eth0', sandbox: p.sb.netns.path });
      const hostIf = ifs[0]!.name;
      expect(hostIf.length).toBeLessThanOrEqual(15);
      expect(hostIf.startsWith(p.sb.name.replace('-', '').slice(0, 6))).toBe(true);

      const inPod = JSON.parse((await p.sb.netns.exec(['ip', '-j', 'addr', 'show', 'dev', 'eth0'])).stdout) as {
        address: string; mtu: number; addr_info: { local: string; prefixlen: number }[];
      }[];
      expect(inPod[0]!.address).toBe(ifs[1]!.mac);
      expect(inPod[0]!.mtu).toBe(1450);
      expect(inPod[0]!.addr_info.map((a) => `${a.local}/${a.prefixlen}`)).toContain(`${p.ip}/24`);
      const route = (await p.sb.netns.exec(['ip', 'route', 'show', 'default'])).stdout;
      expect(route).toContain('default via 10.90.0.1 dev eth0');
      const offload = (await p.sb.netns.exec(['ethtool', '-k', 'eth0'])).stdout;
      expect(offload).toMatch(/tx-checksumming: off/);

      const ids = await portIds(hostIf);
      expect(ids).toContain(`container-id=${p.sb.containerId}`);
      expect(ids).toContain(`pod-name=${p.sb.name}`);
      expect(ids).toContain('pod-namespace=default');
      expect(ids).toContain(`ip-address="${p.ip}/24"`);
      expect(ids).toContain(`attached-mac="${ifs[1]!.mac}"`);
      expect(ids).toContain(`netns="${p.sb.netns.path}"`);
      expect(ids).toContain('antrea-type=container');
      expect(Number((await node!.ovs.vsctl('get', 'interface', hostIf, 'ofport')).trim())).toBeGreaterThan(0);
      expect(allocated()).toContain(p.ip);
    }
    expect(await dumpFlows()).toContain(`dl_dst=${(pods[0]!.result.interfaces as { mac: string }[])[1]!.mac}`);
  });

  it('a repeated ADD of an attached container returns the same result', async () => {
    const p = pods[0]!;
    const r = await cni('ADD', { containerId: p.sb.containerId, netns: p.sb.netns.path, ifname: 'eth0', args: podArgs('default', p.sb.name) }, netconf(node!.socket));
    expect(r.code).toBe(0);
    expect(r.out).toEqual(p.result);
  });

  it('CHECK passes with the prevResult of ADD, for 1.0.0 and 0.4.0', async () => {
    for (const p of pods) {
      const r = await cni('CHECK', { containerId: p.sb.containerId, netns: p.sb.netns.path, ifname: 'eth0', args: podArgs('default', p.sb.name) }, netconf(node!.socket, { prevResult: p.result }));
      expect(r).toMatchObject({ code: 0, raw: '' });
    }
    const p = pods[1]!;
    const r = await cni('CHECK', { containerId: p.sb.containerId, netns: p.sb.netns.path, ifname: 'eth0', args: podArgs('default', p.sb.name) }, netconf(node!.socket, { cniVersion: '0.4.0', prevResult: p.result }));
    expect(r.code).toBe(0);
  });

  it('CHECK fails when the pod interface lost its address', async () => {
    const p = pods[2]!;
    await p.sb.netns.exec(['ip', 'addr', 'del', `${p.ip}/24`, 'dev', 'eth0']);
    const r = await cni('CHECK', { containerId: p.sb.containerId, netns: p.sb.netns.path, ifname: 'eth0', args: podArgs('default', p.sb.name) }, netconf(node!.socket, { prevResult: p.result }));
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ code: 101, msg: `interface eth0 lacks ${p.ip}/24` });
    await p.sb.netns.exec(['ip', 'addr', 'add', `${p.ip}/24`, 'dev', 'eth0']);
    await p.sb.netns.exec(['ip', 'route', 'replace', 'default', 'via', '10.90.0.1', 'dev', 'eth0']);
  });

  it('two pods talk over TCP and UDP through the agent pipeline (the pods\' spoofguard flows count the packets)', async () => {
    const [a, b] = pods;
    tb.spawn(['socat', 'TCP-LISTEN:7001,reuseaddr,fork', 'SYSTEM:echo pong-tcp'], b!.sb.netns.name);
    tb.spawn(['socat', 'UDP-RECVFROM:7002,fork', 'SYSTEM:echo pong-udp'], b!.sb.netns.name);
    expect(await exchange(a!.sb, ['socat', '-T3', '-', `TCP:${b!.ip}:7001`], 'pong-tcp')).toBe('pong-tcp');
    expect(await exchange(a!.sb, ['socat', '-T3', '-', `UDP:${b!.ip}:7002`], 'pong-udp')).toBe('pong-udp');
    const flows = parseDumpFlows(await dumpFlows());
    for (const p of [a!, b!]) {
      const spoofguard = flows.find((f) => f.match.ipv4Src === p.ip && f.match.inPort !== undefined);
      expect(spoofguard?.stats?.packets ?? 0n).toBeGreaterThan(0n);
    }
    // The node (gateway port) answers too: gateway flows and ARP through the pipeline.
    serveTcp(node!.ovs.netns.name, 'TCP-LISTEN:7000,bind=10.90.0.1,reuseaddr,fork');
    await reaches(a!.sb, '10.90.0.1');
    for (const p of pods) serveTcp(p.sb.netns.name);
    await reaches(pods[2]!.sb, a!.ip);
  });

  it('DEL leaves nothing behind: no OVS port, no veth, no flows, address released; DEL again succeeds', async () => {
    const p = pods.pop()!;
    const hostIf = (p.result.interfaces as { name: string }[])[0]!.name;
    const mac = (p.result.interfaces as { mac: string }[])[1]!.mac;
    const env = { containerId: p.sb.containerId, netns: p.sb.netns.path, ifname: 'eth0', args: podArgs('default', p.sb.name) };
    const r = await cni('DEL', env, netconf(node!.socket, { prevResult: p.result }));
    expect(r).toMatchObject({ code: 0, raw: '' });
    expect((await node!.ovs.vsctl('list-ports', 'br-int')).split('\n')).not.toContain(hostIf);
    expect(await nodeLinks()).not.toContain(hostIf);
    expect((await p.sb.netns.exec(['ip', '-j', 'link', 'show'])).stdout).not.toContain('eth0');
    expect(allocated()).not.toContain(p.ip);
    expect(await dumpFlows()).not.toContain(mac);
    expect(node!.agent.part('node').interfaces.get(p.sb.containerId)).toBeUndefined();
    expect(await cni('DEL', env, netconf(node!.socket))).toMatchObject({ code: 0, raw: '' });
    expect(await cni('DEL', { ...env, netns: '' }, netconf(node!.socket))).toMatchObject({ code: 0, raw: '' });
  });

  it('a freed address is handed out again and the new pod talks to the old ones', async () => {
    const sb = await sandbox(tb, 'web-d');
    const { ip } = await addPod(node!, sb);
    expect(ip).toBe('10.90.0.5'); // host-local order: round-robin after the last reserved address
    await reaches(sb, pods[0]!.ip);
    pods.push({ sb, ip, result: {} });
  });

  it('the pod port asks for its number; when a port the agent does not know holds it, the flows follow the number vswitchd gave', async () => {
    // The number the next ADD asks for: the lowest not held by a pod, the gateway or the tunnel.
    const agentNode = node!.agent.part('node');
    const used = new Set([...agentNode.interfaces.list().map((i) => i.ofport), agentNode.node.gateway.ofport, agentNode.node.tunnel?.ofport ?? 0]);
    let next = 3;
    while (used.has(next)) next++;
    await node!.ovs.vsctl('add-port', 'br-int', 'foreign0', '--', 'set', 'interface', 'foreign0', 'type=internal', `ofport_request=${next}`);
    try {
      const sb = await sandbox(tb, 'web-e');
      await addPod(node!, sb);
      const iface = agentNode.interfaces.list().find((i) => i.podName === 'web-e')!;
      const actual = Number((await node!.ovs.vsctl('get', 'interface', iface.hostIfName, 'ofport')).trim());
      expect(actual).not.toBe(next);
      expect(iface.ofport).toBe(actual);
      expect(await dumpFlows()).toContain(`in_port=${actual},dl_src=${iface.mac}`);
      await reaches(sb, pods[0]!.ip);
      // The next pod does not ask for the foreign port's number again.
      const sb2 = await sandbox(tb, 'web-f');
      await addPod(node!, sb2);
      expect(agentNode.interfaces.list().find((i) => i.podName === 'web-f')!.ofport).not.toBe(next);
      for (const [b, name] of [[sb, 'web-e'], [sb2, 'web-f']] as const) {
        expect((await cni('DEL', { containerId: b.containerId, netns: b.netns.path, ifname: 'eth0', args: podArgs('default', name) }, netconf(node!.socket))).code).toBe(0);
      }
    } finally {
      await node!.ovs.vsctl('del-port', 'br-int', 'foreign0');
    }
  });

  describe('bad input gets a spec error and the agent keeps serving', () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await sandbox(tb, 'bad');
    });
    const env = () => ({ containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', 'bad') });

    it('invalid JSON: code 6', async () => {
      const r = await cni('ADD', env(), '{"cniVersion": ');
      expect(r.code).toBe(1);
      expect(r.out).toMatchObject({ cniVersion: '1.0.0', code: 6, msg: 'failed to decode network configuration' });
    });

    it('missing name/type in the configuration: code 7', async () => {
      const r = await cni('ADD', env(), JSON.stringify({ cniVersion: '1.0.0', cniSocket: node!.socket }));
      expect(r.out).toMatchObject({ code: 7 });
      expect(String(r.out.msg)).toContain('"name"');
    });

    it('missing CNI_CONTAINERID or CNI_NETNS: code 4', async () => {
      const { containerId: _c, ...noId } = env();
      expect((await cni('ADD', noId, netconf(node!.socket))).out).toMatchObject({ code: 4, msg: 'required environment variable CNI_CONTAINERID is missing' });
      const { netns: _n, ...noNetns } = env();
      expect((await cni('ADD', noNetns, netconf(node!.socket))).out).toMatchObject({ code: 4, msg: 'required environment variable CNI_NETNS is missing' });
    });

    it('missing pod identity in CNI_ARGS: code 4', async () => {
      const r = await cni('ADD', { ...env(), args: 'IgnoreUnknown=1' }, netconf(node!.socket));
      expect(r.out).toMatchObject({ code: 4, msg: 'CNI_ARGS must carry K8S_POD_NAME and K8S_POD_NAMESPACE' });
    });

    it('unknown version: code 1, the error in the newest version', async () => {
      const r = await cni('ADD', env(), netconf(node!.socket, { cniVersion: '9.9.9' }));
      expect(r.out).toMatchObject({ cniVersion: '1.0.0', code: 1, msg: 'incompatible CNI version 9.9.9' });
    });

    it('a netns that does not exist: code 3; a path that is not a netns: code 4; nothing left allocated', async () => {
      const before = allocated();
      const r = await cni('ADD', { ...env(), netns: '/var/run/netns/does-not-exist' }, netconf(node!.socket));
      expect(r.out).toMatchObject({ code: 3, msg: 'network namespace /var/run/netns/does-not-exist does not exist' });
      const file = join(node!.dir, 'not-a-netns');
      writeFileSync(file, '');
      const r2 = await cni('ADD', { ...env(), netns: file }, netconf(node!.socket));
      expect(r2.out).toMatchObject({ code: 4 });
      expect(allocated()).toEqual(before);
    });

    it('an unreachable agent: code 11 (try again later)', async () => {
      const r = await cni('ADD', env(), netconf(join(node!.dir, 'nobody.sock')));
      expect(r.out).toMatchObject({ code: 11, msg: 'switchyard agent unavailable' });
    });

    it('a failure half-way rolls back the address, the veth and the port', async () => {
      // An interface named like CNI_IFNAME already in the pod netns makes the veth step fail.
      await sb.netns.exec(['ip', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0p']);
      const portsBefore = (await node!.ovs.vsctl('list-ports', 'br-int')).trim();
      const linksBefore = await nodeLinks();
      const addrsBefore = allocated();
      const r = await cni('ADD', env(), netconf(node!.socket));
      expect(r.code).toBe(1);
      expect(r.out).toMatchObject({ code: 100, msg: 'pod setup failed at veth' });
      expect((await node!.ovs.vsctl('list-ports', 'br-int')).trim()).toBe(portsBefore);
      expect(await nodeLinks()).toEqual(linksBefore);
      expect(allocated()).toEqual(addrsBefore);
      expect(node!.agent.part('node').interfaces.get(sb.containerId)).toBeUndefined();
      await sb.netns.exec(['ip', 'link', 'del', 'eth0']);
    });

    it('after all that, ADD of the same sandbox works and answers with a 0.3.1 result when asked', async () => {
      const r = await cni('ADD', env(), netconf(node!.socket, { cniVersion: '0.3.1' }));
      expect(r.code).toBe(0);
      expect(r.out.cniVersion).toBe('0.3.1');
      expect((r.out.ips as { version: string }[])[0]!.version).toBe('4');
      const del = await cni('DEL', env(), netconf(node!.socket, { cniVersion: '0.3.1' }));
      expect(del.code).toBe(0);
    });
  });

  it('parallel ADDs of several pods all succeed with distinct addresses', async () => {
    const sbs = await Promise.all(['par-1', 'par-2', 'par-3', 'par-4'].map((n) => sandbox(tb, n)));
    const res = await Promise.all(sbs.map((sb) => addPod(node!, sb)));
    const ips = res.map((r) => r.ip);
    expect(new Set(ips).size).toBe(4);
    for (const ip of ips) expect(allocated()).toContain(ip);
    serveTcp(sbs[3]!.netns.name);
    await reaches(sbs[0]!, ips[3]!);
    expect(existsSync(node!.socket)).toBe(true);
  });
});
