// An IPv6-only lab (issue 36): `switchyard-lab up --nodes 2 --ip-family ipv6`. Each node's only pod
// CIDR is fd00:10:<i>::/64 and its only underlay address fd00:77::<i> (its Node's only InternalIP;
// no IPv4 address on the node), so the Geneve tunnel runs over IPv6; pods get one IPv6 address and
// no IPv4 one. Pods on node1 reach a pod on node2 over IPv6 and back, and a capture on the fabric
// sees that traffic as Geneve over IPv6 between the node IPs and no IPv4 at all; a Service made
// without ipFamilies gets an IPv6 ClusterIP (the API server's only range) and is answered by
// endpoints on both nodes, while one asking for IPv4 is refused naming the field; the fabric host
// (fd00:77::fe) reaches a NodePort Service at each node's IPv6 underlay address (fd00:77::<i>),
// answered by endpoints on both nodes (Cluster) or by the node's own (Local); a NetworkPolicy
// whose peer is an IPv6 ipBlock with an `except` blocks the excepted pod and allows the other,
// with `yardctl policy explain` agreeing; an Antrea ClusterNetworkPolicy with an FQDN egress rule
// allows the address of an AAAA answer (a DNS pod answering over IPv6) and nothing else. One lab
// for every case, and a second one for WireGuard on IPv6-only nodes (WireGuard UDP over IPv6 alone on
// the fabric). Waits on state, never on time.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import type { KubeConfigClient } from '@switchyard/controller';
import { rendezvousOwner } from '@switchyard/agent';
import { run, start, waitFor } from '@switchyard/testbed';
import { FABRIC_HOST_V6, FABRIC_PREFIX_V6, labClient, readState, type LabNodeState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

const BIN = join(__dirname, '../bin/switchyard-lab');
const YARDCTL = join(__dirname, '../../../packages/cli/dist/bin.js');
/** The agent's FQDN test's DNS server (an authoritative responder reading a zone file on every query). */
const DNS_RESPONDER = join(__dirname, '../../../packages/agent/test-integration/dns-responder.cjs');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-v6only-'));
const zoneDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-v6only-zone-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 300_000 });
const POLICIES = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
const SERVICES = '/api/v1/namespaces/default/services';

let st: LabState;
/** Processes this file starts in pods (naming servers, the DNS responder), stopped by their handles. */
const procs: ChildProcess[] = [];
let kube: KubeConfigClient;
const netnsOf = new Map<string, string>();
const ipOf = new Map<string, string>();
/** Every address each pod's status lists. */
const podIPsOf = new Map<string, string[]>();

const pod = (name: string, nodeName: string, app: string, ports = [80]) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
  spec: { nodeName, containers: [{ name: 'c', image: 'x', ports: ports.map((containerPort) => ({ containerPort })) }] },
});
const PODS = [
  pod('ca', 'node1', 'client'), pod('cb', 'node1', 'client'), pod('srv', 'node2', 'srv'),
  pod('w1', 'node1', 'who'), pod('w2', 'node2', 'who'),
  // FQDN: the client under the ACNP, and the DNS server (no declared port: the responder has UDP 53).
  pod('cf', 'node1', 'fqdn-client', []), pod('dns', 'node2', 'dns', []),
];

/** The OVS run directory of a lab node (its `br-int.mgmt` socket), from its antrea-agent.conf. */
const ovsRunDirOf = (name: string): string => (YAML.parse(readFileSync(join(labDir, name, 'antrea-agent.conf'), 'utf8')) as { ovsRunDir: string }).ovsRunDir;

