// trafficEncryptionMode ipsec on a real OVS: one agent (node ip1) and three Nodes in the embedded
// Kubernetes API. The agent makes one GRE port per peer with remote_ip, psk and external_ids; the
// real ovs-monitor-ipsec (Debian openvswitch-ipsec), run against the same OVSDB, turns them into a
// strongSwan ipsec.conf and ipsec.secrets that strongSwan's own config parser (starter) accepts;
// deleting a Node removes its port, and the monitor drops its connection. No kernel datapath here,
// so no traffic is encrypted: this checks the agent's rows and what OVS's IPsec tooling makes of them.
// A second block does the same for an IPv6-only node on an IPv6 underlay (IPv6 remote_ip/local_ip).
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { Testbed, waitFor, type OvsInstance } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { IPSEC_PSK_ENV, ipsecTunnelPortName } from '../src/features/ipsec/ipsec';
import { conns, ipsecSecrets, starterParse, startMonitor, stopChild, vsctlRows } from './ipsec-support';

jest.setTimeout(120_000);

const PSK = 'switchyard-test-psk-0123456789';
const SELF = { name: 'ip1', podCIDR: '10.72.1.0/24', nodeIP: '192.168.72.1' };
const PEERS = [
  { name: 'ip2', podCIDR: '10.72.2.0/24', nodeIP: '192.168.72.2' },
  { name: 'ip3', podCIDR: '10.72.3.0/24', nodeIP: '192.168.72.3' },
];

let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let ovs: OvsInstance;
let agent: Agent | undefined;
let monitor: ChildProcess | undefined;
let dir: string;
const savedPsk = process.env[IPSEC_PSK_ENV];

const postNode = (n: { name: string; podCIDR: string; nodeIP: string }): Promise<unknown> =>
  kube.request('POST', '/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node', metadata: { name: n.name },
    spec: { podCIDR: n.podCIDR, podCIDRs: [n.podCIDR] },
    status: { addresses: [{ type: 'InternalIP', address: n.nodeIP }] },
  });

