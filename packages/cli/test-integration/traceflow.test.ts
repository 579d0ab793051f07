// yardctl traceflow against the embedded API server (tools/kube-api, TLS): the Traceflow yardctl
// creates is finished by a small in-test responder that stands in for the controller (tag, phase)
// and the agents (their observations). The real controller and agents are traced end to end in
// the lab tests; here the subject is yardctl: resolution, the object, waiting, output, cleanup.
import { loadCrds, type Traceflow } from '@switchyard/apis';
import { KubeConfigClient, KubeRequestError, type KubeObject, type WatchStream } from '@switchyard/kube';
import type { KubeApiServer } from '@switchyard/kube-api';
import { startTestKubeApi } from '@switchyard/kube-api/testing';
import { runYardctl } from '../src/program';
import { TRACEFLOWS_PATH } from '../src/traceflow-command';

let api: KubeApiServer;
let kube: KubeConfigClient;
let responder: WatchStream | undefined;
let serviceIP = '';

/** What the stand-in controller and agents report for a Traceflow, by its destination. */
function outcome(tf: Traceflow): Traceflow['status'] {
  const dst = tf.spec.destination;
  if (dst.pod === 'unreachable') return { phase: 'Failed', reason: 'Traceflow timed out: no agent reported the packet' };
  const sender = { node: 'node-a', role: 'Sender' as const, timestamp: 1, observations: [{ component: 'SpoofGuard' as const, action: 'Forwarded' as const }] };
  if (dst.pod === 'locked') {
    sender.observations.push({ component: 'NetworkPolicy', componentInfo: 'EgressMetric', action: 'Dropped', networkPolicy: 'AntreaClusterNetworkPolicy:deny-locked' } as never);
    return { phase: 'Succeeded', dataplaneTag: 7, results: [sender] };
  }
  sender.observations.push(
    ...(dst.service ? [{ component: 'LB', componentInfo: 'EndpointDNAT', action: 'Forwarded', translatedDstIP: '10.10.2.7' } as never] : []),
    { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.12' } as never,
  );
  const receiver = { node: 'node-b', role: 'Receiver' as const, timestamp: 2, observations: [{ component: 'Forwarding', action: 'Received' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'default/b' }] };
  // The agents report in any order; yardctl shows the Sender first.
  return { phase: 'Succeeded', dataplaneTag: 7, results: [receiver as never, sender] };
}

/** Stand-in controller and agents: a Traceflow is Running (tag 7) once created, then finished by {@link outcome}. */
async function startResponder(): Promise<void> {
  responder = await kube.watch(`${TRACEFLOWS_PATH}?watch=1`);
  const statusOf = (name: string) => `${TRACEFLOWS_PATH}/${name}/status`;
  void (async () => {
    for await (const ev of responder.events) {
      const tf = ev.object as unknown as Traceflow;
      if (ev.type !== 'ADDED' || tf.status?.phase) continue;
      const name = tf.metadata.name as string;
      try {
        await kube.request('PATCH', statusOf(name), { status: { phase: 'Running', dataplaneTag: 7, startTime: new Date().toISOString() } }, 'application/merge-patch+json');
        await new Promise((r) => setTimeout(r, 300));
        await kube.request('PATCH', statusOf(name), { status: outcome(tf) }, 'application/merge-patch+json');
      } catch (e) {
        // A run that already deleted its Traceflow is not the responder's failure.
        if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
      }
    }
  })();
}

async function yardctl(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runYardctl(['-k', api.kubeconfigPath, ...args], { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env: {} });
  return { code, out, err };
}

const traceflowNames = async (): Promise<string[]> => (await kube.request<{ items: KubeObject[] }>('GET', TRACEFLOWS_PATH)).items.map((t) => t.metadata.name as string);

beforeAll(async () => {
  let kubeConfig;
  ({ api, kubeConfig } = await startTestKubeApi({ crds: loadCrds() as unknown as KubeObject[] }));
  kube = new KubeConfigClient(kubeConfig);
  for (const [name, ip] of [
    ['a', '10.10.1.5'],
    ['b', '10.10.2.7'],
    ['locked', '10.10.2.8'],
    ['unreachable', '10.10.2.9'],
  ] as const) {
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } });
    // The kubelet's job: report the pod IP.
    await kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } }, 'application/merge-patch+json');
  }
  const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } });
  serviceIP = svc.spec.clusterIP;
  await startResponder();
}, 60000);

