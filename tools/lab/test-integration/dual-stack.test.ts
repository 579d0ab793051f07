// A dual-stack lab (issue 36): `switchyard-lab up --nodes 2 --ip-family dual`. Each node has an
// IPv4 and an IPv6 (fd00:10:<i>::/64) pod CIDR; pods get both addresses (status.podIPs). Pods on
// node1 reach a pod on node2 over IPv6 and IPv4 through the tunnel; a K8s NetworkPolicy whose
// ingress peer is an IPv6 ipBlock with an `except` blocks the excepted pod over IPv6 and allows the
// other, and deleting it restores; `yardctl policy explain --ip-family IPv6` agrees with each
// probe. AntreaProxy over both families: a dual-stack Service answers through its IPv6 and its
// IPv4 ClusterIP from endpoints on both nodes, an IPv6-only Service through its IPv6 ClusterIP,
// and an IPv6 ipBlock except on the endpoints applies to the Service's IPv6 traffic. Node ports
// over IPv6: each node has an IPv6 underlay address (fd00:77::<i>), and the fabric host
// (fd00:77::fe) reaches a dual-stack NodePort Service at each node's IPv6 and IPv4 address,
// answered by endpoints on both nodes (externalTrafficPolicy Cluster) or by the node's own
// (Local), and an IPv6 externalIP the fabric routes to node2. The lab runs proxyAll: a node's own
// processes reach an IPv6 ClusterIP and IPv6 node ports through OVS (from the gateway's IPv6
// address), and the health-check node port of an externalTrafficPolicy Local LoadBalancer answers
// over IPv6 and IPv4. LoadBalancer IPs over IPv6 (ServiceExternalIP on): an IPv6 ExternalIPPool on the underlay subnet gives a dual-stack Service
// an IPv6 ingress IP, its owner answers for it by proxy NDP and the fabric host reaches it; taking
// the owner out of the pool's nodeSelector moves the entry, the other node's unsolicited Neighbor
// Advertisement moves the fabric host's cache, and the traffic follows. Egress over IPv6: a pod on
// node1 selected by an Egress whose IPv6 IP (an IPv6 pool) node2 owns reaches the fabric host from
// that IP, and from it through node1 while node2's agent is stopped; with a bandwidth node2 meters
// its IPv6 packets, and yardctl traceflow shows the Egress hop over IPv6 on both nodes. A manual
// IPv6 Egress IP moved by hand: the new holder's unsolicited Neighbor Advertisement moves the fabric
// host's cache. One lab for every case.
// Waits on state, never on time.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rendezvousOwner } from '@switchyard/agent';
import type { KubeConfigClient } from '@switchyard/controller';
import { run, waitFor } from '@switchyard/testbed';
import { FABRIC_HOST_V6, FABRIC_PREFIX, FABRIC_PREFIX_V6, labClient, readState, startAgent, stopAgent, type LabNodeState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet } from '../src/probe';

const BIN = join(__dirname, '../bin/switchyard-lab');
const YARDCTL = join(__dirname, '../../../packages/cli/dist/bin.js');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-dual-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 300_000 });
const POLICIES = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';

let st: LabState;
/** The naming servers this file starts in the Service's pods (stopped by their handles). */
const servers: ChildProcess[] = [];
let kube: KubeConfigClient;
const netnsOf = new Map<string, string>();
const ipsOf = new Map<string, { v4: string; v6: string }>();

const pod = (name: string, nodeName: string, app: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
  spec: { nodeName, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] },
});
/** One TCP exchange from a pod to port 80 (IPv6 when the address is); true when the server answered. */
async function tcp(from: string, ip: string): Promise<boolean> {
  const target = ip.includes(':') ? `TCP6:[${ip}]:80` : `TCP4:${ip}:80`;
  const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
  return r.stdout.trim() === 'pong';
}
/** The controller's verdict for a flow (yardctl policy explain -o json). */
function explain(from: string, to: string, family: 'IPv4' | 'IPv6'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'policy', 'explain', '--from', `default/${from}`, '--to', `default/${to}`, '--port', '80', '--ip-family', family, '-o', 'json'], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`yardctl policy explain: ${stderr || err.message}`));
      resolve((JSON.parse(stdout) as { allowed: boolean }).allowed);
    });
  });
}
/** Waits until the probe and explain() both give `allowed` for the flow (the policy realizes asynchronously). */
async function expectFlow(from: string, to: string, family: 'IPv4' | 'IPv6', allowed: boolean): Promise<void> {
  const ip = family === 'IPv6' ? ipsOf.get(to)!.v6 : ipsOf.get(to)!.v4;
  expect(await explain(from, to, family)).toBe(allowed);
  await waitFor(`${from} -> ${to} over ${family} ${allowed ? 'allowed' : 'blocked'}`, async () => (await tcp(from, ip)) === allowed, { timeoutMs: 60_000, intervalMs: 250 });
}

beforeAll(async () => {
  // EgressSeparateSubnet (alpha, off by default) for the IPv6 subnet block; it changes nothing for pools without subnetInfo.
  lab('up', '--nodes', '2', '--ip-family', 'dual', '--proxy-all', '--feature-gates', 'ServiceExternalIP=true,EgressSeparateSubnet=true,EgressTrafficShaping=true');
  st = readState(labDir)!;
  kube = labClient(st);
  for (const p of [pod('ca', 'node1', 'client'), pod('cb', 'node1', 'client'), pod('srv', 'node2', 'srv'), pod('w1', 'node1', 'who'), pod('w2', 'node2', 'who')]) {
    await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  }
  await waitFor('pods with both addresses and a netns', async () => {
    const list = await kube.request<{ items: { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIPs?: { ip: string }[] } }[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) {
      const ips = (p.status?.podIPs ?? []).map((x) => x.ip);
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (ips.length === 2 && netns) {
        netnsOf.set(p.metadata.name, netns);
        ipsOf.set(p.metadata.name, { v4: ips[0]!, v6: ips[1]! });
      }
    }
    return ipsOf.size === 5;
  }, { timeoutMs: 120_000, intervalMs: 250 });
}, 420_000);

afterAll(() => {
  for (const c of servers) c.kill();
  try {
    lab('down');
  } catch {
    /* the lab may not have come up */
  }
}, 120_000);

describe('a dual-stack lab (--ip-family dual)', () => {
  it('gives the nodes an IPv6 pod CIDR and the pods an address of each family from their node', () => {
    expect(st.ipFamily).toBe('dual');
    expect(st.nodes.map((n) => [n.podCIDR, n.podCIDRv6])).toEqual([
      ['10.10.1.0/24', 'fd00:10:1::/64'],
      ['10.10.2.0/24', 'fd00:10:2::/64'],
    ]);
    expect(ipsOf.get('ca')!.v6).toMatch(/^fd00:10:1::/);
    expect(ipsOf.get('srv')!.v6).toMatch(/^fd00:10:2::/);
    expect(ipsOf.get('srv')!.v4).toMatch(/^10\.10\.2\./);
  });

  it('pods reach a pod on the other node over IPv6 and IPv4', async () => {
    for (const from of ['ca', 'cb']) {
      await expectFlow(from, 'srv', 'IPv6', true);
      await expectFlow(from, 'srv', 'IPv4', true);
    }
  });

  it('a NetworkPolicy with an IPv6 ipBlock except blocks the excepted pod over IPv6 and allows the other; deleting it restores', async () => {
    const except = `${ipsOf.get('ca')!.v6}/128`;
    await kube.request('POST', POLICIES, {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'v6-block', namespace: 'default' },
      spec: {
        podSelector: { matchLabels: { app: 'srv' } }, policyTypes: ['Ingress'],
        ingress: [{ from: [{ ipBlock: { cidr: 'fd00:10::/32', except: [except] } }], ports: [{ protocol: 'TCP', port: 80 }] }],
      },
    });
    await expectFlow('ca', 'srv', 'IPv6', false);
    await expectFlow('cb', 'srv', 'IPv6', true);
    // The only peer is IPv6: over IPv4 the isolated pod admits neither client.
    await expectFlow('cb', 'srv', 'IPv4', false);
    await kube.request('DELETE', `${POLICIES}/v6-block`);
    await expectFlow('ca', 'srv', 'IPv6', true);
    await expectFlow('cb', 'srv', 'IPv4', true);
  });
});

