/**
 * The README demo: a 2-node lab and the walkthrough of antctl-and-policies-walkthrough.txt
 * (nginx pods behind Services, a busybox client, the `nginx-allow` policy, then the label
 * changes), printing reachability by Service ClusterIP (and pod IP) before and after each step,
 * then the policy and the IngressRule flows, and ends with `yardctl check installation`.
 *
 * `--keep` leaves the lab running; `--lab-dir <dir>` puts it somewhere else than the default
 * (the integration test runs the demo in a temporary directory); `--runtime podman` runs the
 * controller and agents in containers from the built images (`switchyard-lab up --runtime`).
 *
 * Every wait polls state (pods Ready with their servers listening, EndpointSlices, Service flows
 * and groups on every node, IngressRule flows changed on every node, the controller's and agents'
 * realization): no fixed sleep decides what is printed.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { run, waitFor } from '@switchyard/testbed';
import { DEFAULT_LAB_DIR } from './plan';
import { REPO_ROOT, type LabState } from './lab';
import { labClient, readState } from './client';
import { NETNS_ANNOTATION } from './kubelet';
import { agentGet, tcpProbe } from './probe';
import { ScenarioRunner } from './probe-run';
import { elapsed, progressLine, runStart } from './progress';
import { parseRuntime } from './podman';

const argv = process.argv.slice(2);
const keep = argv.includes('--keep');
const labDirAt = argv.indexOf('--lab-dir');
const labDir = labDirAt >= 0 && argv[labDirAt + 1] ? argv[labDirAt + 1]! : DEFAULT_LAB_DIR;
const runtimeAt = argv.indexOf('--runtime');
const runtime = parseRuntime(runtimeAt >= 0 ? (argv[runtimeAt + 1] ?? '') : 'process');
const labBin = join(REPO_ROOT, 'tools/lab/bin/switchyard-lab');
/** The built yardctl (`lab up` built it), output straight to the terminal. */
const yardctl = (...args: string[]): void => {
  execFileSync(process.execPath, [join(REPO_ROOT, 'packages/cli/dist/bin.js'), ...args], { stdio: 'inherit' });
};
const lab = (...args: string[]): void => {
  execFileSync(labBin, ['--lab-dir', labDir, ...args], { stdio: 'inherit' });
};
const out = (s: string): void => void process.stdout.write(s);
const say = (s: string): void => out(`\n== ${elapsed()} ${s}\n`);
const WAIT = { timeoutMs: 60_000, intervalMs: 100 };

/** Where the walkthrough's pods run: a server next to the client and two on the other node. */
const SERVERS = [
  { name: 'nginx-1', node: 'node1' },
  { name: 'nginx-2', node: 'node2' },
  { name: 'nginx-3', node: 'node2' },
] as const;
const CLIENT = { name: 'ch-busybox', node: 'node1', app: 'busybox-cor' } as const;
/** Connections made to the `nginx` Service per round (its select group spreads them over the endpoints). */
const SPREAD_PROBES = 6;

interface PodView { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { nodeName?: string }; status?: { podIP?: string; conditions?: { type: string; status: string }[] } }
interface ServiceView { metadata: { name: string }; spec: { clusterIP?: string } }
interface SliceView { metadata: { labels?: Record<string, string> }; ports?: { name?: string; port?: number }[] | null; endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }

/** A Service of the demo: its name, ClusterIP and the pod IPs it must balance to. */
interface DemoService { name: string; clusterIP: string; endpoints: string[]; nodes: string[] }

/** `10.10.1.3` -> `0xa0a0103`, as ovs-ofctl prints a register loaded with an address. */
const ipHex = (ip: string): string => `0x${ip.split('.').reduce((n, o) => n * 256 + Number(o), 0).toString(16)}`;

/** The OpenFlow management socket of a node's br-int: in its OVS run directory, beside ovs-vswitchd's control socket (the same in both runtimes). */
function mgmtSocket(node: LabState['nodes'][number]): string {
  return join(dirname(node.vswitchdCtl), 'br-int.mgmt');
}

/** The endpoint addresses each select group of a node's br-int balances to, by group id. */
async function groupEndpoints(node: LabState['nodes'][number]): Promise<Map<string, Set<string>>> {
  const r = await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-groups', mgmtSocket(node)]);
  const groups = new Map<string, Set<string>>();
  for (const line of r.stdout.split('\n')) {
    const id = /group_id=(\d+)/.exec(line)?.[1];
    if (id) groups.set(id, new Set([...line.matchAll(/set_field:(0x[0-9a-f]+)->reg3/g)].map((m) => m[1]!)));
  }
  return groups;
}

