// Egress on the lab (issue 34): `switchyard-lab up --nodes 2` (the Egress gate is on, as in Antrea),
// an ExternalIPPool on the fabric subnet, an Egress for app=a whose IP node2 owns (the agents'
// rendezvous choice among both nodes). A server on the fabric host reports each connection's source
// address: app=a pods on node1 (tunnelled to node2) and on node2 arrive from the egress IP, an app=b
// pod from its node's own address; pod-to-pod and pod-to-Service connections keep the pod's address.
// Bad Egresses get IPAllocated=False with an Event naming the field while the good one keeps working.
// When node2's agent stops (stop-agent), the IP moves to node1 and new connections from app=a still
// arrive from the same egress IP; node2 answers ARP for it no more. Waits on state, never on time.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rendezvousOwner } from '@switchyard/agent';
import type { Egress } from '@switchyard/apis/types';
import YAML from 'yaml';
import type { KubeConfigClient } from '@switchyard/controller';
import { run, waitFor } from '@switchyard/testbed';
import { FABRIC_PREFIX, labClient, readState, startAgent, stopAgent, type LabNodeState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-egress-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 180_000 });
const FABRIC_HOST = `${FABRIC_PREFIX}.254`;
/** The fabric server answers each connection with the address it came from. */
const SERVER_PORT = 9099;
/** The echo pod answers with `<pod> <peer address>`. */
const ECHO_PORT = 8080;
const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';

let st: LabState;
let kube: KubeConfigClient;
const servers: ChildProcess[] = [];
const netnsOf = new Map<string, string>();
const podIPs = new Map<string, string>();
/** The egress IP: the first address of the pool that the agents place on node2 while both nodes are up. */
const EGRESS_IP = Array.from({ length: 10 }, (_, i) => `${FABRIC_PREFIX}.${220 + i}`).find((ip) => rendezvousOwner(ip, ['node1', 'node2']) === 'node2')!;

const nodeNamed = (name: string): LabNodeState => st.nodes.find((n) => n.name === name)!;
const pod = (name: string, nodeName: string, app: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
  spec: { nodeName, containers: [{ name: 'c', image: 'client', ports: [{ containerPort: 80 }] }] },
});
/** One TCP exchange from a pod: the first line the server sends ('' when nothing answers within 2 s). */
async function fromPod(podName: string, ip: string, port: number): Promise<string> {
  const r = await run(['ip', 'netns', 'exec', netnsOf.get(podName)!, 'socat', '-T2', '-', `TCP:${ip}:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
  return r.code === 0 ? (r.stdout.trim().split('\n')[0] ?? '') : '';
}
/** The source address the fabric server saw for a new connection from the pod. */
const seenFromFabric = (podName: string): Promise<string> => fromPod(podName, FABRIC_HOST, SERVER_PORT);
const getEgress = (name: string): Promise<Egress> => kube.request<Egress>('GET', `${EGRESSES}/${name}`);
const createEgress = (name: string, spec: Partial<Egress['spec']>): Promise<unknown> =>
  kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name }, spec: { appliedTo: { podSelector: { matchLabels: { app: 'a' } } }, ...spec } });
/** Proxy ARP entries on a node (what makes it answer for the egress IP). */
const proxyEntries = async (n: LabNodeState): Promise<string> => (await run(['ip', 'neigh', 'show', 'proxy'], { netns: n.netns })).stdout.trim();

beforeAll(async () => {
  lab('up', '--nodes', '2');
  st = readState(labDir)!;
  kube = labClient(st);
  const pods = [pod('a1', 'node1', 'a'), pod('a2', 'node2', 'a'), pod('b1', 'node1', 'b'), pod('echo', 'node2', 'echo')];
  for (const p of pods) await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  await waitFor('pods with an IP and a netns', async () => {
    const list = await kube.request<{ items: { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) {
      if (p.status?.podIP) podIPs.set(p.metadata.name, p.status.podIP);
      const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (ns) netnsOf.set(p.metadata.name, ns);
    }
    return pods.every((p) => podIPs.has(p.metadata.name) && netnsOf.has(p.metadata.name));
  }, { timeoutMs: 60_000, intervalMs: 200 });
  servers.push(spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP-LISTEN:${SERVER_PORT},bind=${FABRIC_HOST},reuseaddr,fork`, 'SYSTEM:echo $SOCAT_PEERADDR'], { stdio: 'ignore' }));
  servers.push(spawn('ip', ['netns', 'exec', netnsOf.get('echo')!, 'socat', `TCP-LISTEN:${ECHO_PORT},reuseaddr,fork`, 'SYSTEM:echo echo $SOCAT_PEERADDR'], { stdio: 'ignore' }));
  await kube.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' }, spec: { selector: { app: 'echo' }, ports: [{ port: ECHO_PORT, targetPort: ECHO_PORT }] } });
  // Without any Egress, every pod leaves from its node's address.
  await waitFor('the fabric server answers pods', async () => (await seenFromFabric('a1')) === nodeNamed('node1').nodeIP, { timeoutMs: 60_000, intervalMs: 300 });
}, 300_000);