describe('Services over IPv6 and IPv4 (AntreaProxy in both families)', () => {
  const SERVICES = '/api/v1/namespaces/default/services';
  let dual: string[] = [];
  let only6 = '';

  /** Which pod answered through `ip`:80 from `from` ('' when none did). */
  async function who(from: string, ip: string): Promise<string> {
    const target = ip.includes(':') ? `TCP6:[${ip}]:80` : `TCP4:${ip}:80`;
    const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }

  beforeAll(async () => {
    // Each endpoint names itself on TCP 7100 (an IPv6 socket, which takes IPv4 too).
    for (const name of ['w1', 'w2']) {
      const c = spawn('ip', ['netns', 'exec', netnsOf.get(name)!, 'socat', 'TCP6-LISTEN:7100,reuseaddr,fork', `SYSTEM:echo ${name}`], { stdio: 'ignore' });
      servers.push(c);
    }
    await waitFor('the naming servers listening', async () => {
      for (const name of ['w1', 'w2']) if (!(await run(['ip', 'netns', 'exec', netnsOf.get(name)!, 'ss', '-ltnH'])).stdout.includes(':7100')) return false;
      return true;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const svc = async (name: string, families: string[]): Promise<string[]> => {
      const o = await kube.request<{ spec: { clusterIPs: string[] } }>('POST', SERVICES, {
        apiVersion: 'v1', kind: 'Service', metadata: { name },
        spec: { selector: { app: 'who' }, ipFamilies: families, ipFamilyPolicy: families.length > 1 ? 'RequireDualStack' : 'SingleStack', ports: [{ port: 80, targetPort: 7100 }] },
      });
      return o.spec.clusterIPs;
    };
    dual = await svc('who', ['IPv6', 'IPv4']);
    [only6 = ''] = await svc('who6', ['IPv6']);
  }, 120_000);

  it('the API server gives the dual-stack Service an IPv6 (primary) and an IPv4 ClusterIP, the IPv6-only one an IPv6 ClusterIP', () => {
    expect(dual.map((ip) => ip.includes(':'))).toEqual([true, false]);
    expect(only6).toMatch(/^fd00:10:96::/);
  });

  it('a pod reaches the dual-stack Service over IPv6 and over IPv4, answered by endpoints on both nodes', async () => {
    for (const ip of dual) {
      const seen = new Set<string>();
      await waitFor(`w1 and w2 through ${ip}:80`, async () => {
        seen.add(await who('ca', ip));
        return seen.has('w1') && seen.has('w2');
      }, { timeoutMs: 60_000, intervalMs: 100 });
    }
  });

  it('a pod reaches the IPv6-only Service through its IPv6 ClusterIP', async () => {
    await waitFor(`an endpoint through [${only6}]:80`, async () => ['w1', 'w2'].includes(await who('cb', only6)), { timeoutMs: 60_000, intervalMs: 250 });
  });

  it('an IPv6 ipBlock except on the endpoints applies to the Service\'s IPv6 traffic; deleting it restores', async () => {
    await kube.request('POST', POLICIES, {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'v6-svc-block', namespace: 'default' },
      spec: {
        podSelector: { matchLabels: { app: 'who' } }, policyTypes: ['Ingress'],
        ingress: [{ from: [{ ipBlock: { cidr: 'fd00:10::/32', except: [`${ipsOf.get('ca')!.v6}/128`] } }], ports: [{ protocol: 'TCP', port: 7100 }] }],
      },
    });
    // The DNATed connection meets the endpoints' ingress rules with the client's own IPv6 address.
    await waitFor('ca blocked through the IPv6-only Service', async () => (await who('ca', only6)) === '', { timeoutMs: 60_000, intervalMs: 250 });
    // Blocked on every attempt (either endpoint), while cb is let through.
    for (let i = 0; i < 4; i++) expect(await who('ca', only6)).toBe('');
    await waitFor('cb through the IPv6-only Service', async () => ['w1', 'w2'].includes(await who('cb', only6)), { timeoutMs: 60_000, intervalMs: 250 });
    await kube.request('DELETE', `${POLICIES}/v6-svc-block`);
    await waitFor('ca through the IPv6-only Service again', async () => ['w1', 'w2'].includes(await who('ca', only6)), { timeoutMs: 60_000, intervalMs: 250 });
  });
});

describe('node ports over IPv6 (a dual-stack NodePort Service, from the fabric host)', () => {
  const SERVICES = '/api/v1/namespaces/default/services';
  const nodePorts = new Map<string, number>();

  /** Which pod answered at `ip`:`port` from the fabric host ('' when none did). */
  async function fromFabric(ip: string, port: number): Promise<string> {
    const target = ip.includes(':') ? `TCP6:[${ip}]:${port}` : `TCP4:${ip}:${port}`;
    const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }
  /** Waits until `want` (every name in it) answered at ip:port; returns every name seen. */
  async function answeredBy(ip: string, port: number, want: string[]): Promise<Set<string>> {
    const seen = new Set<string>();
    await waitFor(`${want.join(' and ')} at ${ip.includes(':') ? `[${ip}]` : ip}:${port} from the fabric host`, async () => {
      seen.add(await fromFabric(ip, port));
      return want.every((w) => seen.has(w));
    }, { timeoutMs: 60_000, intervalMs: 100 });
    return seen;
  }

  beforeAll(async () => {
    // The naming servers (w1, w2 on TCP 7100) are the previous block's.
    for (const [name, policy] of [['np', 'Cluster'], ['np-local', 'Local']] as const) {
      const o = await kube.request<{ spec: { ports: { nodePort: number }[] } }>('POST', SERVICES, {
        apiVersion: 'v1', kind: 'Service', metadata: { name },
        spec: { type: 'NodePort', externalTrafficPolicy: policy, selector: { app: 'who' }, ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80, targetPort: 7100 }] },
      });
      nodePorts.set(name, o.spec.ports[0]!.nodePort);
    }
  }, 60_000);

  it('each node has an IPv6 underlay address, as its Node\'s second InternalIP; the fabric host has one too', async () => {
    expect(st.nodes.map((n) => n.nodeIPv6)).toEqual(['fd00:77::1', 'fd00:77::2']);
    const node = await kube.request<{ status: { addresses: { type: string; address: string }[] } }>('GET', '/api/v1/nodes/node1');
    expect(node.status.addresses.filter((a) => a.type === 'InternalIP').map((a) => a.address)).toEqual(['192.168.77.1', 'fd00:77::1']);
    expect((await run(['ip', 'netns', 'exec', st.fabricNetns, 'ip', '-6', 'addr', 'show', 'dev', 'br0'])).stdout).toContain(`${FABRIC_HOST_V6}/64`);
  });

  it('externalTrafficPolicy Cluster: every node\'s IPv6 address serves the node port, answered by endpoints on both nodes; its IPv4 address still does', async () => {
    const port = nodePorts.get('np')!;
    for (const n of st.nodes) {
      await answeredBy(n.nodeIPv6!, port, ['w1', 'w2']);
      await answeredBy(n.nodeIP, port, ['w1', 'w2']);
    }
  });

  it('an IPv6 externalIP routed by the fabric to node2 is answered by endpoints on both nodes', async () => {
    const ext = 'fd00:78::64';
    await kube.request('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext6' },
      spec: { selector: { app: 'who' }, ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack', externalIPs: [ext], ports: [{ port: 80, targetPort: 7100 }] },
    });
    // As a network routes an externalIP to a node: the fabric host's route through node2's IPv6 address.
    await run(['ip', 'netns', 'exec', st.fabricNetns, 'ip', '-6', 'route', 'replace', `${ext}/128`, 'via', st.nodes[1]!.nodeIPv6!, 'dev', 'br0']);
    await answeredBy(ext, 80, ['w1', 'w2']);
  });

  it('externalTrafficPolicy Local: each node\'s IPv6 address is answered by that node\'s endpoint only', async () => {
    const port = nodePorts.get('np-local')!;
    for (const [n, own] of [[st.nodes[0]!, 'w1'], [st.nodes[1]!, 'w2']] as const) {
      await answeredBy(n.nodeIPv6!, port, [own]);
      // No SNAT and the local group only: the other node's endpoint never answers here.
      for (let i = 0; i < 6; i++) expect(await fromFabric(n.nodeIPv6!, port)).toBe(own);
    }
  });
});

