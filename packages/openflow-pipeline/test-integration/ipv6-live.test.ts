/**
 * Real IPv6 traffic through a dual-stack node's flows: two pods (network namespaces with veths
 * into a userspace bridge) and the gateway's internal port, each with an IPv6 address and Linux's
 * own Neighbor Discovery (DAD, solicitations, advertisements) and MLD. The pods resolve each other
 * and the gateway through the pipeline's IPv6 table, ping over IPv6, and a K8s NetworkPolicy
 * decides TCP connections over IPv6 in conntrack's IPv6 zone, beside IPv4 that keeps working.
 */
import { Testbed, waitFor, type OvsInstance, type Pod } from '@switchyard/testbed';
import { computeNodeFlows, type NodeFlows, type NodeState } from '../src/index';
import { install } from './helpers';

const BR = 'br-int';
const GW_OFPORT = 2;
const GW6 = 'fd00:10:10::1';
const CLIENT6 = 'fd00:10:10::a';
const SERVER6 = 'fd00:10:10::b';

let tb: Testbed;
let ovs: OvsInstance;
let client: Pod;
let server: Pod;
let nf: NodeFlows;

function nodeState(gwMac: string): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'noEncap', gateway: { ofport: GW_OFPORT, ip: '10.10.0.1', ipv6: GW6, mac: gwMac }, podCIDR: '10.10.0.0/24', podCIDRv6: 'fd00:10:10::/64',
      nodeIP: '192.168.77.100', enableProxy: false, enableAntreaPolicy: true, netdevDatapath: true,
    },
    pods: [
      { name: 'client', namespace: 'ns', ofport: client.ofport, ips: [client.ip, CLIENT6], mac: client.mac },
      { name: 'server', namespace: 'ns', ofport: server.ofport, ips: [server.ip, SERVER6], mac: server.mac },
    ],
    remoteNodes: [],
    addressGroups: [{ name: 'client', groupMembers: [{ ips: [client.ip, CLIENT6] }] }],
    appliedToGroups: [{ name: 'server', groupMembers: [{ ips: [server.ip, SERVER6] }] }],
    // The server accepts TCP 8080 from the client only, in both families.
    policies: [{
      uid: 'k8s', name: 'allow-client', namespace: 'ns', generation: 1, appliedToGroups: ['server'], policyTypes: ['Ingress'],
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'allow-client', uid: 'k8s' },
      rules: [{ direction: 'In', from: { addressGroups: ['client'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 8080 }], priority: 0, enableLogging: false }],
    }],
  };
}

/** Adds an IPv6 address and waits until Duplicate Address Detection is over (no tentative address left). */
async function addIpv6(exec: (argv: string[]) => Promise<{ stdout: string }>, dev: string, cidr: string): Promise<void> {
  await exec(['ip', '-6', 'addr', 'add', cidr, 'dev', dev]);
  await waitFor(`${cidr} on ${dev} past DAD`, async () => (await exec(['ip', '-6', 'addr', 'show', 'dev', dev, 'tentative'])).stdout.trim() === '', { timeoutMs: 30_000, intervalMs: 100 });
}

/** True when a TCP connection completes (nc -z; a dropped SYN is given 1 s, an allowed one up to three tries). */
const connects = (from: Pod, ip: string, port: number, src?: string): Promise<boolean> =>
  from.exec(['nc', '-z', '-n', '-w', '1', ...(src ? ['-s', src] : []), ip, String(port)]).then(() => true, () => false);
