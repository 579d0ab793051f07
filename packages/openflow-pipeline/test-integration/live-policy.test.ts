/**
 * A real two-pod bridge: a K8s NetworkPolicy and Antrea-native rules (Drop, Reject, Pass across
 * tiers), written by hand as controlplane rules, decide real TCP connections and UDP
 * request/response exchanges; a Reject rule's packet reaches the controller connection
 * (@switchyard/openflow's SwitchConnection) as a packet-in carrying Antrea's userdata.
 * Flows and groups are installed through the same connection, as the agent does.
 */
import { Testbed, waitFor, type OvsInstance, type Pod } from '@switchyard/testbed';
import { SwitchConnection, type PacketIn } from '@switchyard/openflow';
import { computeNodeFlows, type NetworkPolicy, type NetworkPolicyRule, type NodeFlows, type NodeState } from '../src/index';

const BR = 'br-int';
const GW_OFPORT = 2;
/** Antrea's controller connection id (packet-ins are addressed to it). */
const ANTREA_CONTROLLER_ID = 62373;

let tb: Testbed;
let ovs: OvsInstance;
let client: Pod;
let server: Pod;
let conn: SwitchConnection;
let nf: NodeFlows;

const peerA = { addressGroups: ['client'], ipBlocks: [] };
const none = { addressGroups: [], ipBlocks: [] };
const tcp = (port: number): NetworkPolicyRule['services'][number] => ({ protocol: 'TCP', port });
const udp = (port: number): NetworkPolicyRule['services'][number] => ({ protocol: 'UDP', port });
const inRule = (priority: number, services: NetworkPolicyRule['services'], action?: NetworkPolicyRule['action']): NetworkPolicyRule => ({
  direction: 'In', from: peerA, to: none, services, priority, enableLogging: false, ...(action ? { action } : {}),
});

/** Policies on the server pod. */
function policies(): NetworkPolicy[] {
  return [
    // K8s NP: the client may reach TCP 8080, 8081, 9000, 9090 and UDP 5353, 5354; everything else is isolated.
    { uid: 'k8s-allow', name: 'allow-client', namespace: 'ns', generation: 1, appliedToGroups: ['server'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'allow-client', uid: 'k8s-allow' },
      rules: [inRule(0, [tcp(8080), tcp(8081), tcp(9000), tcp(9090), udp(5353), udp(5354)])] },
    // securityops tier (priority 100): Drop 8081, Reject 9090, Pass 9000 to the K8s layer.
    { uid: 'acnp-sec', name: 'sec', namespace: '', generation: 1, appliedToGroups: ['server'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'sec', uid: 'acnp-sec' },
      rules: [inRule(0, [tcp(8081)], 'Drop'), inRule(1, [tcp(9090)], 'Reject'), inRule(2, [tcp(9000)], 'Pass')] },
    // application tier (priority 250): Drop 9000 (never reached: Pass above) and UDP 5354.
    { uid: 'acnp-app', name: 'app', namespace: '', generation: 1, appliedToGroups: ['server'], priority: 1, tierPriority: 250, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'app', uid: 'acnp-app' },
      rules: [inRule(0, [tcp(9000)], 'Drop'), inRule(1, [udp(5354)], 'Drop')] },
  ];
}

function nodeState(gwMac: string): NodeState {
  return {
    config: { round: 1, trafficMode: 'noEncap', gateway: { ofport: GW_OFPORT, ip: '10.10.0.1', mac: gwMac }, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableProxy: false, enableAntreaPolicy: true, netdevDatapath: true },
    pods: [
      { name: 'client', namespace: 'ns', ofport: client.ofport, ips: [client.ip], mac: client.mac },
      { name: 'server', namespace: 'ns', ofport: server.ofport, ips: [server.ip], mac: server.mac },
    ],
    remoteNodes: [],
    addressGroups: [{ name: 'client', groupMembers: [{ ips: [client.ip] }] }],
    appliedToGroups: [{ name: 'server', groupMembers: [{ ips: [server.ip] }] }],
    policies: policies(),
  };
}

/** True when a TCP connection from the client to the server port completes (nc -z, 1 s timeout). */
async function tcpConnects(port: number): Promise<boolean> {
  const r = await client.exec(['nc', '-z', '-n', '-w', '1', server.ip, String(port)]).then(() => true, () => false);
  return r;
}

/** A connection that must open: up to three attempts (a dropped one never opens however often it tries). */
async function tcpOpens(port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await tcpConnects(port)) return true;
  return false;
}