describe('proxyAll and the health-check node port over IPv6', () => {
  const SERVICES = '/api/v1/namespaces/default/services';
  let clusterIP = '';
  let nodePort = 0;
  const node1 = (): LabState['nodes'][number] => st.nodes[0]!;

  /** One TCP exchange from node1's own namespace (its host processes): the line the server sent ('' when none). */
  async function fromNode1(ip: string, port: number): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', node1().netns, 'socat', '-T2', '-', `TCP6:[${ip}]:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }
  /** HTTP GET from the fabric host: status code and body. */
  async function httpFromFabric(ip: string, port: number): Promise<{ code: number; body: string }> {
    const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'curl', '-s', '-m', '3', '-g', '-w', '\n%{http_code}', `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}/`], { allowFailure: true, timeoutMs: 8000 });
    const lines = r.stdout.trim().split('\n');
    return { code: Number(lines.pop()), body: lines.join('\n') };
  }

  beforeAll(async () => {
    // Endpoints telling who answered and whom they saw, on TCP 7101.
    for (const name of ['w1', 'w2']) {
      servers.push(spawn('ip', ['netns', 'exec', netnsOf.get(name)!, 'socat', 'TCP6-LISTEN:7101,reuseaddr,fork', `SYSTEM:echo ${name} $SOCAT_PEERADDR`], { stdio: 'ignore' }));
    }
    await waitFor('the peer-naming servers listening', async () => {
      for (const name of ['w1', 'w2']) if (!(await run(['ip', 'netns', 'exec', netnsOf.get(name)!, 'ss', '-ltnH'])).stdout.includes(':7101')) return false;
      return true;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const o = await kube.request<{ spec: { clusterIP: string; ports: { nodePort: number }[] } }>('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'peer6' },
      spec: { type: 'NodePort', selector: { app: 'who' }, ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 80, targetPort: 7101 }] },
    });
    clusterIP = o.spec.clusterIP;
    nodePort = o.spec.ports[0]!.nodePort;
  }, 60_000);

  it('proxyAll: node1\'s own processes reach an IPv6 ClusterIP through OVS (from its gateway\'s IPv6 address), answered by endpoints on both nodes, and IPv6 node ports at its own and node2\'s address', async () => {
    // The host routes the ClusterIP into the gateway (without proxyAll the node has no route to it).
    await waitFor(`node1's route to [${clusterIP}] through the virtual Service address`, async () => (await run(['ip', 'netns', 'exec', node1().netns, 'ip', '-6', 'route', 'get', clusterIP], { allowFailure: true })).stdout.includes('via fc01::aabb:ccdd:eeff dev '), { timeoutMs: 30_000, intervalMs: 100 });
    const gw6 = `[${node1().podCIDRv6!.split('/')[0]!}1]`;
    const seen = new Set<string>();
    await waitFor(`w1 and w2 through [${clusterIP}]:80 from node1`, async () => {
      const a = await fromNode1(clusterIP, 80);
      if (a !== '') {
        // Its connection leaves by the gateway with the gateway's IPv6 address (routed back by every node);
        // socat gives it in full, in brackets, which URL puts in RFC 5952 form.
        const [name = '', peer = ''] = a.split(' ');
        expect([name, new URL(`http://${peer}/`).hostname]).toEqual([expect.stringMatching(/^w[12]$/), gw6]);
        seen.add(name);
      }
      return seen.has('w1') && seen.has('w2');
    }, { timeoutMs: 60_000, intervalMs: 100 });
    // node1's own IPv6 address: only the node port rules on OUTPUT serve it (nothing listens there).
    for (const n of st.nodes) {
      await waitFor(`[${n.nodeIPv6!}]:${nodePort} from node1`, async () => /^w[12] /.test(await fromNode1(n.nodeIPv6!, nodePort)), { timeoutMs: 30_000, intervalMs: 100 });
    }
  });

  it('the health-check node port of an externalTrafficPolicy Local LoadBalancer answers over IPv6 and IPv4 with the node\'s local endpoint count', async () => {
    const o = await kube.request<{ spec: { healthCheckNodePort?: number } }>('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'hc-local' },
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { app: 'who' }, ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80, targetPort: 7100 }] },
    });
    const hc = o.spec.healthCheckNodePort!;
    expect(hc).toBeGreaterThanOrEqual(30000);
    for (const n of st.nodes) {
      for (const ip of [n.nodeIPv6!, n.nodeIP]) {
        await waitFor(`health check at ${ip}:${hc} answering 200`, async () => (await httpFromFabric(ip, hc)).code === 200, { timeoutMs: 30_000, intervalMs: 200 });
        expect(JSON.parse((await httpFromFabric(ip, hc)).body)).toEqual({ service: { namespace: 'default', name: 'hc-local' }, localEndpoints: 1, serviceProxyHealthy: true });
      }
    }
  });
});