async function opens(from: Pod, ip: string, port: number, src?: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await connects(from, ip, port, src)) return true;
  return false;
}

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', `ofport_request=${GW_OFPORT}`);
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  client = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.10/24', gateway: '10.10.0.1', ofport: 10 });
  server = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.11/24', gateway: '10.10.0.1', ofport: 11 });
  // The flows first: the addresses' DAD, and the pods' first solicitations, go through them.
  nf = computeNodeFlows(nodeState(gwMac));
  await install(ovs, BR, nf);
  const gwExec = (argv: string[]) => ovs.netns.exec(argv);
  await gwExec(['ip', 'link', 'set', 'gw0', 'up']);
  // Side by side: each address's DAD takes about a second.
  await Promise.all([
    addIpv6(gwExec, 'gw0', `${GW6}/64`), addIpv6((argv) => client.exec(argv), 'eth0', `${CLIENT6}/64`), addIpv6((argv) => server.exec(argv), 'eth0', `${SERVER6}/64`),
  ]);
  await client.exec(['ip', '-6', 'route', 'add', 'default', 'via', GW6, 'dev', 'eth0']);
  for (const [ip, port] of [['::', 8080], ['::', 7070], ['0.0.0.0', 8080]] as const) {
    tb.spawn(['socat', `TCP${ip === '::' ? '6' : '4'}-LISTEN:${port},fork,reuseaddr${ip === '::' ? ',ipv6only=1' : ''}`, 'SYSTEM:true'], server.netns.name);
  }
  await waitFor('server listening on 8080 and 7070 (v6) and 8080 (v4)', async () => {
    const ss = (await server.exec(['ss', '-ltnH'])).stdout;
    return ss.includes('[::]:8080') && ss.includes('[::]:7070') && ss.includes('0.0.0.0:8080');
  }, { timeoutMs: 10_000, intervalMs: 50 });
}, 120_000);

afterAll(async () => {
  await tb?.cleanup();
});

describe('two dual-stack pods and the gateway on a real bridge', () => {
  it('the server resolves the client over ND through the IPv6 table and pings it; each learns the other\'s MAC', async () => {
    // The server is isolated for ingress (TCP 8080 only), the client is not: the echo goes this way.
    await server.exec(['ping', '-6', '-c', '1', '-W', '5', CLIENT6]);
    expect((await server.exec(['ip', '-6', 'neigh', 'show', CLIENT6, 'dev', 'eth0'])).stdout).toContain(`lladdr ${client.mac}`);
    expect((await client.exec(['ip', '-6', 'neigh', 'show', SERVER6, 'dev', 'eth0'])).stdout).toContain(`lladdr ${server.mac}`);
  });

  it('an ICMPv6 echo to the isolated server is dropped by its K8s policy (only TCP 8080 is allowed)', async () => {
    expect(await client.exec(['ping', '-6', '-c', '1', '-W', '1', SERVER6]).then(() => true, () => false)).toBe(false);
  });

  it('a pod resolves and pings the gateway over IPv6 (the host answers through the bridge)', async () => {
    await client.exec(['ping', '-6', '-c', '1', '-W', '5', GW6]);
    expect((await client.exec(['ip', '-6', 'neigh', 'show', GW6, 'dev', 'eth0'])).stdout).toMatch(/lladdr [0-9a-f:]{17}/);
  });

  it('the K8s policy allows TCP 8080 over IPv6 from the client', async () => {
    expect(await opens(client, SERVER6, 8080)).toBe(true);
  });

  it('the K8s policy drops TCP 7070 over IPv6 (the server is isolated for ingress)', async () => {
    expect(await connects(client, SERVER6, 7070)).toBe(false);
  });

  it('IPv4 through the same node keeps working: TCP 8080 from the client', async () => {
    expect(await opens(client, server.ip, 8080)).toBe(true);
  });

  it('the allowed IPv6 connection is tracked in the IPv6 zone (65510)', async () => {
    expect(await opens(client, SERVER6, 8080)).toBe(true);
    const ct = await ovs.appctl('dpctl/dump-conntrack', '-m');
    expect(ct.split('\n').some((l) => l.includes(`dst=${SERVER6}`) && l.includes('zone=65510'))).toBe(true);
  });

  it('a source address that is not the pod\'s own gets nowhere', async () => {
    // No DAD for it: the pipeline drops that solicitation anyway (not the pod's address).
    await client.exec(['ip', '-6', 'addr', 'add', 'fd00:10:10::99/64', 'dev', 'eth0', 'nodad']);
    expect(await connects(client, SERVER6, 8080, 'fd00:10:10::99')).toBe(false);
    // From its own address (named: Linux may now pick the newer one as source), it still connects.
    expect(await opens(client, SERVER6, 8080, CLIENT6)).toBe(true);
  });
});