afterAll(async () => {
  responder?.abort();
  await api?.stop();
});

test('an inter-node trace prints the Sender, then the Receiver, exits 0 and deletes the Traceflow', async () => {
  const r = await yardctl(['traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=80']);
  expect(r).toMatchObject({ code: 0, err: '' });
  const lines = r.out.split('\n');
  expect(lines[0]).toMatch(/^traceflow a-to-b-[a-z0-9]{5}: Succeeded \(tag 7\)$/);
  expect(lines.slice(1)).toEqual([
    'source    default/a  10.10.1.5',
    'dest      default/b  10.10.2.7  tcp dport 80 flags 2',
    'node-a (Sender)',
    '  SpoofGuard      Forwarded',
    '  Forwarding      Forwarded   Output  tunnel to 192.168.77.12',
    'node-b (Receiver)',
    '  Forwarding      Received',
    '  Forwarding      Delivered   Output  to default/b',
    '',
  ]);
  expect(await traceflowNames()).toEqual([]);
});

test('to a Service: the destination is the Service, the DNAT is shown, --keep leaves the Traceflow', async () => {
  const r = await yardctl(['traceflow', '-S', 'a', '-D', 'web', '-f', 'tcp,tcp_dst=80', '--keep', '-o', 'yaml']);
  expect(r.code).toBe(0);
  expect(r.out).toContain('service: web');
  const names = await traceflowNames();
  expect(names).toHaveLength(1);
  expect(r.err).toContain(`traceflow ${names[0]} kept`);
  const kept = await kube.request<Traceflow>('GET', `${TRACEFLOWS_PATH}/${names[0]}`);
  expect(kept.spec).toMatchObject({ source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', service: 'web' }, packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } }, timeout: 20 });
  expect(kept.status?.phase).toBe('Succeeded');
  await kube.request('DELETE', `${TRACEFLOWS_PATH}/${names[0]}`);
  const t = await yardctl(['traceflow', '-S', 'a', '-D', 'web']);
  expect(t.out).toContain(`dest      default/web  ${serviceIP}  icmp`);
  expect(t.out).toContain('  LB              Forwarded   EndpointDNAT  DNAT to 10.10.2.7');
});

test('a Failed Traceflow exits 1 with its reason, and is deleted', async () => {
  const r = await yardctl(['traceflow', '-S', 'a', '-D', 'unreachable']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('reason   Traceflow timed out: no agent reported the packet');
  expect(r.err).toMatch(/^error: traceflow a-to-unreachable-[a-z0-9]{5} failed: Traceflow timed out: no agent reported the packet\n$/);
  expect(await traceflowNames()).toEqual([]);
});

test('a policy drop without a controller to explain it says so on one line and exits 0', async () => {
  const r = await yardctl(['traceflow', '-S', 'a', '-D', 'locked', '-f', 'udp,udp_dst=53']);
  expect(r.code).toBe(0);
  expect(r.out).toContain('  NetworkPolicy   Dropped     EgressMetric  AntreaClusterNetworkPolicy:deny-locked\n');
  expect(r.out).toMatch(/\n {18}explain: not available \(.+\)\n/);
});

test('a destination that is neither a Pod nor a Service exits 1 naming it', async () => {
  const r = await yardctl(['traceflow', '-S', 'a', '-D', 'default/ghost']);
  expect(r).toEqual({ code: 1, out: '', err: 'error: destination "default/ghost": no Pod or Service "ghost" in namespace "default"\n' });
});
