// Pods and TCP exchanges in the multi-cluster lab tests (multicluster*.test.ts).
import { run, waitFor } from '@switchyard/testbed';
import type { MemberCluster } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }

/** Creates Pod `name` (label app=`app`, port 80) on `nodeName` of cluster `c` and waits until it runs: its netns and IP. */
export async function runningPod(c: MemberCluster, name: string, app: string, nodeName: string): Promise<{ netns: string; ip: string }> {
  await c.kube.request('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
    spec: { nodeName, containers: [{ name: 'c', image: app, ports: [{ containerPort: 80 }] }] },
  });
  let pod: PodView | undefined;
  await waitFor(`${c.plan.name} pod ${name} running`, async () => {
    pod = await c.kube.request<PodView>('GET', `/api/v1/namespaces/default/pods/${name}`);
    return Boolean(pod.status?.podIP && pod.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return { netns: pod!.metadata.annotations![NETNS_ANNOTATION]!, ip: pod!.status!.podIP! };
}

/** One TCP exchange from a pod, sending `input`: true when the server's `pong` comes back. */
export async function pong(netns: string, ip: string, port: number, input = ''): Promise<boolean> {
  const r = await run(['ip', 'netns', 'exec', netns, 'nc', '-w', '1', ip, String(port)], { allowFailure: true, timeoutMs: 5000, input });
  return r.code === 0 && r.stdout.includes('pong');
}