/** The walkthrough's running workload: the lab, its API, the pods and the Services. */
interface Workload {
  st: LabState;
  kube: ReturnType<typeof labClient>;
  pods: Map<string, PodView>;
  services: DemoService[];
}

const NS = '/api/v1/namespaces/default';
const ipOf = (w: Workload, name: string): string => w.pods.get(name)!.status!.podIP!;
const netnsOf = (w: Workload, name: string): string => w.pods.get(name)!.metadata.annotations![NETNS_ANNOTATION]!;

/** Creates the pods and Services, and waits until the pods are Ready with their servers listening and the Services have ClusterIPs. */
async function applyWorkload(st: LabState, kube: Workload['kube']): Promise<Workload> {
  say('kubectl apply: nginx-1 (node1), nginx-2 and nginx-3 (node2), the client ch-busybox (node1), Services nginx and nginx-1..3 on port 80');
  const pod = (name: string, node: string, labels: Record<string, string>, ports: boolean) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
    spec: { nodeName: node, containers: [{ name: 'c', image: labels.app, ...(ports ? { ports: [{ containerPort: 80, name: 'http' }] } : {}) }] },
  });
  // `instance` gives each server a Service of its own, so every path (same node, other node) is
  // probed through a ClusterIP deterministically; `nginx` balances over all three.
  for (const s of SERVERS) await kube.request('POST', `${NS}/pods`, pod(s.name, s.node, { app: 'nginx', instance: s.name }, true));
  await kube.request('POST', `${NS}/pods`, pod(CLIENT.name, CLIENT.node, { app: CLIENT.app }, false));
  const service = (name: string, selector: Record<string, string>) => ({
    apiVersion: 'v1', kind: 'Service', metadata: { name },
    spec: { selector, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }] },
  });
  await kube.request('POST', `${NS}/services`, service('nginx', { app: 'nginx' }));
  for (const s of SERVERS) await kube.request('POST', `${NS}/services`, service(s.name, { app: 'nginx', instance: s.name }));

  const w: Workload = { st, kube, pods: new Map(), services: [] };
  await waitFor('pods Ready with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', `${NS}/pods`);
    for (const p of list.items) w.pods.set(p.metadata.name, p);
    return list.items.length === SERVERS.length + 1 && list.items.every((p) => p.status?.podIP && p.metadata.annotations?.[NETNS_ANNOTATION] && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  }, WAIT);
  // The kubelet stand-in sets Ready once it has spawned the servers; wait until they listen.
  await waitFor('nginx servers listening on :80', async () => {
    const ls = await Promise.all(SERVERS.map((s) => run(['ip', 'netns', 'exec', netnsOf(w, s.name), 'ss', '-Hltn', 'sport = :80'], { allowFailure: true })));
    return ls.every((r) => r.code === 0 && r.stdout.trim() !== '');
  }, WAIT);
  await waitFor('Services with a ClusterIP', async () => {
    w.services.length = 0;
    for (const name of ['nginx', ...SERVERS.map((s) => s.name)]) {
      const svc = await kube.request<ServiceView>('GET', `${NS}/services/${name}`);
      if (!svc.spec.clusterIP) return false;
      const backends = name === 'nginx' ? SERVERS : SERVERS.filter((s) => s.name === name);
      w.services.push({ name, clusterIP: svc.spec.clusterIP, endpoints: backends.map((b) => ipOf(w, b.name)), nodes: [...new Set(backends.map((b) => b.node))] });
    }
    return true;
  }, WAIT);
  for (const p of w.pods.values()) out(`  pod ${p.metadata.name.padEnd(11)} ${(p.status?.podIP ?? '').padEnd(10)} ${p.spec.nodeName ?? ''}  app=${p.metadata.labels?.app ?? ''}\n`);
  for (const s of w.services) out(`  svc ${s.name.padEnd(11)} ClusterIP ${s.clusterIP}:80 -> ${s.endpoints.map((e) => `${e}:80`).join(', ')}\n`);
  return w;
}