describe('a LoadBalancer Service with an IPv6 ingress IP from an ExternalIPPool, announced by proxy NDP (ServiceExternalIP)', () => {
  const SERVICES = '/api/v1/namespaces/default/services';
  const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
  // On the underlay subnet, above the nodes' fd00:77::<i> and below the fabric host's ::fe.
  const RANGE = { start: `${FABRIC_PREFIX_V6}:c8`, end: `${FABRIC_PREFIX_V6}:cf` };
  let ip = '';
  let owner: LabNodeState;
  let other: LabNodeState;

  interface ExternalIPInfo { externalIP: string; assignedNode: string }
  const nodeNamed = (name: string): LabNodeState => st.nodes.find((n) => n.name === name)!;
  /** The owner every agent reports for the Service's IP ('' while they disagree or none is named). */
  async function reportedOwner(): Promise<string> {
    const owners = await Promise.all(st.nodes.map(async (n) => (await agentGet<ExternalIPInfo[]>(n.apiSocket, '/serviceexternalip?namespace=default&name=lb6').catch(() => []))[0]?.assignedNode ?? ''));
    return owners.every((o) => o === owners[0]) ? (owners[0] ?? '') : '';
  }
  /** The IPv6 proxy neighbours of a node (`ip -6 neigh show proxy`), as `<ip> <dev>`. */
  async function proxyEntries(n: LabNodeState): Promise<string[]> {
    const out = (await run(['ip', '-6', '-j', 'neigh', 'show', 'proxy'], { netns: n.netns })).stdout;
    return (JSON.parse(out || '[]') as { dst: string; dev: string }[]).map((e) => `${e.dst} ${e.dev}`);
  }
  const brPhyMac = async (n: LabNodeState): Promise<string> => (JSON.parse((await run(['ip', '-j', 'link', 'show', 'br-phy'], { netns: n.netns })).stdout) as { address: string }[])[0]!.address;
  /** The MAC the fabric host holds for the IP (undefined: no entry, or not resolved). */
  async function fabricNeighbour(): Promise<string | undefined> {
    const out = (await run(['ip', '-6', '-j', 'neigh', 'show', ip], { netns: st.fabricNetns })).stdout;
    return (JSON.parse(out || '[]') as { lladdr?: string }[])[0]?.lladdr;
  }
  /** Which pod answered at [ip]:80 from the fabric host ('' when none did). */
  async function fromFabric(): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'socat', '-T2', '-', `TCP6:[${ip}]:80,connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }

  beforeAll(async () => {
    await kube.request('POST', POOLS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'lb6-pool' },
      spec: { ipRanges: [RANGE], nodeSelector: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node1', 'node2'] }] } },
    });
    // The naming servers (w1, w2 on TCP 7100) are the Services block's.
    await kube.request('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb6', annotations: { 'service.antrea.io/external-ip-pool': 'lb6-pool' } },
      // PreferDualStack: the pool has no IPv4 range, so the Service gets its IPv6 IP alone (RequireDualStack would get none).
      spec: { type: 'LoadBalancer', selector: { app: 'who' }, ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80, targetPort: 7100 }] },
    });
  }, 60_000);

  it('the dual-stack Service gets an IPv6 ingress IP from the pool', async () => {
    await waitFor('the ingress IP', async () => {
      const svc = await kube.request<{ status?: { loadBalancer?: { ingress?: { ip?: string }[] } } }>('GET', `${SERVICES}/lb6`);
      ip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? '';
      return ip !== '';
    }, { timeoutMs: 30_000, intervalMs: 200 });
    expect(ip).toMatch(/^fd00:77::c[89a-f]$/);
  });

  it('its owner alone holds a proxy NDP entry on br-phy, and the fabric host reaches endpoints on both nodes through the owner\'s MAC', async () => {
    let name = '';
    await waitFor('both agents to name one owner', async () => (name = await reportedOwner()) !== '', { timeoutMs: 30_000, intervalMs: 200 });
    owner = nodeNamed(name);
    other = st.nodes.find((n) => n !== owner)!;
    await waitFor(`${owner.name}'s proxy NDP entry`, async () => (await proxyEntries(owner)).includes(`${ip} br-phy`), { timeoutMs: 30_000, intervalMs: 200 });
    expect(await proxyEntries(other)).toEqual([]);
    const seen = new Set<string>();
    await waitFor(`w1 and w2 at [${ip}]:80 from the fabric host`, async () => {
      seen.add(await fromFabric());
      return seen.has('w1') && seen.has('w2');
    }, { timeoutMs: 60_000, intervalMs: 100 });
    expect(await fabricNeighbour()).toBe(await brPhyMac(owner));
    expect((await run(['ip', '-6', 'neigh', 'show', 'proxy'], { netns: owner.netns })).stdout).toContain(ip);
    expect((await run(['cat', '/proc/sys/net/ipv6/conf/br-phy/proxy_ndp'], { netns: owner.netns })).stdout.trim()).toBe('1');
  });

  it('out of the pool\'s nodeSelector, the owner lets go: the entry moves, the new owner\'s Neighbor Advertisement moves the fabric host\'s cache with no traffic sent, and the traffic follows', async () => {
    const pool = await kube.request<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>('GET', `${POOLS}/lb6-pool`);
    const t0 = Date.now();
    await kube.request('PUT', `${POOLS}/lb6-pool`, { ...pool, spec: { ...pool.spec, nodeSelector: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [other.name] }] } } });
    await waitFor(`the proxy NDP entry on ${other.name} alone`, async () => (await proxyEntries(other)).includes(`${ip} br-phy`) && (await proxyEntries(owner)).length === 0, { timeoutMs: 30_000, intervalMs: 100 });
    // Nothing solicits in between: only the unsolicited advertisement can change the fabric host's entry.
    const otherMac = await brPhyMac(other);
    await waitFor(`the fabric host's entry for ${ip} on ${other.name}'s MAC`, async () => (await fabricNeighbour()) === otherMac, { timeoutMs: 30_000, intervalMs: 100 });
    process.stdout.write(`IPv6 LoadBalancer IP moved from ${owner.name} to ${other.name} (nodeSelector): fabric host's neighbour entry moved after ${Date.now() - t0} ms\n`);
    expect(await reportedOwner()).toBe(other.name);
    const seen = new Set<string>();
    await waitFor(`w1 and w2 at [${ip}]:80 through ${other.name}`, async () => {
      seen.add(await fromFabric());
      return seen.has('w1') && seen.has('w2');
    }, { timeoutMs: 60_000, intervalMs: 100 });
    expect(await fabricNeighbour()).toBe(otherMac);
  });

  afterAll(async () => {
    await kube.request('DELETE', `${SERVICES}/lb6`).catch(() => undefined);
    await kube.request('DELETE', `${POOLS}/lb6-pool`).catch(() => undefined);
  }, 30_000);
});

describe('pod traffic leaving the cluster over IPv6 (masqueraded by ip6tables)', () => {
  const PORT = 7200;
  beforeAll(async () => {
    // A fabric-host server that answers with the address the connection came from.
    const c = spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP6-LISTEN:${PORT},reuseaddr,fork`, 'SYSTEM:echo "from $SOCAT_PEERADDR"'], { stdio: 'ignore' });
    servers.push(c);
    await waitFor('the fabric host server listening', async () => (await run(['ip', 'netns', 'exec', st.fabricNetns, 'ss', '-Hltn', `sport = :${PORT}`], { allowFailure: true })).stdout.includes(`:${PORT}`), { timeoutMs: 30_000, intervalMs: 200 });
  }, 60_000);

  it('a pod reaches the fabric host\'s IPv6 address, which sees its node\'s IPv6 address, not the pod\'s', async () => {
    for (const [from, node] of [['ca', 0], ['srv', 1]] as const) {
      let answer = '';
      await waitFor(`${from} -> [${FABRIC_HOST_V6}]:${PORT}`, async () => {
        const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `TCP6:[${FABRIC_HOST_V6}]:${PORT},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
        answer = r.stdout.trim();
        return answer.startsWith('from ');
      }, { timeoutMs: 60_000, intervalMs: 250 });
      // socat writes the address in full (fd00:0077:0000:...): compared in RFC 5952 text.
      const seen = new URL(`http://[${answer.replace(/^from \[?|\]$/g, '')}]`).hostname;
      expect(seen).toBe(`[${st.nodes[node]!.nodeIPv6}]`);
      expect(seen).not.toBe(`[${ipsOf.get(from)!.v6}]`);
    }
  });
});

