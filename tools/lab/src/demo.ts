/**
 * The README demo: a 2-node lab and the walkthrough of antctl-and-policies-walkthrough.txt
 * (nginx pods, a busybox client, the `nginx-allow` policy, then the label changes), printing
 * reachability by pod IP before and after each step and the IngressRule flows at the end.
 * `--keep` leaves the lab running.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '@switchyard/testbed';
import { DEFAULT_LAB_DIR } from './plan';
import { REPO_ROOT } from './lab';
import { labClient, readState } from './client';
import { NETNS_ANNOTATION } from './kubelet';
import { agentGet, tcpProbe } from './probe';

const keep = process.argv.includes('--keep');
const labBin = join(REPO_ROOT, 'tools/lab/bin/switchyard-lab');
/** yardctl (packages/cli) from source, output straight to the terminal. */
const yardctl = (...args: string[]): void => {
  execFileSync(process.execPath, ['--import', join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs'), join(REPO_ROOT, 'packages/cli/src/bin.ts'), ...args], { stdio: 'inherit' });
};
const lab = (...args: string[]): void => {
  execFileSync(labBin, args, { stdio: 'inherit' });
};

interface PodView { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; status?: { podIP?: string } }

async function main(): Promise<void> {
  lab('up', '--nodes', '2');
  const st = readState(DEFAULT_LAB_DIR);
  if (!st) throw new Error('lab state missing after up');
  const kube = labClient(st);
  const ns = '/api/v1/namespaces/default';
  const say = (s: string): void => void process.stdout.write(`\n== ${s}\n`);
  try {
    // Pods on node1: the walkthrough waits for node1's IngressRule flows to change after each step
    // and shows them, so the pods the policy selects live there. (Cross-node traffic is exercised
    // by the lab's modes, restart and conformance tests.)
    const pod = (name: string, app: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app } },
      spec: { nodeName: 'node1', containers: [{ name: 'c', image: app, ports: [{ containerPort: 80, name: 'http' }] }] },
    });
    say('kubectl apply: 3 nginx pods and the ch-busybox client');
    for (const p of [pod('nginx-1', 'nginx'), pod('nginx-2', 'nginx'), pod('nginx-3', 'nginx'), pod('ch-busybox', 'busybox-cor')]) await kube.request('POST', `${ns}/pods`, p);
    const pods = new Map<string, PodView>();
    await waitFor('pods running', async () => {
      const list = await kube.request<{ items: PodView[] }>('GET', `${ns}/pods`);
      for (const p of list.items) pods.set(p.metadata.name, p);
      return list.items.length === 4 && list.items.every((p) => p.status?.podIP && p.metadata.annotations?.[NETNS_ANNOTATION]);
    }, { timeoutMs: 60_000, intervalMs: 200 });
    for (const p of pods.values()) process.stdout.write(`  ${p.metadata.name.padEnd(11)} ${p.status?.podIP ?? ''}\n`);
    const client = pods.get('ch-busybox')!;
    const clientNs = client.metadata.annotations![NETNS_ANNOTATION]!;
    const servers = [...pods.values()].filter((p) => p.metadata.name.startsWith('nginx'));
    const node1 = st.nodes[0]!;

    const reach = async (title: string): Promise<void> => {
      const live = await kube.request<PodView>('GET', `${ns}/pods/ch-busybox`);
      process.stdout.write(`  reachability from ch-busybox (app=${live.metadata.labels?.app ?? '-'}), TCP 80 by pod IP [${title}]\n`);
      for (const s of servers) {
        const ok = await tcpProbe(clientNs, s.status!.podIP!, 80);
        process.stdout.write(`    -> ${s.metadata.name} ${s.status!.podIP}: ${ok ? 'OPEN' : 'BLOCKED'}\n`);
      }
    };
    const ingressFlows = async (): Promise<string> => (await agentGet<string[]>(node1.apiSocket, '/ovsflows?table=IngressRule')).join('\n');
    /** Runs a change, then waits until node1's IngressRule flows differ from before it (realized). */
    const changed = async (change: () => Promise<unknown>): Promise<void> => {
      const before = await ingressFlows();
      await change();
      await waitFor('IngressRule flows to change on node1', async () => (await ingressFlows()) !== before, { timeoutMs: 30_000, intervalMs: 100 });
    };
    const policy = (apps: string[]) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'nginx-allow' },
      spec: { podSelector: { matchLabels: { app: 'nginx' } }, ingress: [{ from: apps.map((app) => ({ podSelector: { matchLabels: { app } } })) }] },
    });
    const relabel = (app: string) => kube.request('PATCH', `${ns}/pods/ch-busybox`, { metadata: { labels: { app } } }, 'application/merge-patch+json');
    const np = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';

    say('step 0: no policy');
    await reach('no policy');
    say('step 1: kubectl apply nginx-allow (ingress to app=nginx only from app=nginx)');
    await changed(() => kube.request('POST', np, policy(['nginx'])));
    await reach('nginx-allow');
    say('step 2: kubectl label pod ch-busybox app=nginx --overwrite');
    await changed(() => relabel('nginx'));
    await reach('client labelled app=nginx');
    say('step 3: kubectl label pod ch-busybox app=busybox --overwrite');
    await changed(() => relabel('busybox'));
    await reach('client labelled app=busybox');
    say('step 4: nginx-allow also admits app=busybox');
    const cur = await kube.request<{ metadata: { resourceVersion: string } }>('GET', `${np}/nginx-allow`);
    await changed(() => kube.request('PUT', `${np}/nginx-allow`, { ...policy(['nginx', 'busybox']), metadata: { name: 'nginx-allow', namespace: 'default', resourceVersion: cur.metadata.resourceVersion } }));
    await reach('nginx-allow with app=busybox');
    say(`yardctl get networkpolicy`);
    yardctl('--kubeconfig', st.kubeconfig, 'get', 'networkpolicy');
    say(`yardctl get ovsflows -T IngressRule --agent-socket ${node1.apiSocket}   (node1)`);
    yardctl('get', 'ovsflows', '-T', 'IngressRule', '--agent-socket', node1.apiSocket);
  } finally {
    if (keep) process.stdout.write(`\nlab left running (--keep): kubectl --kubeconfig ${st.kubeconfig} get pods -o wide; tear down with tools/lab/bin/switchyard-lab down\n`);
    else lab('down');
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).message}\n`);
  process.exit(1);
});
