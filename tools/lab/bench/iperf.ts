// What the lab's benchmarks share: an iperf3 client and server pod on two nodes, iperf3 runs
// between network namespaces, and medians of the runs.
import type { KubeConfigClient } from '@switchyard/controller';
import { run, waitFor } from '@switchyard/testbed';
import { NETNS_ANNOTATION } from '../src/kubelet';

export const IPERF_SECONDS = Number(process.env.BENCH_IPERF_SECONDS ?? '5');
export const IPERF_REPEATS = Number(process.env.BENCH_IPERF_REPEATS ?? '3');

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};

/** iperf3 TCP throughput from one netns to an address, bits/s (receiver side). */
export async function iperf(clientNs: string, serverNs: string, serverIp: string): Promise<number> {
  const srv = run(['ip', 'netns', 'exec', serverNs, 'iperf3', '-s', '-1'], { allowFailure: true, timeoutMs: 120_000 });
  await waitFor('iperf3 server', async () => (await run(['ip', 'netns', 'exec', serverNs, 'ss', '-ltn'], { allowFailure: true })).stdout.includes(':5201'), { timeoutMs: 10_000, intervalMs: 100 });
  const r = await run(['ip', 'netns', 'exec', clientNs, 'iperf3', '-c', serverIp, '-t', String(IPERF_SECONDS), '-J'], { timeoutMs: 120_000 });
  await srv;
  return (JSON.parse(r.stdout) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second;
}

/** A pod's network namespace and address. */
export interface PodPlace {
  ns: string;
  ip: string;
}

/**
 * Pods `cli` on node1 and `srv` on node2 in `default` (labelled `app: <name>` with `labelled`),
 * once the kubelet stand-in has given both a network namespace and an address.
 */
export async function iperfPods(kube: KubeConfigClient, opts: { labelled?: boolean } = {}): Promise<{ cli: PodPlace; srv: PodPlace }> {
  for (const [name, node] of [['cli', 'node1'], ['srv', 'node2']] as const)
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...(opts.labelled ? { labels: { app: name } } : {}) }, spec: { nodeName: node, containers: [{ name: 'c', image: 'iperf3' }] } });
  const pods = new Map<string, PodPlace>();
  await waitFor('pods', async () => {
    for (const name of ['cli', 'srv']) {
      const p = await kube.request<{ metadata: { annotations?: Record<string, string> }; status?: { podIP?: string } }>('GET', `/api/v1/namespaces/default/pods/${name}`);
      const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (ns && p.status?.podIP) pods.set(name, { ns, ip: p.status.podIP });
    }
    return pods.size === 2;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return { cli: pods.get('cli')!, srv: pods.get('srv')! };
}
