/**
 * Traceflow's data-plane half on a real switch: a node's flows plus the trace flows of one tag are
 * installed through SwitchConnection; a TCP SYN injected by packet-out with the tag in its DSCP
 * comes back as a Traceflow packet-in from the table that decided it (a K8s default drop, an
 * Antrea-native Drop's metric table, or Output for an allowed packet), while the same packet
 * untagged is dropped silently.
 */
import { Testbed, type OvsInstance } from '@switchyard/testbed';
import { SwitchConnection, type PacketIn } from '@switchyard/openflow';
import { NodePipeline, PACKETIN_CATEGORY, TRACEFLOW_TAGS, TraceflowTagField, parseCookie, CookieCategory, type NodeState } from '../src/index';

const BR = 'br-int';
const CONTROLLER_ID = 62373;
const TAG = TRACEFLOW_TAGS[3]!;
const A = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.0.10'], mac: '02:00:00:00:00:0a' };
const B = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.0.11'], mac: '02:00:00:00:00:0b' };

let tb: Testbed;
let ovs: OvsInstance;
let conn: SwitchConnection;
let np: NodePipeline;

function nodeState(): NodeState {
  const none = { addressGroups: [], ipBlocks: [] };
  return {
    config: { round: 1, trafficMode: 'noEncap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableProxy: false, enableAntreaPolicy: true },
    pods: [A, B], remoteNodes: [],
    addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }], appliedToGroups: [{ name: 'tb', groupMembers: [{ ips: B.ips }] }],
    // B accepts TCP 80 from A; everything else to B meets the K8s default drop; an ACNP drops TCP 9000 from A first.
    policies: [{
      uid: 'k', name: 'k', namespace: 'ns', generation: 1, appliedToGroups: ['tb'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k', uid: 'k' },
      rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: none, services: [{ protocol: 'TCP', port: 80 }], priority: 0, enableLogging: false }],
    }, {
      uid: 'c', name: 'c', namespace: '', generation: 1, appliedToGroups: ['tb'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'c', uid: 'c' },
      rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: none, services: [{ protocol: 'TCP', port: 9000 }], action: 'Drop', priority: 0, enableLogging: false }],
    }],
  };
}

/** One's-complement sum of 16-bit words. */
function csum(bytes: Uint8Array, init = 0): number {
  let s = init;
  for (let i = 0; i < bytes.length; i += 2) s += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}

const ip4 = (s: string): number[] => s.split('.').map(Number);

/** An Ethernet + IPv4 + TCP SYN from A to B, checksums right (userspace conntrack checks them). */
function syn(dport: number): Uint8Array {
  const tcp = new Uint8Array(20);
  const v = new DataView(tcp.buffer);
  v.setUint16(0, 40000);
  v.setUint16(2, dport);
  v.setUint32(4, 1);
  tcp[12] = 5 << 4;
  tcp[13] = 0x02; // SYN
  v.setUint16(14, 64240);
  const pseudo = Uint8Array.from([...ip4(A.ips[0]!), ...ip4(B.ips[0]!), 0, 6, 0, 20]);
  v.setUint16(16, csum(Uint8Array.from([...pseudo, ...tcp])));
  const ip = Uint8Array.from([0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, ...ip4(A.ips[0]!), ...ip4(B.ips[0]!)]);
  new DataView(ip.buffer).setUint16(10, csum(ip));
  const mac = (m: string): number[] => m.split(':').map((x) => parseInt(x, 16));
  return Uint8Array.from([...mac(B.mac), ...mac(A.mac), 0x08, 0x00, ...ip, ...tcp]);
}

/** The next packet-in within `ms`, or undefined. */
async function nextPacketIn(packets: AsyncIterator<PacketIn>, ms: number): Promise<PacketIn | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), ms)));
  const r = await Promise.race([packets.next().then((x) => x.value as PacketIn), timeout]);
  clearTimeout(timer);
  return r;
}

/** Injects the SYN from A's port (tagged or not) and returns the packet-in it causes, if any. */
async function inject(dport: number, tagged: boolean): Promise<PacketIn | undefined> {
  const packets = conn.packetIns();
  const actions = [...(tagged ? [TraceflowTagField.load(TAG)] : []), { type: 'output' as const, port: 'TABLE' as const }];
  await conn.packetOut(syn(dport), actions, A.ofport);
  const pin = await nextPacketIn(packets, tagged ? 10_000 : 1_000);
  await packets.return?.();
  return pin;
}

/** Injects the tagged SYN and returns its packet-in, which must be a Traceflow packet-in (userdata TF). */
async function traced(dport: number): Promise<Extract<PacketIn, { type: 'packetIn2' }>> {
  const pin = await inject(dport, true);
  if (pin?.type !== 'packetIn2') throw new Error(`no NXT_PACKET_IN2 for TCP ${dport}: ${pin?.type ?? 'none within 10 s'}`);
  expect(Array.from(pin.userdata ?? [])).toEqual([PACKETIN_CATEGORY.TF]);
  return pin;
}

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  for (const p of [A, B]) await ovs.vsctl('add-port', BR, `p${p.ofport}`, '--', 'set', 'interface', `p${p.ofport}`, 'type=internal', `ofport_request=${p.ofport}`);
  conn = await SwitchConnection.connect({ target: { path: ovs.mgmtSocket(BR) }, controllerId: CONTROLLER_ID, reconnect: false });
  np = new NodePipeline({ controllerId: CONTROLLER_ID });
  np.update(nodeState());
  await conn.deleteFlows();
  for (const g of np.groups()) await conn.flowLike({ type: 'groupMod', command: 'add', ...g });
  await conn.installFlows([...np.flows(), ...np.traceFlows(TAG)]);
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await tb?.cleanup();
});

describe('a tagged packet-out is reported where the pipeline decides it', () => {
  it('installs the node\'s flows and the tag\'s trace flows side by side', async () => {
    const installed = await conn.dumpFlows({});
    expect(installed.length).toBe(np.flows().length + np.traceFlows(TAG).length);
    expect(installed.filter((f) => f.cookie !== undefined && parseCookie(f.cookie).category === CookieCategory.Traceflow).length).toBe(np.traceFlows(TAG).length);
  });

  it('denied by the K8s default drop (TCP 8080 to B): a Traceflow packet-in from IngressDefaultRule, the tag in the packet', async () => {
    const pin = await traced(8080);
    expect(pin.tableId).toBe(np.pipeline!.id('IngressDefaultRule'));
    expect(pin.packet[15]! >> 2).toBe(TAG); // DSCP of the IP header
  });

  it('allowed (TCP 80 to B): a Traceflow packet-in from Output, with B\'s port in the target register', async () => {
    const pin = await traced(80);
    expect(pin.tableId).toBe(np.pipeline!.id('Output'));
    expect(pin.metadata?.reg1).toBe(B.ofport);
  });

  it('denied by an Antrea-native Drop rule (TCP 9000): a Traceflow packet-in from IngressMetric, the rule\'s conj id in APConjIDField', async () => {
    const pin = await traced(9000);
    expect(pin.tableId).toBe(np.pipeline!.id('IngressMetric'));
    expect(pin.metadata?.reg3).toBe(np.conjIds().get('c/0'));
  });

  it('the same denied packet untagged: dropped, no packet-in', async () => {
    expect(await inject(8080, false)).toBeUndefined();
  });
});