/**
 * Every Service's EndpointSlices list exactly its servers as ready on port `http`, and every
 * node balances its ClusterIP to exactly those addresses (the ServiceLB flow and its group).
 */
async function servicesReady(w: Workload): Promise<void> {
  await waitFor('EndpointSlices ready', async () => {
    const slices = await w.kube.request<{ items: SliceView[] }>('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices');
    return w.services.every((s) => {
      const ready = slices.items
        .filter((sl) => sl.metadata.labels?.['kubernetes.io/service-name'] === s.name && (sl.ports ?? []).some((p) => p.name === 'http'))
        .flatMap((sl) => (sl.endpoints ?? []).filter((e) => e.conditions?.ready !== false).flatMap((e) => e.addresses));
      return [...ready].sort().join() === [...s.endpoints].sort().join();
    });
  }, WAIT);
  await waitFor('Service flows and groups on every node', async () => {
    for (const n of w.st.nodes) {
      const [flows, groups] = await Promise.all([agentGet<string[]>(n.apiSocket, '/ovsflows?table=ServiceLB'), groupEndpoints(n)]);
      for (const s of w.services) {
        const flow = flows.find((f) => f.includes(`nw_dst=${s.clusterIP},`) && f.includes('tcp_dst=80'));
        const group = flow ? /group:(\d+)/.exec(flow)?.[1] : undefined;
        const buckets = group ? groups.get(group) : undefined;
        if (!buckets || [...buckets].sort().join() !== s.endpoints.map(ipHex).sort().join()) return false;
      }
    }
    return true;
  }, WAIT);
}

const verdict = (ok: boolean): string => (ok ? 'allowed' : 'blocked');

/** Prints what the client reaches, by ClusterIP (the `nginx` Service: how many of several connections) and by pod IP. */
async function reach(w: Workload, title: string): Promise<void> {
  await servicesReady(w);
  /** true when accepted; a refused or timed-out try is tried once more with a longer timeout (a slow probe is never read as blocked). */
  const probe = async (ip: string): Promise<boolean> => (await tcpProbe(netnsOf(w, CLIENT.name), ip, 80)) || tcpProbe(netnsOf(w, CLIENT.name), ip, 80, 3);
  const live = await w.kube.request<PodView>('GET', `${NS}/pods/${CLIENT.name}`);
  out(`  reachability from ${CLIENT.name} (${CLIENT.node}, app=${live.metadata.labels?.app ?? '-'}), TCP 80 [${title}]\n`);
  const rows = await Promise.all(w.services.map(async (s) => {
    if (s.name === 'nginx') {
      const oks = await Promise.all(Array.from({ length: SPREAD_PROBES }, () => probe(s.clusterIP)));
      const n = oks.filter(Boolean).length;
      const v = n === SPREAD_PROBES ? 'allowed' : n === 0 ? 'blocked' : 'mixed';
      return `${CLIENT.name} -> ${s.name.padEnd(7)} (ClusterIP ${s.clusterIP}:80, ${s.endpoints.length} endpoints on ${s.nodes.join('+')}): ${v} (${n}/${SPREAD_PROBES} connections)`;
    }
    const [bySvc, byPod] = await Promise.all([probe(s.clusterIP), probe(s.endpoints[0]!)]);
    return `${CLIENT.name} -> ${s.name.padEnd(7)} (ClusterIP ${s.clusterIP}:80 -> ${s.endpoints[0]}:80 on ${s.nodes[0]}): ${verdict(bySvc).padEnd(7)}  by pod IP: ${verdict(byPod)}`;
  }));
  for (const r of rows) out(`    ${r}\n`);
}