describe('Egress over IPv6: a pod on node1 leaves from an IPv6 Egress IP that node2 owns (issue 36)', () => {
  const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';
  const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
  const PORT = 7200; // the fabric host's address-reporting server (the masquerade block's)
  /** The first address of the pool's range that the agents place on node2 while both nodes are up. */
  const EGRESS_IP = Array.from({ length: 8 }, (_, i) => `${FABRIC_PREFIX_V6}:d${i}`).find((ip) => rendezvousOwner(ip, ['node1', 'node2']) === 'node2')!;
  interface EgressObject { status?: { egressNode?: string; egressIP?: string; conditions?: { type: string; status: string }[] } }
  const status = async (): Promise<EgressObject['status']> => (await kube.request<EgressObject>('GET', `${EGRESSES}/eg6`)).status;
  /** The source the fabric host saw for a new IPv6 connection from the pod, in RFC 5952 text ('' when none got through). */
  async function seenFromFabric(from: string): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `TCP6:[${FABRIC_HOST_V6}]:${PORT},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    const answer = r.stdout.trim();
    return answer.startsWith('from ') ? new URL(`http://[${answer.replace(/^from \[?|\]$/g, '')}]`).hostname.slice(1, -1) : '';
  }
  /** The source w2 (node2) saw for a new IPv6 connection from the pod, as its 7101 server reports it. */
  async function seenByW2(from: string): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `TCP6:[${ipsOf.get('w2')!.v6}]:7101,connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    const [name, addr] = r.stdout.trim().split(' ');
    return name === 'w2' && addr ? new URL(`http://[${addr.replace(/^\[|\]$/g, '')}]`).hostname.slice(1, -1) : '';
  }

  beforeAll(async () => {
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('e6', 'node1', 'egress6'));
    await waitFor('pod e6 with both addresses and a netns', async () => {
      const p = await kube.request<{ metadata: { annotations?: Record<string, string> }; status?: { podIPs?: { ip: string }[] } }>('GET', '/api/v1/namespaces/default/pods/e6');
      const ips = (p.status?.podIPs ?? []).map((x) => x.ip);
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (ips.length !== 2 || !netns) return false;
      netnsOf.set('e6', netns);
      ipsOf.set('e6', { v4: ips[0]!, v6: ips[1]! });
      return true;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    // Before the Egress: e6 leaves masqueraded to node1's IPv6 address (the ip6tables path).
    await waitFor('e6 seen from node1\'s IPv6 address', async () => (await seenFromFabric('e6')) === st.nodes[0]!.nodeIPv6, { timeoutMs: 60_000, intervalMs: 250 });
    await kube.request('POST', POOLS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'egress6-pool' },
      spec: { ipRanges: [{ start: `${FABRIC_PREFIX_V6}:d0`, end: `${FABRIC_PREFIX_V6}:d7` }], nodeSelector: {} },
    });
    await kube.request('POST', EGRESSES, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'eg6' },
      spec: { appliedTo: { podSelector: { matchLabels: { app: 'egress6' } } }, externalIPPool: 'egress6-pool', egressIP: EGRESS_IP },
    });
  }, 120_000);

  afterAll(async () => {
    // The Traceflow block after this one expects the pods' IPv6 traffic masqueraded as before.
    await kube.request('DELETE', `${EGRESSES}/eg6`).catch(() => undefined);
    await kube.request('DELETE', '/api/v1/namespaces/default/pods/e6').catch(() => undefined);
  }, 60_000);

  it('node2 owns the IPv6 Egress IP: status.egressNode node2 with IPAssigned, and node2 alone answers NDP for it', async () => {
    await waitFor('status.egressNode node2 with IPAssigned', async () => {
      const s = await status();
      return s?.egressNode === 'node2' && s.egressIP === EGRESS_IP && s.conditions?.find((c) => c.type === 'IPAssigned')?.status === 'True';
    }, { timeoutMs: 60_000, intervalMs: 200 });
    const proxied = async (n: LabNodeState): Promise<boolean> => (JSON.parse((await run(['ip', '-6', '-j', 'neigh', 'show', 'proxy'], { netns: n.netns })).stdout || '[]') as { dst: string }[]).some((e) => e.dst === EGRESS_IP);
    await waitFor('node2 holds the proxy NDP entry', () => proxied(st.nodes[1]!), { timeoutMs: 30_000, intervalMs: 200 });
    expect(await proxied(st.nodes[0]!)).toBe(false);
  });

  it('e6 (node1) reaches the fabric host over IPv6, which sees the Egress IPv6 as source; a pod on node2 still sees e6\'s own address', async () => {
    await waitFor(`e6 seen from ${EGRESS_IP}`, async () => (await seenFromFabric('e6')) === EGRESS_IP, { timeoutMs: 60_000, intervalMs: 250 });
    expect(await seenByW2('e6')).toBe(ipsOf.get('e6')!.v6);
    // A pod the Egress does not select leaves as before.
    expect(await seenFromFabric('cb')).toBe(st.nodes[0]!.nodeIPv6);
  });

  it('node2\'s agent stopped: node1 takes the IPv6 Egress IP and e6 leaves from it through node1; node2 back takes it again', async () => {
    await stopAgent(labDir, 'node2', 'SIGTERM');
    try {
      await waitFor(`status.egressNode node1 and e6 seen from ${EGRESS_IP}`, async () => (await status())?.egressNode === 'node1' && (await seenFromFabric('e6')) === EGRESS_IP, { timeoutMs: 90_000, intervalMs: 300 });
    } finally {
      await startAgent(labDir, 'node2');
    }
    await waitFor(`status.egressNode node2 again and e6 seen from ${EGRESS_IP}`, async () => (await status())?.egressNode === 'node2' && (await seenFromFabric('e6')) === EGRESS_IP, { timeoutMs: 90_000, intervalMs: 300 });
  });

  it('a bandwidth on the IPv6 Egress: node2 meters its IPv6 packets (EgressQoS), an IPv6 iperf3 stream holds the rate; yardctl traceflow over IPv6 shows the Egress hop on both nodes, metered or not', async () => {
    const IPERF_PORT = 5206;
    const RATE_MBPS = 10;
    const mgmtOf = (n: string): string => join(/ovsRunDir:\s*(\S+)/.exec(execFileSync('cat', [join(labDir, n, 'antrea-agent.conf')], { encoding: 'utf8' }))![1]!, 'br-int.mgmt');
    const ofctl = async (n: string, ...argv: string[]): Promise<string> => (await run(['ovs-ofctl', '-O', 'OpenFlow13', ...argv, mgmtOf(n)])).stdout;
    /** The meter an IPv6 EgressQoS flow names on the node (its Egress mark in reg10), or undefined. */
    const meterOf = async (n: string): Promise<number | undefined> => {
      const m = /ipv6,reg10=\S+ actions=meter:(\d+)/.exec(await ofctl(n, 'dump-flows'));
      return m ? Number(m[1]) : undefined;
    };
    const band = async (id: number): Promise<string | undefined> => {
      const out = await ofctl('node2', 'dump-meters');
      const at = out.search(new RegExp(`meter=${id}\\s`));
      return at < 0 ? undefined : /type=drop (rate=\d+ burst_size=\d+)/.exec(out.slice(at))?.[1];
    };
    const setBandwidth = async (bandwidth: { rate: string; burst: string } | undefined): Promise<void> => {
      for (;;) {
        const eg = await kube.request<{ spec: Record<string, unknown> }>('GET', `${EGRESSES}/eg6`);
        const spec = { ...eg.spec };
        if (bandwidth) spec.bandwidth = bandwidth;
        else delete spec.bandwidth;
        try {
          return void (await kube.request('PUT', `${EGRESSES}/eg6`, { ...eg, spec }));
        } catch (e) {
          if ((e as { status?: number }).status !== 409) throw e;
        }
      }
    };
    interface Traced { status?: { phase?: string; results?: { node?: string; role?: string; observations?: Record<string, unknown>[] }[] } }
    const trace = (): Traced => JSON.parse(execFileSync(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', '-S', 'default/e6', '-D', FABRIC_HOST_V6, '-f', `tcp6,tcp_dst=${PORT}`, '-o', 'json'], { encoding: 'utf8', timeout: 60_000 })) as Traced;
    const hops = [
      { node: 'node1', role: 'Sender', observations: [
        { component: 'SpoofGuard', action: 'Forwarded' },
        { component: 'Egress', action: 'ForwardedToEgressNode', egress: 'eg6', egressIP: EGRESS_IP, egressNode: 'node2' },
        { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: st.nodes[1]!.nodeIP },
      ] },
      { node: 'node2', role: 'Receiver', observations: [
        { component: 'Forwarding', componentInfo: 'Classification', action: 'Received' },
        { component: 'Egress', action: 'MarkedForSNAT', egress: 'eg6', egressIP: EGRESS_IP, egressNode: 'node2' },
        { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: EGRESS_IP },
      ] },
    ];
    const byNode = (tf: Traced) => (tf.status?.results ?? []).map((r) => ({ node: r.node, role: r.role, observations: r.observations })).sort((a, b) => (a.node ?? '').localeCompare(b.node ?? ''));
    const unmetered = trace();
    expect(unmetered.status?.phase).toBe('Succeeded');
    expect(byNode(unmetered)).toEqual(hops);

    servers.push(spawn('ip', ['netns', 'exec', st.fabricNetns, 'iperf3', '-s', '-B', FABRIC_HOST_V6, '-p', String(IPERF_PORT)], { stdio: 'ignore' }));
    const iperf = async (seconds: number): Promise<number> => {
      const r = await run(['ip', 'netns', 'exec', netnsOf.get('e6')!, 'iperf3', '-6', '-c', FABRIC_HOST_V6, '-p', String(IPERF_PORT), '-t', String(seconds), '-O', '2', '-J'], { allowFailure: true, timeoutMs: (seconds + 60) * 1000 });
      const res = JSON.parse(r.stdout || '{}') as { end?: { sum_received?: { bits_per_second: number } }; error?: string };
      if (!res.end?.sum_received) throw new Error(`iperf3 from e6 failed (exit ${r.code}): ${res.error ?? r.stderr}`);
      return res.end.sum_received.bits_per_second / 1e6;
    };
    try {
      await setBandwidth({ rate: `${RATE_MBPS}M`, burst: `${RATE_MBPS}M` });
      let id: number | undefined;
      await waitFor('eg6\'s meter in node2\'s IPv6 EgressQoS flow, at 10,000 kbit/s', async () => (id = await meterOf('node2')) !== undefined && (await band(id)) === 'rate=10000 burst_size=10000', { timeoutMs: 60_000, intervalMs: 200 });
      // node1 tunnels e6's packets unmetered: the owner meters them.
      expect(await meterOf('node1')).toBeUndefined();
      const metered = trace();
      expect(metered.status?.phase).toBe('Succeeded');
      expect(byNode(metered)).toEqual(hops);
      await waitFor('the IPv6 iperf3 server answers', async () => iperf(1).then(() => true, () => false), { timeoutMs: 60_000, intervalMs: 500 });
      const mbps = await iperf(5);
      process.stdout.write(`IPv6 Egress bandwidth ${RATE_MBPS}M: e6 (node1, tunnelled to node2) ${mbps.toFixed(2)} Mbit/s received by the fabric host\n`);
      expect(Math.abs(mbps - RATE_MBPS)).toBeLessThanOrEqual(0.1 * RATE_MBPS);
      // The meter saw the IPv6 stream and dropped what was over the rate.
      const stats = await ofctl('node2', 'meter-stats');
      expect(Number(new RegExp(`meter:${id!}[\\s\\S]*?0: packet_count:(\\d+)`).exec(stats)?.[1] ?? 0)).toBeGreaterThan(0);
    } finally {
      await setBandwidth(undefined);
    }
    await waitFor('no IPv6 Egress meter on node2', async () => (await meterOf('node2')) === undefined, { timeoutMs: 60_000, intervalMs: 200 });
  }, 240_000);
});

