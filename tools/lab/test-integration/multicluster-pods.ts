// Pods and TCP exchanges in the multi-cluster lab tests (multicluster*.test.ts).
import { run, waitFor } from '@switchyard/testbed';
import { MulticlusterLab, type MemberCluster, type MulticlusterLabOptions } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string; podIPs?: { ip: string }[] } }

/** Creates Pod `name` (label app=`app`, port 80) on `nodeName` of cluster `c` and waits until it runs: its netns and IP. */
export async function runningPod(c: MemberCluster, name: string, app: string, nodeName: string): Promise<PodEnd> {
  await c.kube.request('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
    spec: { nodeName, containers: [{ name: 'c', image: app, ports: [{ containerPort: 80 }] }] },
  });
  let pod: PodView | undefined;
  await waitFor(`${c.plan.name} pod ${name} running`, async () => {
    pod = await c.kube.request<PodView>('GET', `/api/v1/namespaces/default/pods/${name}`);
    return Boolean(pod.status?.podIP && pod.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const ipv6 = pod!.status!.podIPs?.map((p) => p.ip).find((ip) => ip.includes(':'));
  return { netns: pod!.metadata.annotations![NETNS_ANNOTATION]!, ip: pod!.status!.podIP!, ...(ipv6 ? { ipv6 } : {}) };
}

/** A pod's network namespace and address. */
export interface PodEnd {
  netns: string;
  ip: string;
  /** A dual-stack lab's pod: its IPv6 address. */
  ipv6?: string;
}

/**
 * Starts the lab, then a server pod (nginx-0, app nginx) in west and a client pod in east, both on
 * node2: off the gateways (node1 is the first candidate), so traffic between them goes node ->
 * gateway -> gateway -> node. A lab that started is stopped again if the pods fail.
 */
export async function multiclusterLabWithPods(o: MulticlusterLabOptions): Promise<{ mcl: MulticlusterLab; west: MemberCluster; east: MemberCluster; server: PodEnd; client: PodEnd }> {
  const mcl = await MulticlusterLab.start(o);
  try {
    const west = mcl.member('west');
    const east = mcl.member('east');
    const [server, client] = await Promise.all([runningPod(west, 'nginx-0', 'nginx', 'node2'), runningPod(east, 'client', 'client', 'node2')]);
    return { mcl, west, east, server, client };
  } catch (err) {
    await mcl.stop();
    throw err;
  }
}

/**
 * One TCP exchange from a pod, sending `input`: true when the server's `pong` comes back within
 * `waitSeconds` (nc's `-w`). 3 s covers one retransmission (TCP's first at 1 s), for checks of
 * continuity on a loaded machine; 1 s (the default) for checks that a path is blocked right after
 * a policy lands.
 */
export async function pong(netns: string, ip: string, port: number, input = '', waitSeconds = 1): Promise<boolean> {
  const r = await run(['ip', 'netns', 'exec', netns, 'nc', '-w', String(waitSeconds), ip, String(port)], { allowFailure: true, timeoutMs: 5000 + waitSeconds * 1000, input });
  return r.code === 0 && r.stdout.includes('pong');
}