/** What a TCP exchange from a pod to [ip]:port read ('' when nothing answered). */
async function exchange(from: string, ip: string, port: number): Promise<string> {
  const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `TCP6:[${ip}]:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
  return r.stdout.trim();
}
const tcp = async (from: string, ip: string): Promise<boolean> => (await exchange(from, ip, 80)) === 'pong';
/** The controller's verdict for a flow over IPv6 (yardctl policy explain -o json). */
function explain(from: string, to: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'policy', 'explain', '--from', `default/${from}`, '--to', `default/${to}`, '--port', '80', '--ip-family', 'IPv6', '-o', 'json'], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`yardctl policy explain: ${stderr || err.message}`));
      resolve((JSON.parse(stdout) as { allowed: boolean }).allowed);
    });
  });
}
/** Waits until the probe gives `allowed` for the flow (policies realize asynchronously), explain() agreeing. */
async function expectFlow(from: string, to: string, allowed: boolean): Promise<void> {
  expect(await explain(from, to)).toBe(allowed);
  await waitFor(`${from} -> ${to} over IPv6 ${allowed ? 'allowed' : 'blocked'}`, async () => (await tcp(from, ipOf.get(to)!)) === allowed, { timeoutMs: 60_000, intervalMs: 250 });
}

beforeAll(async () => {
  lab('up', '--nodes', '2', '--ip-family', 'ipv6', '--proxy-all');
  st = readState(labDir)!;
  kube = labClient(st);
  for (const p of PODS) await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  await waitFor('pods with an address and a netns', async () => {
    const list = await kube.request<{ items: { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string; podIPs?: { ip: string }[] } }[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) {
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (p.status?.podIP && netns) {
        netnsOf.set(p.metadata.name, netns);
        ipOf.set(p.metadata.name, p.status.podIP);
        podIPsOf.set(p.metadata.name, (p.status.podIPs ?? []).map((x) => x.ip));
      }
    }
    return ipOf.size === PODS.length;
  }, { timeoutMs: 180_000, intervalMs: 250 });
}, 480_000);

afterAll(() => {
  for (const c of procs) c.kill();
  rmSync(zoneDir, { recursive: true, force: true });
  try {
    lab('down');
  } catch {
    /* the lab may not have come up */
  }
}, 120_000);

describe('an IPv6-only lab (--ip-family ipv6)', () => {
  it('gives each node the IPv6 pod CIDR alone and each pod one IPv6 address from its node, and no IPv4 address', async () => {
    expect(st.ipFamily).toBe('ipv6');
    expect(st.nodes.map((n) => [n.podCIDR, n.podCIDRv6])).toEqual([['fd00:10:1::/64', undefined], ['fd00:10:2::/64', undefined]]);
    const node = await kube.request<{ spec: { podCIDR: string; podCIDRs: string[] } }>('GET', '/api/v1/nodes/node2');
    expect([node.spec.podCIDR, node.spec.podCIDRs]).toEqual(['fd00:10:2::/64', ['fd00:10:2::/64']]);
    for (const p of PODS) {
      const name = p.metadata.name;
      expect(podIPsOf.get(name)).toEqual([ipOf.get(name)]);
      expect(ipOf.get(name)).toMatch(p.spec.nodeName === 'node1' ? /^fd00:10:1::/ : /^fd00:10:2::/);
    }
    // In the pod: an IPv6 address and default route on eth0, no IPv4 address but loopback's.
    const v4 = await run(['ip', 'netns', 'exec', netnsOf.get('srv')!, 'ip', '-4', '-o', 'addr', 'show']);
    expect(v4.stdout.trim().split('\n').filter((l) => !/ lo /.test(l))).toEqual([]);
    const routes6 = await run(['ip', 'netns', 'exec', netnsOf.get('srv')!, 'ip', '-6', 'route', 'show', 'default']);
    expect(routes6.stdout).toContain('via fd00:10:2::1');
  });

  it('pods reach a pod on the other node over IPv6, both ways', async () => {
    for (const from of ['ca', 'cb']) await expectFlow(from, 'srv', true);
    await waitFor('srv -> w1 over IPv6', () => tcp('srv', ipOf.get('w1')!), { timeoutMs: 60_000, intervalMs: 250 });
  });

  it('the tunnel runs over the IPv6 underlay: no IPv4 address on a node, the tunnel port\'s local_ip its IPv6 node IP, tun_ipv6_dst in its flows, the pods\' MTU 70 bytes under the link\'s; on the fabric, pod traffic is Geneve over IPv6 and nothing is IPv4', async () => {
    for (const [i, n] of st.nodes.entries()) {
      const peer = st.nodes[1 - i]!;
      expect(n.nodeIP).toBe(n.nodeIPv6);
      // Loopback's is the node's only IPv4 address.
      expect((await run(['ip', '-4', '-o', 'addr', 'show'], { netns: n.netns })).stdout.trim().split('\n').filter((l) => !/ lo /.test(l))).toEqual([]);
      expect((await run(['ovs-vsctl', `--db=${n.dbRemote}`, 'get', 'Interface', 'antrea-tun0', 'options:local_ip'])).stdout.trim()).toBe(`"${n.nodeIP}"`);
      const flows = (await run(['ovs-ofctl', '-O', 'OpenFlow15', '--no-stats', 'dump-flows', join(ovsRunDirOf(n.name), 'br-int.mgmt')])).stdout.split('\n');
      expect(flows.filter((l) => l.includes(`ipv6_dst=${peer.podCIDR}`) && l.includes('->tun_'))).toEqual([expect.stringContaining(`set_field:${peer.nodeIP}->tun_ipv6_dst`)]);
      expect(flows.filter((l) => /->tun_dst\b/.test(l))).toEqual([]);
    }
    expect((await run(['ip', '-o', 'link', 'show', 'eth0'], { netns: netnsOf.get('ca')! })).stdout).toContain(' mtu 1430 ');
    const pcap = join(zoneDir, 'fabric.pcap');
    // Every interface of the fabric netns (br0 and the nodes' ports; a packet may be seen more than once).
    const capture = start(['tcpdump', '-i', 'any', '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: st.fabricNetns });
    const stderr: string[] = [];
    capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
      // A few attempts each (a SYN retransmitted on a loaded machine is no miss); the first answer ends each.
      for (const from of ['ca', 'cb']) await waitFor(`${from} -> srv in the capture`, () => tcp(from, ipOf.get('srv')!), { timeoutMs: 30_000, intervalMs: 250 });
    } finally {
      const exited = new Promise((res) => capture.once('exit', res));
      capture.kill('SIGINT');
      await exited;
    }
    const lines = (await run(['tcpdump', '-nn', '-r', pcap])).stdout.split('\n').filter((l) => l.trim() !== '');
    const [n1, n2] = [st.nodes[0]!.nodeIP, st.nodes[1]!.nodeIP];
    const geneve = lines.filter((l) => new RegExp(` IP6 (${n1}|${n2})\\.\\d+ > (${n1}|${n2})\\.6081: Geneve`).test(l));
    // Each client's connection, both ways, inside Geneve over IPv6 between the node IPs.
    for (const from of ['ca', 'cb']) {
      expect(geneve.some((l) => l.includes(`IP6 ${n1}.`) && l.includes(`IP6 ${ipOf.get(from)!}.`) && l.includes(` > ${ipOf.get('srv')!}.80:`))).toBe(true);
      expect(geneve.some((l) => l.includes(`IP6 ${n2}.`) && l.includes(`IP6 ${ipOf.get('srv')!}.80 > ${ipOf.get(from)!}.`))).toBe(true);
    }
    // Nothing IPv4 on the underlay (no ARP either), and no pod packet outside the tunnel.
    expect(lines.filter((l) => / ARP, | IP \d/.test(l))).toEqual([]);
    expect(lines.filter((l) => !geneve.includes(l) && l.includes('fd00:10:'))).toEqual([]);
    process.stdout.write(`IPv6 underlay: ${geneve.length} Geneve-over-IPv6 packets of ${lines.length} on the fabric\n`);
  });

  it('yardctl traceflow between IPv6-only pods is IPv6 without asking: an ICMPv6 echo into the tunnel on node1, delivered by node2', async () => {
    const stdout = execFileSync(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', '-S', 'default/ca', '-D', 'default/srv', '-o', 'json'], { encoding: 'utf8', timeout: 60_000 });
    const tf = JSON.parse(stdout) as { spec: { packet?: { ipv6Header?: { nextHeader?: number } } }; status?: { phase?: string; results?: { role?: string; observations?: { action?: string; pod?: string }[] }[] } };
    expect(tf.spec.packet?.ipv6Header?.nextHeader).toBe(58);
    expect(tf.status?.phase).toBe('Succeeded');
    expect(tf.status?.results?.map((r) => [r.role, r.observations?.at(-1)?.action])).toEqual(expect.arrayContaining([['Sender', 'Forwarded'], ['Receiver', 'Delivered']]));
  });

  it('a NetworkPolicy with an IPv6 ipBlock except blocks the excepted pod and allows the other; explain agrees; deleting it restores', async () => {
    await kube.request('POST', POLICIES, {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'v6-block', namespace: 'default' },
      spec: {
        podSelector: { matchLabels: { app: 'srv' } }, policyTypes: ['Ingress'],
        ingress: [{ from: [{ ipBlock: { cidr: 'fd00:10::/32', except: [`${ipOf.get('ca')!}/128`] } }], ports: [{ protocol: 'TCP', port: 80 }] }],
      },
    });
    await expectFlow('ca', 'srv', false);
    await expectFlow('cb', 'srv', true);
    await kube.request('DELETE', `${POLICIES}/v6-block`);
    await expectFlow('ca', 'srv', true);
  });
});

describe('Services on an IPv6-only cluster', () => {
  let clusterIP = '';
  let families: string[] = [];

  beforeAll(async () => {
    // Each endpoint names itself on TCP 7100: one node process per pod (no process per connection).
    const NAMER = "const [name] = process.argv.slice(1); require('node:net').createServer((c) => { c.on('error', () => {}); c.resume(); c.end(name + '\\n'); }).listen({ host: '::', port: 7100, backlog: 1024 }, () => process.stdout.write('listening\\n'));";
    for (const name of ['w1', 'w2']) procs.push(spawn('ip', ['netns', 'exec', netnsOf.get(name)!, process.execPath, '-e', NAMER, name], { stdio: 'ignore' }));
    await waitFor('the naming servers listening', async () => {
      for (const name of ['w1', 'w2']) if (!(await run(['ip', 'netns', 'exec', netnsOf.get(name)!, 'ss', '-ltnH'])).stdout.includes(':7100')) return false;
      return true;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    // No ipFamilies: the cluster's only family.
    const o = await kube.request<{ spec: { clusterIP: string; ipFamilies: string[] } }>('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'who' },
      spec: { selector: { app: 'who' }, ports: [{ port: 80, targetPort: 7100 }] },
    });
    clusterIP = o.spec.clusterIP;
    families = o.spec.ipFamilies;
  }, 120_000);

  it('the API server gives a Service an IPv6 ClusterIP from fd00:10:96::/108 and refuses one asking for IPv4, naming the field', async () => {
    expect(families).toEqual(['IPv6']);
    expect(clusterIP).toMatch(/^fd00:10:96::/);
    const refused = await kube.request('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'who4' },
      spec: { selector: { app: 'who' }, ipFamilies: ['IPv4'], ports: [{ port: 80, targetPort: 7100 }] },
    }).then(() => undefined, (e: unknown) => e as { status: number; message: string });
    expect(refused?.status).toBe(422);
    expect(refused?.message).toContain('spec.ipFamilies[0]');
    expect(refused?.message).toContain('not configured on this cluster');
  });

  it('a pod reaches the Service through its IPv6 ClusterIP, answered by endpoints on both nodes', async () => {
    const seen = new Set<string>();
    await waitFor(`w1 and w2 through [${clusterIP}]:80`, async () => {
      seen.add(await exchange('ca', clusterIP, 80));
      return seen.has('w1') && seen.has('w2');
    }, { timeoutMs: 60_000, intervalMs: 100 });
  });
});

describe('node ports on IPv6-only nodes (from the fabric host over IPv6)', () => {
  const nodePorts = new Map<string, number>();

  /** Which pod answered at [ip]:port from the fabric host ('' when none did). */
  async function fromFabric(ip: string, port: number): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'socat', '-T2', '-', `TCP6:[${ip}]:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }
  /** Waits until every name in `want` answered at [ip]:port. */
  async function answeredBy(ip: string, port: number, want: string[]): Promise<void> {
    const seen = new Set<string>();
    await waitFor(`${want.join(' and ')} at [${ip}]:${port} from the fabric host`, async () => {
      seen.add(await fromFabric(ip, port));
      return want.every((w) => seen.has(w));
    }, { timeoutMs: 60_000, intervalMs: 100 });
  }

  beforeAll(async () => {
    // The naming servers (w1, w2 on TCP 7100) are the previous block's.
    for (const [name, policy] of [['np', 'Cluster'], ['np-local', 'Local']] as const) {
      const o = await kube.request<{ spec: { ports: { nodePort: number }[] } }>('POST', SERVICES, {
        apiVersion: 'v1', kind: 'Service', metadata: { name },
        spec: { type: 'NodePort', externalTrafficPolicy: policy, selector: { app: 'who' }, ports: [{ port: 80, targetPort: 7100 }] },
      });
      nodePorts.set(name, o.spec.ports[0]!.nodePort);
    }
  }, 60_000);

  it('each node has an IPv6 underlay address, as its Node\'s only InternalIP; the fabric host has one too', async () => {
    expect(st.nodes.map((n) => [n.nodeIP, n.nodeIPv6])).toEqual([['fd00:77::1', 'fd00:77::1'], ['fd00:77::2', 'fd00:77::2']]);
    const node = await kube.request<{ status: { addresses: { type: string; address: string }[] } }>('GET', '/api/v1/nodes/node2');
    expect(node.status.addresses.filter((a) => a.type === 'InternalIP').map((a) => a.address)).toEqual(['fd00:77::2']);
    expect((await run(['ip', 'netns', 'exec', st.fabricNetns, 'ip', '-6', 'addr', 'show', 'dev', 'br0'])).stdout).toContain(`${FABRIC_HOST_V6}/64`);
  });

  it('externalTrafficPolicy Cluster: every node\'s IPv6 address serves the node port, answered by endpoints on both nodes', async () => {
    for (const n of st.nodes) await answeredBy(n.nodeIPv6!, nodePorts.get('np')!, ['w1', 'w2']);
  });

  it('externalTrafficPolicy Local: each node\'s IPv6 address is answered by that node\'s endpoint only', async () => {
    const port = nodePorts.get('np-local')!;
    for (const [n, own] of [[st.nodes[0]!, 'w1'], [st.nodes[1]!, 'w2']] as const) {
      await answeredBy(n.nodeIPv6!, port, [own]);
      for (let i = 0; i < 6; i++) expect(await fromFabric(n.nodeIPv6!, port)).toBe(own);
    }
  });
});