describe('Traceflow over IPv6 (yardctl traceflow, issue 36)', () => {
  interface Traced { status?: { phase?: string; reason?: string; results?: { node?: string; role?: string; observations?: Record<string, string>[] }[] } }
  /** `yardctl traceflow ... -o json`: the finished Traceflow. */
  const trace = (...args: string[]): Promise<Traced> =>
    new Promise((resolve, reject) => {
      execFile(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', ...args, '-o', 'json'], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
        if (!stdout.trim().startsWith('{')) return reject(new Error(`yardctl traceflow ${args.join(' ')}: ${stderr || err?.message}`));
        resolve(JSON.parse(stdout) as Traced);
      });
    });
  const last = (tf: Traced, role: string): Record<string, string> | undefined => tf.status?.results?.find((r) => r.role === role)?.observations?.at(-1);

  it('between dual-stack pods on two nodes: tcp6 goes into the tunnel on node1 and is delivered by node2; without ipv6 the same pods trace over IPv4', async () => {
    const v6 = await trace('-S', 'default/ca', '-D', 'default/srv', '-f', 'tcp6,tcp_dst=80');
    expect([v6.status?.phase, v6.status?.reason]).toEqual(['Succeeded', undefined]);
    expect(last(v6, 'Sender')).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: st.nodes[1]!.nodeIP });
    expect(last(v6, 'Receiver')).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'default/srv' });
    const v4 = await trace('-S', 'default/ca', '-D', 'default/srv', '-f', 'tcp,tcp_dst=80');
    expect([v4.status?.phase, last(v4, 'Receiver')?.action]).toEqual(['Succeeded', 'Delivered']);
  });

  it('an ICMPv6 echo to the fabric host\'s IPv6 address leaves the overlay on node1, masqueraded to node1\'s IPv6 address; the table view shows the IPv6 addresses', async () => {
    const out = await trace('-S', 'default/ca', '-D', FABRIC_HOST_V6);
    expect(out.status?.phase).toBe('Succeeded');
    expect(last(out, 'Sender')).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: st.nodes[0]!.nodeIPv6 });
    const table = execFileSync(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', '-S', 'default/ca', '-D', 'default/srv', '-f', 'udp6,udp_dst=53'], { encoding: 'utf8', timeout: 60_000 });
    expect(table).toContain(ipsOf.get('ca')!.v6);
    expect(table).toContain(ipsOf.get('srv')!.v6);
    expect(table).toMatch(/node2 \(Receiver\)[\s\S]*Delivered/);
  });
});

describe('a dual-stack LoadBalancer Service with an IPv4 and an IPv6 ingress IP from one ExternalIPPool (ServiceExternalIP)', () => {
  const SERVICES = '/api/v1/namespaces/default/services';
  const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
  // On the underlay subnets, apart from the other blocks' ranges (c8-cf, d0-d7). IPv6 first: each
  // family's IP comes from that family's ranges, whatever their order.
  const RANGES = [{ start: `${FABRIC_PREFIX_V6}:e0`, end: `${FABRIC_PREFIX_V6}:e7` }, { start: `${FABRIC_PREFIX}.230`, end: `${FABRIC_PREFIX}.237` }];
  let ips: string[] = [];

  interface ExternalIPInfo { externalIP: string; assignedNode: string }
  /** The owner every agent reports for `ip` ('' while they disagree or none is named). */
  async function reportedOwner(ip: string): Promise<string> {
    const owners = await Promise.all(st.nodes.map(async (n) => (await agentGet<ExternalIPInfo[]>(n.apiSocket, '/serviceexternalip?namespace=default&name=lb-ds').catch(() => [])).find((e) => e.externalIP === ip)?.assignedNode ?? ''));
    return owners.every((o) => o === owners[0]) ? (owners[0] ?? '') : '';
  }
  const v6 = (ip: string): boolean => ip.includes(':');
  /** The proxy neighbours (proxy ARP for IPv4, proxy NDP for IPv6) of a node, as `<ip> <dev>`. */
  async function proxyEntries(n: LabNodeState, ip: string): Promise<string[]> {
    const out = (await run(['ip', v6(ip) ? '-6' : '-4', '-j', 'neigh', 'show', 'proxy'], { netns: n.netns })).stdout;
    return (JSON.parse(out || '[]') as { dst: string; dev: string }[]).map((e) => `${e.dst} ${e.dev}`);
  }
  const brPhyMac = async (n: LabNodeState): Promise<string> => (JSON.parse((await run(['ip', '-j', 'link', 'show', 'br-phy'], { netns: n.netns })).stdout) as { address: string }[])[0]!.address;
  /** The MAC the fabric host holds for `ip` (undefined: no entry, or not resolved). */
  async function fabricNeighbour(ip: string): Promise<string | undefined> {
    const out = (await run(['ip', v6(ip) ? '-6' : '-4', '-j', 'neigh', 'show', ip], { netns: st.fabricNetns })).stdout;
    return (JSON.parse(out || '[]') as { lladdr?: string }[])[0]?.lladdr;
  }
  /** Which pod answered at ip:80 from the fabric host ('' when none did). */
  async function fromFabric(ip: string): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'socat', '-T2', '-', `${v6(ip) ? `TCP6:[${ip}]` : `TCP4:${ip}`}:80,connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.stdout.trim();
  }

  beforeAll(async () => {
    await kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'lb-ds-pool' }, spec: { ipRanges: RANGES, nodeSelector: {} } });
    // The naming servers (w1, w2 on TCP 7100, both families) are the Services block's.
    await kube.request('POST', SERVICES, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb-ds', annotations: { 'service.antrea.io/external-ip-pool': 'lb-ds-pool' } },
      spec: { type: 'LoadBalancer', selector: { app: 'who' }, ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80, targetPort: 7100 }] },
    });
  }, 60_000);

  afterAll(async () => {
    await kube.request('DELETE', `${SERVICES}/lb-ds`).catch(() => undefined);
    await kube.request('DELETE', `${POOLS}/lb-ds-pool`).catch(() => undefined);
  }, 30_000);

  it('the Service gets one ingress IP per family from the pool, in the order of spec.ipFamilies', async () => {
    await waitFor('two ingress IPs', async () => {
      const svc = await kube.request<{ status?: { loadBalancer?: { ingress?: { ip?: string }[] } } }>('GET', `${SERVICES}/lb-ds`);
      ips = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? '');
      return ips.length === 2;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    expect(ips[0]).toMatch(new RegExp(`^${FABRIC_PREFIX.replace(/\./g, '\\.')}\\.23[0-7]$`));
    expect(ips[1]).toMatch(/^fd00:77::e[0-7]$/);
  });

  it('each IP\'s owner alone announces it (proxy ARP for IPv4, proxy NDP for IPv6), and the fabric host reaches the Service at both, answered by endpoints on both nodes through the owner\'s MAC', async () => {
    for (const ip of ips) {
      let name = '';
      await waitFor(`both agents to name one owner of ${ip}`, async () => (name = await reportedOwner(ip)) !== '', { timeoutMs: 30_000, intervalMs: 200 });
      const owner = st.nodes.find((n) => n.name === name)!;
      const other = st.nodes.find((n) => n !== owner)!;
      await waitFor(`${owner.name}'s proxy entry for ${ip}`, async () => (await proxyEntries(owner, ip)).includes(`${ip} br-phy`), { timeoutMs: 30_000, intervalMs: 200 });
      expect((await proxyEntries(other, ip)).filter((e) => e.startsWith(`${ip} `))).toEqual([]);
      const seen = new Set<string>();
      await waitFor(`w1 and w2 at ${ip}:80 from the fabric host`, async () => {
        seen.add(await fromFabric(ip));
        return seen.has('w1') && seen.has('w2');
      }, { timeoutMs: 60_000, intervalMs: 100 });
      expect(await fabricNeighbour(ip)).toBe(await brPhyMac(owner));
    }
  });
});