/** The policy steps of the walkthrough, each followed by the reachability it leads to. */
async function walkthrough(w: Workload, realization: ScenarioRunner): Promise<void> {
  const { kube, st } = w;
  const serverNodes = st.nodes.filter((n) => SERVERS.some((s) => s.node === n.name));
  const ingressFlows = async (): Promise<string[]> => Promise.all(serverNodes.map(async (n) => (await agentGet<string[]>(n.apiSocket, '/ovsflows?table=IngressRule')).join('\n')));
  /**
   * Runs a change, then waits until the IngressRule flows of every node hosting a server differ
   * from before it (the change reached each of them) and the controller and every agent agree
   * on the policies with flows that have settled (ScenarioRunner.waitRealized).
   */
  const changed = async (change: () => Promise<unknown>): Promise<void> => {
    const before = await ingressFlows();
    const t = Date.now();
    await change();
    await waitFor('IngressRule flows to change on every server node', async () => (await ingressFlows()).every((f, i) => f !== before[i]), WAIT);
    await realization.waitRealized();
    out(`  (realized on ${serverNodes.map((n) => n.name).join(' and ')} in ${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
  };
  const policy = (apps: string[]) => ({
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'nginx-allow' },
    spec: { podSelector: { matchLabels: { app: 'nginx' } }, ingress: [{ from: apps.map((app) => ({ podSelector: { matchLabels: { app } } })) }] },
  });
  const relabel = (app: string) => kube.request('PATCH', `${NS}/pods/${CLIENT.name}`, { metadata: { labels: { app } } }, 'application/merge-patch+json');
  const np = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';

  say('step 0: no policy');
  await reach(w, 'no policy');
  say('step 1: kubectl apply nginx-allow (ingress to app=nginx only from app=nginx)');
  await changed(() => kube.request('POST', np, policy(['nginx'])));
  await reach(w, 'nginx-allow');
  say(`step 2: kubectl label pod ${CLIENT.name} app=nginx --overwrite`);
  await changed(() => relabel('nginx'));
  await reach(w, 'client labelled app=nginx');
  say(`step 3: kubectl label pod ${CLIENT.name} app=busybox --overwrite`);
  await changed(() => relabel('busybox'));
  await reach(w, 'client labelled app=busybox');
  const traceflow = (): void => {
    say(`yardctl traceflow -S default/${CLIENT.name} -D default/nginx-2 -f tcp,tcp_dst=80`);
    yardctl('--kubeconfig', st.kubeconfig, 'traceflow', '-S', `default/${CLIENT.name}`, '-D', 'default/nginx-2', '-f', 'tcp,tcp_dst=80');
  };
  // Why is it blocked? The packet's path through both nodes' pipelines, and where it was dropped.
  traceflow();
  say('step 4: nginx-allow also admits app=busybox');
  const cur = await kube.request<{ metadata: { resourceVersion: string } }>('GET', `${np}/nginx-allow`);
  await changed(() => kube.request('PUT', `${np}/nginx-allow`, { ...policy(['nginx', 'busybox']), metadata: { name: 'nginx-allow', namespace: 'default', resourceVersion: cur.metadata.resourceVersion } }));
  await reach(w, 'nginx-allow with app=busybox');
  traceflow();
  say('yardctl get networkpolicy');
  yardctl('--kubeconfig', st.kubeconfig, 'get', 'networkpolicy');
  for (const n of serverNodes) {
    say(`yardctl get ovsflows -T IngressRule --agent-socket ${n.apiSocket}   (${n.name})`);
    yardctl('get', 'ovsflows', '-T', 'IngressRule', '--agent-socket', n.apiSocket);
  }
  // The smoke test a user runs after installing, through the API only: its own namespace and pods,
  // deleted at its end; a failing check fails the demo (exit 1).
  say('yardctl check installation   (own namespace: pod-to-pod on one node and across, pod-to-Service, a deny-all ingress policy)');
  yardctl('--kubeconfig', st.kubeconfig, 'check', 'installation', '--timeout', '2m');
}

async function main(): Promise<void> {
  const t0 = Date.now();
  runStart();
  lab('up', '--nodes', '2', ...(runtime !== 'process' ? ['--runtime', runtime] : []));
  const st = readState(labDir);
  if (!st) throw new Error('lab state missing after up');
  const kube = labClient(st);
  const realization = new ScenarioRunner({ kube, state: st });
  out(progressLine('steps', 'the walkthrough of antctl-and-policies-walkthrough.txt: pods and Services, then nginx-allow and label changes'));
  try {
    await walkthrough(await applyWorkload(st, kube), realization);
    out(`\ndemo done in ${((Date.now() - t0) / 1000).toFixed(1)} s (lab up included)\n`);
  } finally {
    realization.close();
    if (keep) out(`\nlab left running (--keep): kubectl --kubeconfig ${st.kubeconfig} get pods,svc -o wide; tear down with tools/lab/bin/switchyard-lab --lab-dir ${labDir} down\n`);
    else {
      out(progressLine('down', 'removing pods, agents, OVS instances and namespaces'));
      lab('down');
    }
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).message}\n`);
  process.exit(1);
});