/** The server's answer to a UDP request from the client, or '' when none came within 1 s. */
async function udpExchange(port: number): Promise<string> {
  const r = await client.exec(['socat', '-t', '1', '-T', '1', '-', `UDP4:${server.ip}:${port}`], { input: `ping-${port}\n` }).catch(() => ({ stdout: '' }));
  return r.stdout.trim();
}

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', `ofport_request=${GW_OFPORT}`);
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  client = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.10/24', gateway: '10.10.0.1', ofport: 10 });
  server = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.11/24', gateway: '10.10.0.1', ofport: 11 });
  // Listeners on the server: TCP ports accept and close; UDP ports echo each datagram.
  for (const port of [7070, 8080, 8081, 9000, 9090]) tb.spawn(['socat', `TCP4-LISTEN:${port},fork,reuseaddr`, 'SYSTEM:true'], server.netns.name);
  for (const port of [5353, 5354, 6000]) tb.spawn(['socat', `UDP4-RECVFROM:${port},fork,reuseaddr`, 'SYSTEM:cat'], server.netns.name);

  conn = await SwitchConnection.connect({ target: { path: ovs.mgmtSocket(BR) }, controllerId: ANTREA_CONTROLLER_ID, reconnect: false });
  nf = computeNodeFlows(nodeState(gwMac));
  await conn.deleteFlows();
  for (const g of nf.groups) await conn.flowLike({ type: 'groupMod', command: 'add', ...g });
  await conn.installFlows(nf.flows);
  // Listeners must be up before probing; poll the server's sockets (no fixed sleep), and fail
  // here, not in a later probe, if they never come up.
  const want = [':7070', ':8080', ':8081', ':9000', ':9090', ':5353', ':5354', ':6000'];
  await waitFor(`server listening on ${want.join(' ')}`, async () => {
    const ss = (await server.exec(['ss', '-ltnuH'])).stdout;
    return want.every((p) => ss.includes(p));
  }, { timeoutMs: 10_000, intervalMs: 50 });
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await tb?.cleanup();
});

describe('two pods on a real bridge with K8s NP and Antrea-native rules', () => {
  it('installs every computed flow', async () => {
    expect((await conn.dumpFlows({})).length).toBe(nf.flows.length);
  });

  it('K8s NP allow: TCP 8080 connects', async () => {
    expect(await tcpOpens(8080)).toBe(true);
  });

  it('K8s NP isolation: TCP 7070 (not in the allow list) is dropped', async () => {
    expect(await tcpConnects(7070)).toBe(false);
  });

  it('securityops Drop beats the K8s allow: TCP 8081 is dropped', async () => {
    expect(await tcpConnects(8081)).toBe(false);
  });

  it('securityops Pass skips the application-tier Drop and the K8s NP allows: TCP 9000 connects', async () => {
    expect(await tcpOpens(9000)).toBe(true);
  });

  it('K8s NP allow: UDP 5353 request gets its response', async () => {
    expect(await udpExchange(5353)).toBe('ping-5353');
  });

  it('application-tier Drop: UDP 5354 gets no response', async () => {
    expect(await udpExchange(5354)).toBe('');
  });

  it('K8s NP isolation: UDP 6000 gets no response', async () => {
    expect(await udpExchange(6000)).toBe('');
  });

  it('the server (no policy on the client) still reaches the client direction: client listens, server connects', async () => {
    tb.spawn(['socat', 'TCP4-LISTEN:7777,fork,reuseaddr', 'SYSTEM:true'], client.netns.name);
    await waitFor('client listening on :7777', async () => (await client.exec(['ss', '-ltnH'])).stdout.includes(':7777'), { timeoutMs: 30_000, intervalMs: 50 });
    const ok = await server.exec(['nc', '-z', '-n', '-w', '1', client.ip, '7777']).then(() => true, () => false);
    expect(ok).toBe(true);
  });

  it('securityops Reject: TCP 9090 does not connect and its SYN reaches the controller as a packet-in with userdata 01.04', async () => {
    const packets = conn.packetIns();
    const connected = await tcpConnects(9090);
    expect(connected).toBe(false);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error('no packet-in within 10 s')), 10_000)));
    const pin = (await Promise.race([packets.next(), timeout]).finally(() => clearTimeout(timer))).value as PacketIn;
    await packets.return?.();
    expect(pin.type).toBe('packetIn2');
    if (pin.type !== 'packetIn2') return;
    // Antrea: PacketInCategoryNP = 1, PacketInNPRejectOperation = 0b100.
    expect(Array.from(pin.userdata ?? [])).toEqual([0x01, 0x04]);
    // The packet is the client's TCP SYN to server:9090.
    const p = pin.packet;
    expect((p[12]! << 8) | p[13]!).toBe(0x0800);
    expect(p[23]).toBe(6);
    expect(Array.from(p.subarray(30, 34)).join('.')).toBe(server.ip);
    expect((p[36]! << 8) | p[37]!).toBe(9090);
    expect(p[47]! & 0x02).toBe(0x02); // SYN
    // The Reject rule's table travels in reg2 (PacketInTableField) for the agent's answer.
    expect(pin.metadata?.reg2).toBe(nf.pipeline.id('AntreaPolicyIngressRule'));
  });

  it('control: with the policies removed, every probe that was refused succeeds (the refusals came from the rules)', async () => {
    const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
    const open = nodeState(gwMac);
    open.policies = [];
    await conn.deleteFlows();
    await conn.installFlows(computeNodeFlows(open).flows);
    expect(await tcpOpens(7070)).toBe(true);
    expect(await tcpOpens(8081)).toBe(true);
    expect(await tcpOpens(9090)).toBe(true);
    expect(await udpExchange(5354)).toBe('ping-5354');
    expect(await udpExchange(6000)).toBe('ping-6000');
  });
});