describe('FQDN egress rules on IPv6-only nodes (AAAA)', () => {
  /** In the FQDN client: resolve a name (AAAA) with the DNS pod as the only server, then connect to the first address at once. */
  const RESOLVE_AND_CONNECT = `
const { Resolver } = require('node:dns').promises;
const net = require('node:net');
const [server, name] = process.argv.slice(1);
const r = new Resolver({ timeout: 2000, tries: 2 });
r.setServers([server]);
r.resolve6(name).then((ips) => {
  let data = '';
  const s = net.connect({ host: ips[0], port: 80, timeout: 2000 });
  s.on('data', (d) => (data += d));
  s.on('close', () => { console.log(ips[0] + ' ' + (data.trim() === 'pong' ? 'pong' : 'closed')); process.exit(0); });
  s.on('timeout', () => { console.log(ips[0] + ' timeout'); process.exit(0); });
  s.on('error', (e) => { console.log(ips[0] + ' ' + e.code); process.exit(0); });
}, (e) => { console.log('resolve-failed ' + e.code); process.exit(0); });
`;
  async function resolveAndConnect(name: string): Promise<{ ip: string; result: string }> {
    const r = await run(['ip', 'netns', 'exec', netnsOf.get('cf')!, process.execPath, '-e', RESOLVE_AND_CONNECT, `[${ipOf.get('dns')!}]`, name], { allowFailure: true, timeoutMs: 20_000 });
    const [ip = '', result = ''] = r.stdout.trim().split(' ');
    return { ip, result };
  }

  beforeAll(async () => {
    const zone = join(zoneDir, 'zone.json');
    writeFileSync(zone, JSON.stringify({ 'svc.example.test': { aaaa: [ipOf.get('srv')], ttl: 600 }, 'other.example.test': { aaaa: [ipOf.get('w2')], ttl: 600 } }));
    procs.push(spawn('ip', ['netns', 'exec', netnsOf.get('dns')!, process.execPath, DNS_RESPONDER, zone, '53'], { stdio: 'ignore' }));
    await waitFor('the DNS pod answering AAAA over IPv6', async () => (await resolveAndConnect('svc.example.test')).ip === ipOf.get('srv'), { timeoutMs: 30_000, intervalMs: 250 });
  }, 60_000);

  it('an ACNP allowing toFQDN svc.example.test lets the client reach the AAAA answer\'s address and nothing else', async () => {
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'fqdn-only' },
      spec: {
        priority: 5, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'fqdn-client' } } }],
        egress: [
          { action: 'Allow', name: 'dns', to: [{ podSelector: { matchLabels: { app: 'dns' } } }], ports: [{ protocol: 'UDP', port: 53 }] },
          { action: 'Allow', name: 'svc', to: [{ fqdn: 'svc.example.test' }] },
          { action: 'Drop', name: 'rest', to: [{ ipBlock: { cidr: '::/0' } }] },
        ],
      },
    });
    // Realized: the pod the name will resolve to is blocked while nothing resolved it under the policy.
    await waitFor('srv blocked from the FQDN client', async () => !(await tcp('cf', ipOf.get('srv')!)), { timeoutMs: 60_000, intervalMs: 250 });
    // Resolving lets the answer's address in (the agent reads the DNS answer before releasing it).
    await waitFor('srv reached right after resolving svc.example.test', async () => {
      const r = await resolveAndConnect('svc.example.test');
      return r.ip === ipOf.get('srv') && r.result === 'pong';
    }, { timeoutMs: 60_000, intervalMs: 500 });
    expect(await tcp('cf', ipOf.get('srv')!)).toBe(true);
    // Another name resolves (its answer is released) but gives no access, nor do other pods.
    expect(await resolveAndConnect('other.example.test')).toEqual({ ip: ipOf.get('w2'), result: 'timeout' });
    expect(await tcp('cf', ipOf.get('w1')!)).toBe(false);
  });
});