// Issue 36, the rest of Egress over IPv6 on dual-stack nodes: an IPv6 Egress IP without a pool
// (Antrea's manual mode: the address put on node2's br-phy by hand makes node2 the egress node; OVS
// SNATs to a stand-in and one ip6tables rule SNATs that to the IP; moved by hand to node1, the status
// and the source follow), and an IPv6 pool with subnetInfo
// (EgressSeparateSubnet: the owner's `ip -6 rule` into a table whose default route goes via the
// subnet's IPv6 gateway, the fabric host's second address; a far server on the fabric host's
// loopback that no node has a route to is reached only that way).
describe('Egress over IPv6 without a pool and through a separate IPv6 subnet (issue 36)', () => {
  const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';
  const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
  const PORT = 7210;
  const FAR_PORT = 7211;
  const MANUAL_IP = `${FABRIC_PREFIX_V6}:f0`;
  const GATEWAY = 'fd00:80::1';
  const FAR_SERVER = '2001:db8:100::10';
  const SUB_IP = Array.from({ length: 8 }, (_, i) => `fd00:80::2${i}`).find((ip) => rendezvousOwner(ip, ['node1', 'node2']) === 'node2')!;
  interface EgressObject { status?: { egressNode?: string; egressIP?: string; conditions?: { type: string }[] } }
  const status = async (name: string): Promise<EgressObject['status']> => (await kube.request<EgressObject>('GET', `${EGRESSES}/${name}`)).status;
  /** The source a fabric-host server saw for a new IPv6 connection from the pod, in RFC 5952 text ('' when none got through). */
  async function seen(from: string, ip: string, port: number): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', netnsOf.get(from)!, 'socat', '-T2', '-', `TCP6:[${ip}]:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    const answer = r.stdout.trim();
    return answer.startsWith('from ') ? new URL(`http://[${answer.replace(/^from \[?|\]$/g, '')}]`).hostname.slice(1, -1) : '';
  }
  const node = (name: string): LabNodeState => st.nodes.find((n) => n.name === name)!;
  const inNode = async (name: string, cmd: string): Promise<string> => (await run(['sh', '-c', cmd], { netns: node(name).netns })).stdout.trim();
  const proxied = async (name: string, ip: string): Promise<boolean> => (JSON.parse((await run(['ip', '-6', '-j', 'neigh', 'show', 'proxy'], { netns: node(name).netns })).stdout || '[]') as { dst: string }[]).some((e) => e.dst === ip);
  /** The node's IPv6 source rule for the subnet IP and its table (`ip -6 rule`, `ip -6 route show table`). */
  async function subnetState(name: string): Promise<{ rule: boolean; table: string }> {
    const m = new RegExp(`from ${SUB_IP} lookup (\\d+)`).exec(await inNode(name, 'ip -6 rule show'));
    return { rule: m !== null, table: m ? await inNode(name, `ip -6 route show table ${m[1]!}`) : '' };
  }
  const fabric = (...args: string[]): Promise<unknown> => run(['ip', ...args], { netns: st.fabricNetns });
  const brPhyMac = async (name: string): Promise<string> => (JSON.parse((await run(['ip', '-j', 'link', 'show', 'br-phy'], { netns: node(name).netns })).stdout) as { address: string }[])[0]!.address;
  /** The MAC the fabric host holds for the manual IP (undefined: no entry, or not resolved). */
  const fabricNeighbour = async (): Promise<string | undefined> => (JSON.parse((await run(['ip', '-6', '-j', 'neigh', 'show', MANUAL_IP], { netns: st.fabricNetns })).stdout || '[]') as { lladdr?: string }[])[0]?.lladdr;

  beforeAll(async () => {
    // Fabric-host servers answering with the peer address: one on every address, one on the far address only.
    servers.push(spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP6-LISTEN:${PORT},reuseaddr,fork`, 'SYSTEM:echo "from $SOCAT_PEERADDR"'], { stdio: 'ignore' }));
    await fabric('addr', 'add', `${GATEWAY}/64`, 'dev', 'br0', 'nodad');
    await fabric('addr', 'add', `${FAR_SERVER}/128`, 'dev', 'lo');
    servers.push(spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP6-LISTEN:${FAR_PORT},bind=[${FAR_SERVER}],reuseaddr,fork`, 'SYSTEM:echo "from $SOCAT_PEERADDR"'], { stdio: 'ignore' }));
    for (const p of [pod('m6a', 'node1', 'manual6'), pod('m6b', 'node2', 'manual6'), pod('s6', 'node1', 'sub6')]) await kube.request('POST', '/api/v1/namespaces/default/pods', p);
    await waitFor('m6a, m6b and s6 with both addresses and a netns', async () => {
      const list = await kube.request<{ items: { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIPs?: { ip: string }[] } }[] }>('GET', '/api/v1/namespaces/default/pods');
      for (const p of list.items) {
        const ips = (p.status?.podIPs ?? []).map((x) => x.ip);
        const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
        if (ips.length === 2 && netns) {
          netnsOf.set(p.metadata.name, netns);
          ipsOf.set(p.metadata.name, { v4: ips[0]!, v6: ips[1]! });
        }
      }
      return ['m6a', 'm6b', 's6'].every((n) => ipsOf.has(n));
    }, { timeoutMs: 120_000, intervalMs: 250 });
    // Before any Egress: masqueraded to the node's IPv6 address; the far server out of reach.
    await waitFor('m6a seen from node1\'s IPv6 address', async () => (await seen('m6a', FABRIC_HOST_V6, PORT)) === node('node1').nodeIPv6, { timeoutMs: 60_000, intervalMs: 250 });
    expect(await seen('s6', FAR_SERVER, FAR_PORT)).toBe('');
  }, 180_000);

  afterAll(async () => {
    for (const name of ['eg6-manual', 'eg6-sub']) await kube.request('DELETE', `${EGRESSES}/${name}`).catch(() => undefined);
    await kube.request('DELETE', `${POOLS}/egress6-sub-pool`).catch(() => undefined);
    for (const name of ['m6a', 'm6b', 's6']) await kube.request('DELETE', `/api/v1/namespaces/default/pods/${name}`).catch(() => undefined);
    for (const n of ['node1', 'node2']) await run(['ip', 'addr', 'del', `${MANUAL_IP}/128`, 'dev', 'br-phy'], { netns: node(n).netns, allowFailure: true });
  }, 60_000);

  it('without a pool: the IPv6 address put on node2 by hand makes node2 the egress node; m6a (tunnelled) and m6b leave from it through one ip6tables rule; no proxy NDP entry', async () => {
    const t0 = Date.now();
    await run(['ip', 'addr', 'add', `${MANUAL_IP}/128`, 'dev', 'br-phy', 'nodad'], { netns: node('node2').netns });
    await kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'eg6-manual' }, spec: { appliedTo: { podSelector: { matchLabels: { app: 'manual6' } } }, egressIP: MANUAL_IP } });
    await waitFor('status.egressNode node2 for the manual IPv6 IP', async () => {
      const s = await status('eg6-manual');
      return s?.egressNode === 'node2' && s.egressIP === MANUAL_IP;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    // Antrea writes no condition for a manual IP.
    expect((await status('eg6-manual'))?.conditions ?? []).toEqual([]);
    await waitFor(`m6a and m6b seen from ${MANUAL_IP}`, async () => (await seen('m6a', FABRIC_HOST_V6, PORT)) === MANUAL_IP && (await seen('m6b', FABRIC_HOST_V6, PORT)) === MANUAL_IP, { timeoutMs: 60_000, intervalMs: 300 });
    process.stdout.write(`IPv6 manual Egress: status and source after ${Date.now() - t0} ms\n`);
    expect(await inNode('node2', 'ip6tables -w -t nat -S SWITCHYARD-EGRESS')).toMatch(new RegExp(`-A SWITCHYARD-EGRESS -s fc01::100:[0-9a-f]+/128 -j SNAT --to-source ${MANUAL_IP}$`, 'm'));
    expect(await inNode('node1', 'ip6tables -w -t nat -S SWITCHYARD-EGRESS 2>/dev/null | grep -c SNAT || true')).toBe('0');
    expect(await proxied('node1', MANUAL_IP)).toBe(false);
    expect(await proxied('node2', MANUAL_IP)).toBe(false);
    // A pod the Egress does not select is masqueraded as before.
    expect(await seen('s6', FABRIC_HOST_V6, PORT)).toBe(node('node1').nodeIPv6);
  });

  it('the address moved by hand to node1: node1\'s unsolicited Neighbor Advertisement moves the fabric host\'s cache with no traffic sent; the status and the source follow, node1 holds the ip6tables rule and node2 none', async () => {
    // The fabric host answered m6a and m6b at the IP through node2: its entry holds node2's MAC.
    expect(await fabricNeighbour()).toBe(await brPhyMac('node2'));
    const node1Mac = await brPhyMac('node1');
    const t0 = Date.now();
    await run(['ip', 'addr', 'del', `${MANUAL_IP}/128`, 'dev', 'br-phy'], { netns: node('node2').netns });
    await run(['ip', 'addr', 'add', `${MANUAL_IP}/128`, 'dev', 'br-phy', 'nodad'], { netns: node('node1').netns });
    // Nothing solicits in between: only node1's agent's unsolicited advertisement (it took the IP) can change the fabric host's entry.
    await waitFor(`the fabric host's entry for ${MANUAL_IP} on node1's MAC`, async () => (await fabricNeighbour()) === node1Mac, { timeoutMs: 60_000, intervalMs: 100 });
    process.stdout.write(`IPv6 manual Egress IP moved by hand to node1: fabric host's neighbour entry moved after ${Date.now() - t0} ms\n`);
    await waitFor(`status.egressNode node1 and m6a, m6b seen from ${MANUAL_IP}`, async () => (await status('eg6-manual'))?.egressNode === 'node1' && (await seen('m6a', FABRIC_HOST_V6, PORT)) === MANUAL_IP && (await seen('m6b', FABRIC_HOST_V6, PORT)) === MANUAL_IP, { timeoutMs: 60_000, intervalMs: 300 });
    process.stdout.write(`IPv6 manual Egress IP moved by hand to node1: status and source followed after ${Date.now() - t0} ms\n`);
    expect(await inNode('node1', 'ip6tables -w -t nat -S SWITCHYARD-EGRESS')).toMatch(new RegExp(`-A SWITCHYARD-EGRESS -s fc01::100:[0-9a-f]+/128 -j SNAT --to-source ${MANUAL_IP}$`, 'm'));
    await waitFor('node2 without the SNAT rule', async () => (await inNode('node2', 'ip6tables -w -t nat -S SWITCHYARD-EGRESS 2>/dev/null | grep -c SNAT || true')) === '0', { timeoutMs: 30_000, intervalMs: 200 });
  });

  it('the address taken off: no node owns the IP, the status names none, and the members leave from their own node\'s address again', async () => {
    await run(['ip', 'addr', 'del', `${MANUAL_IP}/128`, 'dev', 'br-phy'], { netns: node('node1').netns });
    await waitFor('status without egressNode', async () => (await status('eg6-manual'))?.egressNode === undefined, { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('m6a and m6b seen from their nodes\' IPv6 addresses', async () => (await seen('m6a', FABRIC_HOST_V6, PORT)) === node('node1').nodeIPv6 && (await seen('m6b', FABRIC_HOST_V6, PORT)) === node('node2').nodeIPv6, { timeoutMs: 60_000, intervalMs: 300 });
    expect(await inNode('node1', 'ip6tables -w -t nat -S SWITCHYARD-EGRESS 2>/dev/null | grep -c SNAT || true')).toBe('0');
  });

  it('an IPv6 pool with subnetInfo: node2 owns the IP with an `ip -6 rule` into a table whose default goes via the subnet\'s gateway; s6 (node1) reaches the far server from it; node1 has neither', async () => {
    const t0 = Date.now();
    await kube.request('POST', POOLS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'egress6-sub-pool' },
      spec: { ipRanges: [{ start: 'fd00:80::20', end: 'fd00:80::27' }], subnetInfo: { gateway: GATEWAY, prefixLength: 64 }, nodeSelector: {} },
    });
    await kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'eg6-sub' }, spec: { appliedTo: { podSelector: { matchLabels: { app: 'sub6' } } }, externalIPPool: 'egress6-sub-pool', egressIP: SUB_IP } });
    await waitFor('status.egressNode node2 for the subnet IP', async () => (await status('eg6-sub'))?.egressNode === 'node2', { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('node2 routes the IP through the subnet', async () => (await subnetState('node2')).rule, { timeoutMs: 30_000, intervalMs: 200 });
    const table = (await subnetState('node2')).table;
    expect(table).toContain(`default via ${GATEWAY} dev br-phy proto 80`);
    expect(table).toContain('fd00:80::/64 dev br-phy proto 80');
    expect(await subnetState('node1')).toEqual({ rule: false, table: '' });
    await waitFor(`s6 seen by the far server from ${SUB_IP}`, async () => (await seen('s6', FAR_SERVER, FAR_PORT)) === SUB_IP, { timeoutMs: 60_000, intervalMs: 300 });
    process.stdout.write(`IPv6 subnet Egress: rule, table and source after ${Date.now() - t0} ms\n`);
    expect(await proxied('node2', SUB_IP)).toBe(true);
    // A pod the Egress does not select still cannot reach the far server.
    expect(await seen('m6a', FAR_SERVER, FAR_PORT)).toBe('');
  });
});