/** The per-peer ports: Interface and Port rows of every port the agent marked ipsec-tunnel. */
async function ipsecPorts(): Promise<{ name: string; type: string; options: Record<string, string>; ifaceIds: Record<string, string>; portIds: Record<string, string>; ofport: unknown }[]> {
  const ports = (await vsctlRows(ovs, 'Port', ['name', 'external_ids'])).filter((p) => (p.external_ids as Record<string, string>)['antrea-type'] === 'ipsec-tunnel');
  const ifaces = await vsctlRows(ovs, 'Interface', ['name', 'type', 'options', 'external_ids', 'ofport']);
  // Two reads: a port deleted between them has a Port row but no Interface row; it is going, so it is left out.
  return ports
    .flatMap((p) => {
      const i = ifaces.find((x) => x.name === p.name);
      return i ? [{ name: p.name as string, type: i.type as string, options: i.options as Record<string, string>, ifaceIds: i.external_ids as Record<string, string>, portIds: p.external_ids as Record<string, string>, ofport: i.ofport }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const expectedPort = (p: { name: string; nodeIP: string }): Record<string, unknown> => ({
  name: ipsecTunnelPortName(p.name),
  type: 'gre',
  options: { remote_ip: p.nodeIP, psk: PSK },
  ifaceIds: { 'antrea-type': 'ipsec-tunnel', 'node-name': p.name },
  portIds: { 'antrea-type': 'ipsec-tunnel', 'node-name': p.name },
});
const sortedByPort = <T extends { name: string }>(ps: T[]): T[] => [...ps].sort((a, b) => ipsecTunnelPortName(a.name).localeCompare(ipsecTunnelPortName(b.name)));

beforeAll(async () => {
  tb = await Testbed.create();
  dir = mkdtempSync(join(tmpdir(), 'sy-ipsec-'));
  api = await startKubeApi({ crds: loadCrds() as never });
  const kc = new KubeConfig();
  kc.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig')));
  kube = new KubeConfigClient(kc);
  ovs = await tb.startOvs();
  for (const n of [SELF, ...PEERS]) await postNode(n);
});

afterAll(async () => {
  await stopChild(monitor);
  await agent?.stop().catch(() => undefined);
  await api?.stop().catch(() => undefined);
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (savedPsk === undefined) delete process.env[IPSEC_PSK_ENV];
  else process.env[IPSEC_PSK_ENV] = savedPsk;
});

describe('IPsec tunnel ports on a real OVS (three Nodes)', () => {
  it(`refuses to start without ${IPSEC_PSK_ENV}, naming the variable`, async () => {
    delete process.env[IPSEC_PSK_ENV];
    await expect(Agent.start(agentOptions())).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining(IPSEC_PSK_ENV) });
  });

  it('makes one GRE port per peer with remote_ip, psk and external_ids naming the peer, and flows for it', async () => {
    process.env[IPSEC_PSK_ENV] = PSK;
    agent = await Agent.start(agentOptions());
    await waitFor('ports of both peers', async () => (await ipsecPorts()).length === 2 && agent!.part('routes').routes?.remote.length === 2, { timeoutMs: 20_000, intervalMs: 100 });
    await agent.part('routes').routes!.idle();
    const ports = await ipsecPorts();
    expect(ports.map(({ ofport: _o, ...rest }) => rest)).toEqual(sortedByPort(PEERS).map(expectedPort));
    // No port for the agent's own Node; the flow-based tunnel port is still there (remote_ip=flow).
    expect(ports.some((p) => p.name === ipsecTunnelPortName(SELF.name))).toBe(false);
    const [tun] = await vsctlRows(ovs, 'Interface', ['name', 'options']).then((rows) => rows.filter((r) => r.name === 'sy-tun0'));
    expect(tun?.options).toEqual({ remote_ip: 'flow', key: 'flow' });
    // Pod MTU: 1500 less GRE (42: its header carries the key) and ESP (38).
    const [gw] = await vsctlRows(ovs, 'Interface', ['name', 'mtu_request']).then((rows) => rows.filter((r) => r.name === 'sy-gw0'));
    expect(gw?.mtu_request).toBe(1420);
    const flows = await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket('br-int'));
    for (const p of ports) {
      expect(typeof p.ofport === 'number' && p.ofport > 0).toBe(true);
      const peer = PEERS.find((x) => x.name === p.ifaceIds['node-name'])!;
      expect(flows).toMatch(new RegExp(`in_port=${String(p.ofport)} actions=`));
      expect(flows).toMatch(new RegExp(`nw_dst=${peer.podCIDR.replace(/\./g, '\\.')} actions=.*set_field:0x${(p.ofport as number).toString(16)}->reg1`));
      expect(flows).not.toContain(`set_field:${peer.nodeIP}->tun_dst`);
    }
  });

  it('a packet from the host to a peer\'s pod leaves on that peer\'s port (ofproto/trace)', async () => {
    const ports = await ipsecPorts();
    for (const peer of PEERS) {
      const port = ports.find((p) => p.ifaceIds['node-name'] === peer.name)!;
      const dst = peer.podCIDR.replace(/0\/24$/, '5');
      const trace = await ovs.appctl('ofproto/trace', 'br-int', `in_port=sy-gw0,tcp,nw_src=${SELF.podCIDR.replace(/0\/24$/, '1')},nw_dst=${dst},dl_dst=aa:bb:cc:dd:ee:ff,tp_dst=80,nw_ttl=64`);
      expect(trace).toMatch(new RegExp(`-> output port is ${String(port.ofport)}\\b`));
    }
  });

  it('ovs-monitor-ipsec writes one strongSwan connection and one PSK secret per peer, and strongSwan\'s parser accepts the config', async () => {
    // --root-prefix keeps every file it writes (etc/ipsec.conf, etc/ipsec.secrets) and every program
    // it calls (usr/sbin/ipsec: a recording stub, as no charon runs) under one directory.
    const started = startMonitor(dir, ovs);
    monitor = started.child;
    const root = started.root;
    const confFile = join(root, 'etc/ipsec.conf');
    const read = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    // Both files waited for (ipsecSecrets: the monitor writes them one after the other).
    await waitFor('ipsec.conf and ipsec.secrets with both peers', () => conns(read(confFile)).size >= 3 && ipsecSecrets(root).length >= PEERS.length, {
      timeoutMs: 20_000,
      intervalMs: 100,
    });

    const c = conns(read(confFile));
    const perPeer = [...c.entries()].filter(([name]) => name !== '%default');
    expect(perPeer).toHaveLength(2);
    for (const peer of PEERS) {
      const port = ipsecTunnelPortName(peer.name);
      const mine = perPeer.filter(([name]) => name.startsWith(`${port}-`));
      expect(mine).toHaveLength(1);
      // strongSwan's template in OVS 3.1: left=%any (the local address), right = the peer's node IP.
      expect(mine[0]![1]).toEqual({ left: '%any', right: peer.nodeIP, authby: 'psk', leftprotoport: 'gre', rightprotoport: 'gre' });
    }
    expect(c.get('%default')).toMatchObject({ type: 'transport', keyexchange: 'ikev2', auto: 'route' });
    const secrets = ipsecSecrets(root);
    expect(secrets.sort()).toEqual(PEERS.map((p) => `%any ${p.nodeIP} : PSK "${PSK}"`).sort());
    // It asked strongSwan to load them (through the stub).
    await waitFor('ipsec update', () => /^update$/m.test(read(join(dir, 'ipsec-calls.log'))), { timeoutMs: 30_000, intervalMs: 50 });

    const parsed = await starterParse(dir, confFile);
    expect(parsed).not.toMatch(/unknown keyword|parsing error|fatal/);
    for (const peer of PEERS) {
      expect(parsed).toContain(`Loading conn '${ipsecTunnelPortName(peer.name)}-1'`);
      expect(parsed).toContain(`right=${peer.nodeIP}`);
    }
    expect(parsed).toContain('Attempting to start');
  });

  it('strongSwan\'s parser is a real check: it reports a misspelt key', async () => {
    const bad = join(dir, 'bad.conf');
    writeFileSync(bad, 'config setup\n    uniqueids=yes\n\nconn x\n    rihgt=192.168.72.2\n');
    expect(await starterParse(dir, bad)).toMatch(/unknown keyword 'rihgt'[\s\S]*1 parsing error/);
  });

  it('deleting a Node removes its port, and ovs-monitor-ipsec drops its connection and secret', async () => {
    const [gone, kept] = PEERS as [typeof PEERS[0], typeof PEERS[0]];
    await kube.request('DELETE', `/api/v1/nodes/${gone.name}`);
    await waitFor('port of the deleted Node removed', async () => (await ipsecPorts()).length === 1, { timeoutMs: 20_000, intervalMs: 100 });
    const ports = await ipsecPorts();
    expect(ports.map(({ ofport: _o, ...rest }) => rest)).toEqual([expectedPort(kept)]);
    const flows = await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket('br-int'));
    expect(flows).not.toContain(`nw_dst=${gone.podCIDR}`);

    const root = join(dir, 'root');
    await waitFor('connection dropped', () => conns(readFileSync(join(root, 'etc/ipsec.conf'), 'utf8')).size === 2, { timeoutMs: 20_000, intervalMs: 100 });
    const names = [...conns(readFileSync(join(root, 'etc/ipsec.conf'), 'utf8')).keys()];
    expect(names.some((n) => n.startsWith(`${ipsecTunnelPortName(kept.name)}-`))).toBe(true);
    expect(names.some((n) => n.startsWith(`${ipsecTunnelPortName(gone.name)}-`))).toBe(false);
    await waitFor('secret of the deleted Node dropped', () => {
      const secrets = ipsecSecrets(root);
      return secrets.some((l) => l.includes(kept.nodeIP)) && !secrets.some((l) => l.includes(gone.nodeIP));
    }, { timeoutMs: 20_000, intervalMs: 100 });
  });
});