describe('proxyAll on IPv6-only nodes (up --proxy-all)', () => {
  let clusterIP = '';
  let nodePort = 0;
  const node1 = (): LabState['nodes'][number] => st.nodes[0]!;
  /** The line a server sent to node1's own namespace (its host processes) at [ip]:port ('' when none). */
  async function fromNode1(ip: string, port: number): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', node1().netns, 'socat', '-T2', '-', `TCP6:[${ip}]:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }
  /** Waits until both endpoints answered node1 at [ip]:port; answers the peer addresses they saw, in RFC 5952 form. */
  async function answeredByBoth(ip: string, port: number): Promise<Set<string>> {
    const seen = new Set<string>();
    const peers = new Set<string>();
    await waitFor(`w1 and w2 at [${ip}]:${port} from node1`, async () => {
      const [name = '', peer = ''] = (await fromNode1(ip, port)).split(' ');
      if (/^w[12]$/.test(name)) {
        seen.add(name);
        // socat gives the peer in full, in brackets; URL puts it in RFC 5952 form.
        peers.add(new URL(`http://${peer}/`).hostname);
      }
      return seen.has('w1') && seen.has('w2');
    }, { timeoutMs: 60_000, intervalMs: 100 });
    return peers;
  }

  beforeAll(async () => {
    // Endpoints telling who answered and whom they saw, on TCP 7101.
    for (const name of ['w1', 'w2']) procs.push(spawn('ip', ['netns', 'exec', netnsOf.get(name)!, 'socat', 'TCP6-LISTEN:7101,reuseaddr,fork', `SYSTEM:echo ${name} $SOCAT_PEERADDR`], { stdio: 'ignore' }));
    await waitFor('the peer-naming servers listening', async () => {
      for (const name of ['w1', 'w2']) if (!(await run(['ip', 'netns', 'exec', netnsOf.get(name)!, 'ss', '-ltnH'])).stdout.includes(':7101')) return false;
      return true;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const o = await kube.request<{ spec: { clusterIP: string; ports: { nodePort: number }[] } }>('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'px' },
      spec: { type: 'NodePort', selector: { app: 'who' }, ports: [{ port: 80, targetPort: 7101 }] },
    });
    clusterIP = o.spec.clusterIP;
    nodePort = o.spec.ports[0]!.nodePort;
  }, 60_000);

  it('node1 routes the IPv6 ClusterIP into its gateway; its own processes reach it through OVS from the gateway\'s IPv6 address, answered by endpoints on both nodes', async () => {
    expect(clusterIP).toMatch(/^fd00:10:96::/);
    // Without proxyAll the node has no route to the ClusterIP.
    await waitFor(`node1's route to [${clusterIP}] through the virtual Service address`, async () => (await run(['ip', 'netns', 'exec', node1().netns, 'ip', '-6', 'route', 'get', clusterIP], { allowFailure: true })).stdout.includes('via fc01::aabb:ccdd:eeff dev '), { timeoutMs: 30_000, intervalMs: 100 });
    // The node has no IPv4 pod CIDR and its gateway no IPv4 address: the source is the gateway's IPv6 one.
    expect([...await answeredByBoth(clusterIP, 80)]).toEqual([`[${node1().podCIDR.split('/')[0]!}1]`]);
  });

  it('node1\'s own processes reach the node port at its own and node2\'s IPv6 address, answered by endpoints on both nodes', async () => {
    // node1's own address: only the ip6tables node port rules on OUTPUT serve it (nothing listens there).
    for (const n of st.nodes) await answeredByBoth(n.nodeIPv6!, nodePort);
  });

  it('kube-proxy replacement: node1, node2 and a pod reach the API server through the kubernetes Service\'s IPv6 ClusterIP (its endpoint the fabric host\'s IPv6 address)', async () => {
    const k8s = await kube.request<{ spec: { clusterIP: string } }>('GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(k8s.spec.clusterIP).toMatch(/^fd00:10:96::/);
    const slice = await kube.request<{ addressType: string; endpoints: { addresses: string[] }[] }>('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect([slice.addressType, slice.endpoints[0]?.addresses]).toEqual(['IPv6', [FABRIC_HOST_V6]]);
    const token = /token:\s*(\S+)/.exec(readFileSync(st.kubeconfig, 'utf8'))![1]!;
    const version = async (netns: string): Promise<string> => {
      const r = await run(['ip', 'netns', 'exec', netns, 'curl', '-sk', '-g', '-m', '5', '-H', `Authorization: Bearer ${token}`, `https://[${k8s.spec.clusterIP}]/version`], { allowFailure: true, timeoutMs: 10_000 });
      return r.code === 0 ? (JSON.parse(r.stdout) as { gitVersion?: string }).gitVersion ?? '' : `curl exit ${r.code}`;
    };
    for (const netns of [st.nodes[0]!.netns, st.nodes[1]!.netns, netnsOf.get('ca')!]) {
      await waitFor(`GET /version through [${k8s.spec.clusterIP}]:443 from ${netns}`, async () => /^v1\.\d+/.test(await version(netns)), { timeoutMs: 30_000, intervalMs: 200 });
    }
  });
});

// Issue 36: Egress on IPv6-only nodes. An IPv6 ExternalIPPool on the underlay subnet and an Egress
// whose IP node2 owns (the rendezvous choice): node2 answers NDP for it by proxy and SNATs in the
// IPv6 zones; x6 on node1 is tunnelled to node2 (the same Geneve tunnel its pod traffic takes, over
// IPv6 to node2's IPv6 node IP) and the fabric host sees its connections from the Egress IP; a pod
// the Egress does not select is masqueraded to its node's IPv6 address as before.
describe('Egress on IPv6-only nodes (issue 36)', () => {
  const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';
  const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
  const PORT = 7220;
  const EGRESS_IP = Array.from({ length: 8 }, (_, i) => `${FABRIC_PREFIX_V6}:d${i + 8}`).find((ip) => rendezvousOwner(ip, ['node1', 'node2']) === 'node2')!;
  interface EgressObject { status?: { egressNode?: string; egressIP?: string; conditions?: { type: string; status: string }[] } }
  const status = async (): Promise<EgressObject['status']> => (await kube.request<EgressObject>('GET', `${EGRESSES}/eg6only`)).status;
  const node = (name: string): LabNodeState => st.nodes.find((n) => n.name === name)!;
  /** The source the fabric host saw for a new connection from the pod, in RFC 5952 text ('' when none got through). */
  async function seenFromFabric(from: string): Promise<string> {
    const answer = await exchange(from, FABRIC_HOST_V6, PORT);
    return answer.startsWith('from ') ? new URL(`http://[${answer.replace(/^from \[?|\]$/g, '')}]`).hostname.slice(1, -1) : '';
  }
  const proxied = async (name: string): Promise<boolean> => (JSON.parse((await run(['ip', '-6', '-j', 'neigh', 'show', 'proxy'], { netns: node(name).netns })).stdout || '[]') as { dst: string }[]).some((e) => e.dst === EGRESS_IP);

  beforeAll(async () => {
    procs.push(spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP6-LISTEN:${PORT},reuseaddr,fork`, 'SYSTEM:echo "from $SOCAT_PEERADDR"'], { stdio: 'ignore' }));
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('x6', 'node1', 'egress6only', []));
    await waitFor('pod x6 with an address and a netns', async () => {
      const p = await kube.request<{ metadata: { annotations?: Record<string, string> }; status?: { podIP?: string } }>('GET', '/api/v1/namespaces/default/pods/x6');
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (!p.status?.podIP || !netns) return false;
      netnsOf.set('x6', netns);
      ipOf.set('x6', p.status.podIP);
      return true;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    // Before the Egress: x6 leaves masqueraded to node1's IPv6 address.
    await waitFor('x6 seen from node1\'s IPv6 address', async () => (await seenFromFabric('x6')) === node('node1').nodeIPv6, { timeoutMs: 60_000, intervalMs: 250 });
  }, 120_000);

  afterAll(async () => {
    await kube.request('DELETE', `${EGRESSES}/eg6only`).catch(() => undefined);
    await kube.request('DELETE', `${POOLS}/egress6only-pool`).catch(() => undefined);
    await kube.request('DELETE', '/api/v1/namespaces/default/pods/x6').catch(() => undefined);
  }, 60_000);

  it('node2 owns the IPv6 Egress IP (status and IPAssigned, proxy NDP on node2 alone), and x6 on node1 reaches the fabric host from it; another pod is masqueraded as before', async () => {
    const t0 = Date.now();
    await kube.request('POST', POOLS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'egress6only-pool' },
      spec: { ipRanges: [{ start: `${FABRIC_PREFIX_V6}:d8`, end: `${FABRIC_PREFIX_V6}:df` }], nodeSelector: {} },
    });
    await kube.request('POST', EGRESSES, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'eg6only' },
      spec: { appliedTo: { podSelector: { matchLabels: { app: 'egress6only' } } }, externalIPPool: 'egress6only-pool', egressIP: EGRESS_IP },
    });
    await waitFor('status.egressNode node2 with IPAssigned', async () => {
      const s = await status();
      return s?.egressNode === 'node2' && s.egressIP === EGRESS_IP && s.conditions?.find((c) => c.type === 'IPAssigned')?.status === 'True';
    }, { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('node2 holds the proxy NDP entry', () => proxied('node2'), { timeoutMs: 30_000, intervalMs: 200 });
    expect(await proxied('node1')).toBe(false);
    await waitFor(`x6 seen from ${EGRESS_IP}`, async () => (await seenFromFabric('x6')) === EGRESS_IP, { timeoutMs: 60_000, intervalMs: 250 });
    process.stdout.write(`IPv6-only Egress: status, NDP and source after ${Date.now() - t0} ms\n`);
    expect(await seenFromFabric('cb')).toBe(node('node1').nodeIPv6);
    // node1 sends x6's packets into the tunnel to node2's IPv6 node IP (EgressMark); no Egress flow there is IPv4.
    const flows = (await run(['ovs-ofctl', '-O', 'OpenFlow15', '--no-stats', 'dump-flows', join(ovsRunDirOf('node1'), 'br-int.mgmt')])).stdout.split('\n').filter((l) => /table=(EgressMark|\d+),/.test(l) && l.includes(`ipv6_src=${ipOf.get('x6')!}`) && l.includes('->tun_'));
    expect(flows.join('\n')).toContain(`set_field:${node('node2').nodeIP}->tun_ipv6_dst`);
  });
});

// WireGuard on IPv6-only nodes: a second lab (`up --ip-family ipv6 --encryption wireGuard`), brought
// up once the first is down (one lab at a time on this machine). Each device has the other node as
// its peer at [its IPv6 node IP]:51820 with its IPv6 pod CIDR alone; pods on the two nodes reach each
// other over IPv6, and on the fabric that is WireGuard UDP over IPv6 between the node IPs only: no
// Geneve, no IPv4, no pod address.
describe('WireGuard on IPv6-only nodes (a second lab: --ip-family ipv6 --encryption wireGuard)', () => {
  const wgDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-v6wg-'));
  const wgLab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', wgDir, ...args], { encoding: 'utf8', timeout: 300_000 });
  let wst: LabState;
  const wpods = new Map<string, { ip: string; netns: string }>();
  const WG_PORT = 51820;
  /** `get=1` on a node's WireGuard device (its UAPI socket in the agent's data directory). */
  const deviceOf = async (node: string): Promise<string> =>
    (await run(['socat', '-', `UNIX-CONNECT:${join(wgDir, node, 'data', 'wireguard', 'run', 'switchyard-wg0.sock')}`], { input: 'get=1\n\n', timeoutMs: 5000 })).stdout;
  const pong = async (from: string, to: string): Promise<boolean> =>
    (await run(['socat', '-T2', '-', `TCP6:[${wpods.get(to)!.ip}]:80,connect-timeout=2`], { netns: wpods.get(from)!.netns, allowFailure: true, timeoutMs: 8000, input: '' })).stdout.trim() === 'pong';

  beforeAll(async () => {
    const t0 = performance.now();
    for (const c of procs) c.kill();
    lab('down');
    const t1 = performance.now();
    wgLab('up', '--nodes', '2', '--ip-family', 'ipv6', '--encryption', 'wireGuard');
    wst = readState(wgDir)!;
    const wkube = labClient(wst);
    for (const [name, nodeName] of [['g1', 'node1'], ['g2', 'node2']] as const) await wkube.request('POST', '/api/v1/namespaces/default/pods', pod(name, nodeName, 'wg'));
    await waitFor('pods with an address and a netns', async () => {
      const list = await wkube.request<{ items: { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }[] }>('GET', '/api/v1/namespaces/default/pods');
      for (const p of list.items) {
        const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
        if (p.status?.podIP && netns) wpods.set(p.metadata.name, { ip: p.status.podIP, netns });
      }
      return wpods.size === 2;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    process.stdout.write(`WireGuard lab: first lab down in ${((t1 - t0) / 1000).toFixed(1)} s, second up with its pods in ${((performance.now() - t1) / 1000).toFixed(1)} s\n`);
  }, 480_000);

  afterAll(() => {
    const t0 = performance.now();
    try {
      wgLab('down');
      process.stdout.write(`WireGuard lab down in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    } catch {
      /* the lab may not have come up */
    }
    rmSync(wgDir, { recursive: true, force: true });
  }, 120_000);

  it('each device has the other node at [its IPv6 node IP]:51820 with its IPv6 pod CIDR alone; pods reach each other over IPv6, and the fabric carries only WireGuard UDP over IPv6 between the node IPs', async () => {
    const [n1, n2] = wst.nodes as [LabNodeState, LabNodeState];
    for (const [self, peer] of [[n1, n2], [n2, n1]] as const) {
      await waitFor(`${self.name}'s device has ${peer.name} as its peer`, async () => (await deviceOf(self.name)).includes(`endpoint=[${peer.nodeIP}]:${WG_PORT}\n`), { timeoutMs: 60_000, intervalMs: 200 });
      const d = await deviceOf(self.name);
      expect(d.match(/^public_key=/gm)).toHaveLength(1);
      expect(d).toContain(`allowed_ip=${peer.podCIDR}\n`);
      expect(d).not.toMatch(/allowed_ip=\d/);
      expect((await run(['ip', '-4', '-o', 'addr', 'show'], { netns: self.netns })).stdout.trim().split('\n').filter((l) => !/ lo /.test(l))).toEqual([]);
    }
    // WireGuard's overhead (80, sized for an IPv6 outer header), not the tunnel's.
    expect((await run(['ip', '-o', 'link', 'show', 'eth0'], { netns: wpods.get('g1')!.netns })).stdout).toContain(' mtu 1420 ');
    const pcap = join(wgDir, 'fabric.pcap');
    const capture = start(['tcpdump', '-i', 'any', '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: wst.fabricNetns });
    const stderr: string[] = [];
    capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
      for (const [from, to] of [['g1', 'g2'], ['g2', 'g1']] as const) await waitFor(`${from} -> ${to} over IPv6 through WireGuard`, () => pong(from, to), { timeoutMs: 60_000, intervalMs: 250 });
    } finally {
      const exited = new Promise((res) => capture.once('exit', res));
      capture.kill('SIGINT');
      await exited;
    }
    const lines = (await run(['tcpdump', '-nn', '-r', pcap])).stdout.split('\n').filter((l) => l.trim() !== '');
    const wg = new RegExp(` IP6 (${n1.nodeIP}|${n2.nodeIP})\\.${WG_PORT} > (${n1.nodeIP}|${n2.nodeIP})\\.${WG_PORT}: UDP`);
    expect(lines.filter((l) => wg.test(l)).length).toBeGreaterThan(3);
    // Beside WireGuard, at most the underlay's own Neighbor Discovery and MLD: no Geneve, nothing IPv4, no pod address.
    expect(lines.filter((l) => !wg.test(l) && !/ ICMP6, (neighbor|multicast listener|router)/.test(l))).toEqual([]);
    for (const p of wpods.values()) expect(lines.filter((l) => l.includes(p.ip))).toEqual([]);
  });
});