afterAll(() => {
  for (const c of servers) c.kill('SIGKILL');
  if (readState(labDir)) lab('down');
});

describe('Egress from the fabric host\'s point of view', () => {
  it('an Egress on a pool gets its IP from the controller, and node2 (the agents\' owner) takes it and says so in the status', async () => {
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/externalippools', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'egress-pool' },
      spec: { ipRanges: [{ start: `${FABRIC_PREFIX}.220`, end: `${FABRIC_PREFIX}.229` }], nodeSelector: {} },
    });
    await createEgress('eg-a', { externalIPPool: 'egress-pool', egressIP: EGRESS_IP });
    await waitFor('status.egressNode node2 with IPAssigned', async () => {
      const s = (await getEgress('eg-a')).status;
      return s?.egressNode === 'node2' && s.egressIP === EGRESS_IP && s.conditions?.find((c) => c.type === 'IPAssigned')?.status === 'True';
    }, { timeoutMs: 60_000, intervalMs: 200 });
    expect((await getEgress('eg-a')).status?.conditions?.find((c) => c.type === 'IPAllocated')).toMatchObject({ status: 'True', reason: 'Allocated' });
    expect(await proxyEntries(nodeNamed('node2'))).toContain(EGRESS_IP);
    expect(await proxyEntries(nodeNamed('node1'))).not.toContain(EGRESS_IP);
  });

  it('app=a leaves from the egress IP, from node1 through the tunnel and from node2 itself; app=b from its node\'s address', async () => {
    await waitFor('a1 (node1) seen from the egress IP', async () => (await seenFromFabric('a1')) === EGRESS_IP, { timeoutMs: 60_000, intervalMs: 300 });
    for (let i = 0; i < 3; i++) expect(await seenFromFabric('a1')).toBe(EGRESS_IP);
    await waitFor('a2 (node2) seen from the egress IP', async () => (await seenFromFabric('a2')) === EGRESS_IP, { timeoutMs: 30_000, intervalMs: 300 });
    expect(await seenFromFabric('b1')).toBe(nodeNamed('node1').nodeIP);
  });

  it('pod-to-pod and pod-to-Service connections of app=a keep the pod\'s address', async () => {
    expect(await fromPod('a1', podIPs.get('echo')!, ECHO_PORT)).toBe(`echo ${podIPs.get('a1')!}`);
    const svc = await kube.request<{ spec: { clusterIP: string } }>('GET', '/api/v1/namespaces/default/services/echo');
    await waitFor('the Service answers a1', async () => (await fromPod('a1', svc.spec.clusterIP, ECHO_PORT)) !== '', { timeoutMs: 30_000, intervalMs: 300 });
    expect(await fromPod('a1', svc.spec.clusterIP, ECHO_PORT)).toBe(`echo ${podIPs.get('a1')!}`);
    expect(await fromPod('a2', svc.spec.clusterIP, ECHO_PORT)).toBe(`echo ${podIPs.get('a2')!}`);
  });

  it('bad Egresses get IPAllocated=False and an Event naming the field, an overlapping one EgressOverlap; the good one keeps working', async () => {
    await createEgress('eg-bad-ip', { externalIPPool: 'egress-pool', egressIP: '192.168.77.300' });
    await createEgress('eg-outside', { externalIPPool: 'egress-pool', egressIP: `${FABRIC_PREFIX}.99` });
    // A younger Egress with an IP of its own that selects app=a too.
    await createEgress('eg-a-again', { externalIPPool: 'egress-pool' });
    type Ev = { reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } };
    const eventsAbout = async (name: string): Promise<Ev[]> =>
      (await kube.request<{ items: Ev[] }>('GET', '/api/v1/namespaces/default/events')).items.filter((e) => e.involvedObject?.kind === 'Egress' && e.involvedObject.name === name);
    const eventOf = async (name: string, reason: string): Promise<Ev | undefined> =>
      (await kube.request<{ items: Ev[] }>('GET', '/api/v1/namespaces/default/events')).items.find((e) => e.involvedObject?.kind === 'Egress' && e.involvedObject.name === name && e.reason === reason);
    let bad: Ev | undefined;
    let outside: Ev | undefined;
    let overlap: Ev | undefined;
    await waitFor('Events on both', async () =>
      (bad = await eventOf('eg-bad-ip', 'InvalidEgress')) !== undefined && (outside = await eventOf('eg-outside', 'EgressIPNotInPool')) !== undefined && (overlap = await eventOf('eg-a-again', 'EgressOverlap')) !== undefined,
    { timeoutMs: 30_000, intervalMs: 200 });
    expect(bad!.message).toBe('spec.egressIP: Invalid value: "192.168.77.300": not an IP address');
    expect(outside!.message).toContain(`spec.egressIP: Invalid value: "${FABRIC_PREFIX}.99": not in ExternalIPPool egress-pool`);
    // The pods stay with the older eg-a (below: still its IP), and the younger is told so.
    expect(overlap!.message).toBe("spec.appliedTo: selects pods default/a1, default/a2, which the older Egress eg-a applies to: that traffic leaves from the older Egress's IP");
    // Egresses without an IP compete for no pod.
    for (const n of ['eg-bad-ip', 'eg-outside']) expect((await eventsAbout(n)).some((e) => e.reason === 'EgressOverlap')).toBe(false);
    for (const n of ['eg-bad-ip', 'eg-outside']) expect((await getEgress(n)).status?.conditions?.find((c) => c.type === 'IPAllocated')?.status).toBe('False');
    expect(await seenFromFabric('a1')).toBe(EGRESS_IP);
    expect(await seenFromFabric('b1')).toBe(nodeNamed('node1').nodeIP);
  });

  it('when node2\'s agent stops, node1 takes the IP and new connections still come from it; node2 answers ARP for it no more', async () => {
    const t0 = Date.now();
    await stopAgent(labDir, 'node2', 'SIGTERM');
    let movedMs = 0;
    await waitFor('a1 seen from the egress IP through node1', async () => {
      const s = (await getEgress('eg-a')).status;
      if (s?.egressNode !== 'node1') return false;
      if ((await seenFromFabric('a1')) !== EGRESS_IP) return false;
      movedMs = Date.now() - t0;
      return true;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    process.stdout.write(`Egress IP failover, graceful stop of node2's agent: a1 seen from ${EGRESS_IP} through node1 after ${movedMs} ms\n`);
    expect(await proxyEntries(nodeNamed('node2'))).not.toContain(EGRESS_IP);
    expect(await proxyEntries(nodeNamed('node1'))).toContain(EGRESS_IP);
    for (let i = 0; i < 3; i++) expect(await seenFromFabric('a1')).toBe(EGRESS_IP);
    expect(await seenFromFabric('b1')).toBe(nodeNamed('node1').nodeIP);
    await startAgent(labDir, 'node2');
    // node2 is the owner again once its agent is back: the IP returns, and so does the tunnel path.
    await waitFor('node2 owns the IP again', async () => (await getEgress('eg-a')).status?.egressNode === 'node2', { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('a1 seen from the egress IP through node2', async () => (await seenFromFabric('a1')) === EGRESS_IP && !(await proxyEntries(nodeNamed('node1'))).includes(EGRESS_IP), { timeoutMs: 60_000, intervalMs: 300 });
  });

  it('when node2\'s agent is killed, node1 takes the IP once node2\'s Lease runs out, and a1\'s new connections come from it again', async () => {
    const t0 = Date.now();
    await stopAgent(labDir, 'node2', 'SIGKILL');
    let movedMs = 0;
    await waitFor('a1 seen from the egress IP through node1', async () => {
      if ((await getEgress('eg-a')).status?.egressNode !== 'node1') return false;
      if ((await seenFromFabric('a1')) !== EGRESS_IP) return false;
      movedMs = Date.now() - t0;
      return true;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    process.stdout.write(`Egress IP failover, node2's agent killed: a1 seen from ${EGRESS_IP} through node1 after ${movedMs} ms (Lease 6 s, renewed every 2 s)\n`);
    expect(await proxyEntries(nodeNamed('node1'))).toContain(EGRESS_IP);
    await startAgent(labDir, 'node2');
    await waitFor('node2 owns the IP again', async () => (await getEgress('eg-a')).status?.egressNode === 'node2', { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('a1 seen from the egress IP through node2, node1 answering for it no more', async () => (await seenFromFabric('a1')) === EGRESS_IP && !(await proxyEntries(nodeNamed('node1'))).includes(EGRESS_IP), { timeoutMs: 60_000, intervalMs: 300 });
  });
});

// The egress node goes NotReady while its agent keeps running (issue 34: "when the egress node goes
// NotReady or its agent stops"). The lab's kubelet stand-in never writes Node status after `up`, so
// a Ready=False written through the API stays until the test writes Ready=True again.
describe('Egress when the egress node goes NotReady (its agent still running)', () => {
  const NODES = '/api/v1/nodes';
  type NodeObj = { metadata: { name: string; resourceVersion?: string }; status?: { conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] } };
  const readyOf = async (name: string): Promise<string | undefined> => (await kube.request<NodeObj>('GET', `${NODES}/${name}`)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
  /** Writes the node's Ready condition through the status subresource (read, modify, write; again on a conflict). */
  async function setReady(name: string, ready: boolean): Promise<void> {
    await waitFor(`${name} Ready=${ready ? 'True' : 'False'} written`, async () => {
      const n = await kube.request<NodeObj>('GET', `${NODES}/${name}`);
      const others = (n.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
      const cond = ready
        ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'the lab test marks the node Ready', lastTransitionTime: new Date().toISOString() }
        : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'the lab test marks the node NotReady', lastTransitionTime: new Date().toISOString() };
      try {
        await kube.request('PUT', `${NODES}/${name}/status`, { ...n, status: { ...n.status, conditions: [...others, cond] } });
        return true;
      } catch (e) {
        if (/409|Conflict/i.test(String((e as Error).message))) return false;
        throw e;
      }
    }, { timeoutMs: 30_000, intervalMs: 100 });
  }
  /** The node's br-int flows that carry the IP as an owner's SNAT or un-SNAT (`nat(src=X)`, `nw_dst=X`). */
  async function ownerFlows(n: LabNodeState, ip: string): Promise<string[]> {
    const { ovsRunDir } = YAML.parse(readFileSync(join(labDir, n.name, 'antrea-agent.conf'), 'utf8')) as { ovsRunDir: string };
    const out = (await run(['ovs-ofctl', '-O', 'OpenFlow15', '--no-stats', 'dump-flows', join(ovsRunDir, 'br-int.mgmt')])).stdout;
    return out.split('\n').filter((l) => l.includes(`nat(src=${ip})`) || new RegExp(`nw_dst=${ip.replaceAll('.', '\\.')}[ ,]`).test(l));
  }

  /** The agents' `external IP taken` / `released` log records for an IP (pino JSON lines in `<labDir>/<node>/agent.log`). */
  function ipMoves(ip: string): { node: string; msg: string; time: number }[] {
    return ['node1', 'node2'].flatMap((node) =>
      readFileSync(join(labDir, node, 'agent.log'), 'utf8').split('\n').flatMap((line) => {
        if (!line.startsWith('{')) return [];
        const r = JSON.parse(line) as { msg?: string; ip?: string; time?: number };
        return r.ip === ip && (r.msg === 'external IP taken' || r.msg === 'external IP released') ? [{ node, msg: r.msg, time: r.time ?? 0 }] : [];
      }),
    );
  }

  it('node2 NotReady: node1 takes the IP, node2 drops its proxy entry and owner flows (never both answer), members leave from the same IP; Ready again: the IP returns', async () => {
    const n1 = nodeNamed('node1');
    const n2 = nodeNamed('node2');
    // Where the previous block left it: node2 owns the IP.
    await waitFor('node2 owns the IP with node1 answering for it no more', async () =>
      (await getEgress('eg-a')).status?.egressNode === 'node2' && (await proxyEntries(n2)).includes(EGRESS_IP) && !(await proxyEntries(n1)).includes(EGRESS_IP),
    { timeoutMs: 60_000, intervalMs: 200 });
    expect((await ownerFlows(n2, EGRESS_IP)).length).toBeGreaterThan(0);
    expect(await ownerFlows(n1, EGRESS_IP)).toEqual([]);

    // Watch both nodes' proxy entries all along: a sample where both answer ARP for the IP is a fencing failure.
    const both: string[] = [];
    let watching = true;
    const t0 = Date.now();
    const watcher = (async () => {
      while (watching) {
        const [p1, p2] = await Promise.all([proxyEntries(n1), proxyEntries(n2)]);
        if (p1.includes(EGRESS_IP) && p2.includes(EGRESS_IP)) both.push(new Date().toISOString());
      }
    })();
    try {
      await setReady('node2', false);
      let movedMs = 0;
      await waitFor('a1 seen from the egress IP through node1', async () => {
        if ((await getEgress('eg-a')).status?.egressNode !== 'node1') return false;
        if ((await seenFromFabric('a1')) !== EGRESS_IP) return false;
        movedMs = Date.now() - t0;
        return true;
      }, { timeoutMs: 60_000, intervalMs: 100 });
      process.stdout.write(`Egress IP failover, node2 NotReady (agent running): a1 seen from ${EGRESS_IP} through node1 after ${movedMs} ms\n`);
      // The change sticks: nothing in the lab writes node2 Ready again behind the test's back.
      expect(await readyOf('node2')).toBe('False');
      await waitFor('node2 answers ARP for the IP no more and has no owner flows for it', async () => !(await proxyEntries(n2)).includes(EGRESS_IP) && (await ownerFlows(n2, EGRESS_IP)).length === 0, { timeoutMs: 60_000, intervalMs: 200 });
      expect(await proxyEntries(n1)).toContain(EGRESS_IP);
      expect((await ownerFlows(n1, EGRESS_IP)).length).toBeGreaterThan(0);
      // Members on both nodes: a2 on the NotReady node2 is tunnelled to node1 now.
      for (let i = 0; i < 3; i++) expect(await seenFromFabric('a1')).toBe(EGRESS_IP);
      await waitFor('a2 (node2) seen from the egress IP through node1', async () => (await seenFromFabric('a2')) === EGRESS_IP, { timeoutMs: 30_000, intervalMs: 300 });
      expect(await seenFromFabric('b1')).toBe(n1.nodeIP);
      expect((await getEgress('eg-a')).status).toMatchObject({ egressNode: 'node1', egressIP: EGRESS_IP });

      await setReady('node2', true);
      await waitFor('node2 owns the IP again', async () => (await getEgress('eg-a')).status?.egressNode === 'node2', { timeoutMs: 60_000, intervalMs: 200 });
      await waitFor('node1 answers for the IP no more and has no owner flows for it', async () => !(await proxyEntries(n1)).includes(EGRESS_IP) && (await ownerFlows(n1, EGRESS_IP)).length === 0, { timeoutMs: 60_000, intervalMs: 200 });
      await waitFor('a1 seen from the egress IP through node2', async () => (await seenFromFabric('a1')) === EGRESS_IP, { timeoutMs: 60_000, intervalMs: 300 });
      expect(await proxyEntries(n2)).toContain(EGRESS_IP);
      expect(await seenFromFabric('a2')).toBe(EGRESS_IP);
    } finally {
      watching = false;
      await watcher;
    }
    expect(both).toEqual([]);
    // The same from the agents' own records (one clock, the machine's): for each move, the old owner
    // logged its release before the new owner logged its take.
    const moves = ipMoves(EGRESS_IP);
    const toNode1 = moves.find((m) => m.node === 'node1' && m.msg === 'external IP taken' && m.time >= t0);
    const offNode2 = moves.find((m) => m.node === 'node2' && m.msg === 'external IP released' && m.time >= t0);
    expect(toNode1).toBeDefined();
    expect(offNode2).toBeDefined();
    expect(offNode2!.time).toBeLessThanOrEqual(toNode1!.time);
  }, 240_000);
});