// An IPv6-only node (issue 36): an IPv6 pod CIDR alone and an IPv6 node address alone (an IPv6
// underlay), its peer a Node with an IPv6 InternalIP alone. Its own OVS and ovs-monitor-ipsec; the
// IPv4 Nodes above are no peers of it (no IPv6 InternalIP).
describe('IPsec tunnel ports on an IPv6-only node (an IPv6 underlay)', () => {
  const SELF6 = { name: 'ip6a', podCIDR: 'fd00:72:a::/64', nodeIP: 'fd00:72::a' };
  const PEER6 = { name: 'ip6b', podCIDR: 'fd00:72:b::/64', nodeIP: 'fd00:72::b' };
  let ovs6: OvsInstance;
  let agent6: Agent | undefined;
  let monitor6: ChildProcess | undefined;
  let dir6: string;

  beforeAll(async () => {
    ovs6 = await tb.startOvs();
    dir6 = mkdtempSync(join(tmpdir(), 'sy-ipsec6-'));
    for (const n of [SELF6, PEER6]) await postNode(n);
  });
  afterAll(async () => {
    await stopChild(monitor6);
    await agent6?.stop().catch(() => undefined);
    if (dir6) rmSync(dir6, { recursive: true, force: true });
  });

  it('makes the peer\'s GRE port with its IPv6 remote_ip and the node\'s IPv6 local_ip, IPv6 flows to it, and pods get 1500 less GRE over IPv6 (62) and ESP (38)', async () => {
    process.env[IPSEC_PSK_ENV] = PSK;
    agent6 = await Agent.start({ ...agentOptions(), nodeName: SELF6.name, podCIDR: SELF6.podCIDR, nodeIP: SELF6.nodeIP, ovsdbRemote: ovs6.dbRemote, ovsRunDir: ovs6.dir, dataDir: dir6, cniSocket: join(dir6, 'cni.sock'), nodeNetns: ovs6.netns.name });
    const ports6 = async (): Promise<Record<string, unknown>[]> => (await vsctlRows(ovs6, 'Interface', ['name', 'type', 'options', 'ofport'])).filter((r) => r.name === ipsecTunnelPortName(PEER6.name));
    await waitFor('the IPv6 peer\'s port', async () => (await ports6()).length === 1 && agent6!.part('routes').routes?.remote.length === 1, { timeoutMs: 20_000, intervalMs: 100 });
    await agent6.part('routes').routes!.idle();
    const [port] = await ports6();
    expect(port).toMatchObject({ type: 'gre', options: { remote_ip: PEER6.nodeIP, local_ip: SELF6.nodeIP, psk: PSK } });
    const [tun] = (await vsctlRows(ovs6, 'Interface', ['name', 'options'])).filter((r) => r.name === 'sy-tun0');
    expect(tun?.options).toEqual({ remote_ip: 'flow', key: 'flow', local_ip: SELF6.nodeIP });
    const [gw] = (await vsctlRows(ovs6, 'Interface', ['name', 'mtu_request'])).filter((r) => r.name === 'sy-gw0');
    expect(gw?.mtu_request).toBe(1500 - 62 - 38);
    const ofport = port!.ofport as number;
    const flows = await ovs6.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs6.mgmtSocket('br-int'));
    expect(flows).toMatch(new RegExp(`in_port=${String(ofport)} actions=`));
    expect(flows).toMatch(new RegExp(`ipv6_dst=fd00:72:b::/64 actions=.*set_field:0x${ofport.toString(16)}->reg1`));
    expect(flows).not.toContain('tun_ipv6_dst');
    const trace = await ovs6.appctl('ofproto/trace', 'br-int', 'in_port=sy-gw0,tcp6,ipv6_src=fd00:72:a::1,ipv6_dst=fd00:72:b::5,dl_dst=aa:bb:cc:dd:ee:ff,tp_dst=80,nw_ttl=64');
    expect(trace).toMatch(new RegExp(`-> output port is ${String(ofport)}\\b`));
  });

  it('ovs-monitor-ipsec writes a strongSwan connection to the peer\'s IPv6 address and its PSK secret, and strongSwan\'s parser accepts them', async () => {
    const started = startMonitor(dir6, ovs6);
    monitor6 = started.child;
    const confFile = join(started.root, 'etc/ipsec.conf');
    const read = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    await waitFor('ipsec.conf and ipsec.secrets with the IPv6 peer', () => conns(read(confFile)).size >= 2 && ipsecSecrets(started.root).length >= 1, {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const perPeer = [...conns(read(confFile)).entries()].filter(([name]) => name !== '%default');
    // OVS 3.1's strongSwan template: left=%any (either family), right = the peer's IPv6 node address.
    expect(perPeer).toEqual([[`${ipsecTunnelPortName(PEER6.name)}-1`, { left: '%any', right: PEER6.nodeIP, authby: 'psk', leftprotoport: 'gre', rightprotoport: 'gre' }]]);
    expect(ipsecSecrets(started.root)).toEqual([`%any ${PEER6.nodeIP} : PSK "${PSK}"`]);
    await waitFor('ipsec update', () => /^update$/m.test(read(join(dir6, 'ipsec-calls.log'))), { timeoutMs: 30_000, intervalMs: 50 });
    const parsed = await starterParse(dir6, confFile);
    expect(parsed).not.toMatch(/unknown keyword|parsing error|fatal/);
    expect(parsed).toContain(`Loading conn '${ipsecTunnelPortName(PEER6.name)}-1'`);
    expect(parsed).toContain(`right=${PEER6.nodeIP}`);
    expect(parsed).toContain('Attempting to start');
  });
});

function agentOptions(): Parameters<typeof Agent.start>[0] {
  return {
    nodeName: SELF.name,
    podCIDR: SELF.podCIDR,
    nodeIP: SELF.nodeIP,
    ovsdbRemote: ovs.dbRemote,
    ovsRunDir: ovs.dir,
    datapathType: 'netdev',
    gatewayName: 'sy-gw0',
    tunnelName: 'sy-tun0',
    tunnelType: 'gre',
    trafficEncryptionMode: 'ipsec',
    dataDir: dir,
    cniSocket: join(dir, 'cni.sock'),
    nodeNetns: ovs.netns.name,
    kube,
    apiPort: 0,
  };
}
