// Benchmark (not run in CI): Egress members computed by the controller and shipped as EgressGroups,
// against every agent computing them from a cluster-wide Pod and Namespace watch (before). For a
// cluster of BENCH_PODS pods (default 1,000) on BENCH_NODES nodes (default 1,000 agents), with
// BENCH_EGRESSES Egresses each selecting one app of 20: what each agent watches and holds, the bytes
// and messages per change on the wire (the controller's frames, encoded by the real encoder, fanned
// out by the real hub to one watcher per node), and the controller's CPU for the membership,
// also at 100,000 pods. `npx tsx bench/egress-groups.ts`; writes bench/egress-groups.results.json.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { controlplane } from '@switchyard/apis';
import { EgressMembership, egressMemberPod, type EgressSelectorFacts } from '../src/egress-groups';
import { SharedEncodings } from '../src/frames';
import { ControlplaneHub, type ControlplaneResource, type NodeWatcher } from '../src/hub';
import { egressGroupEvents } from '../src/parts/egress-groups';

const PODS = Number(process.env.BENCH_PODS ?? '1000');
const NODES = Number(process.env.BENCH_NODES ?? '1000');
const EGRESSES = Number(process.env.BENCH_EGRESSES ?? '10');
const NAMESPACES = 50;
const APPS = 20;

const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
/** A Pod as the API serves it (as a kubelet leaves it, without managedFields): what a cluster-wide Pod watch carries per object. */
function podObject(i: number, app = `app-${i % APPS}`): Record<string, unknown> {
  const name = `web-${i}-7d9c5b8f6-x${(i * 7919).toString(36).slice(-5)}`;
  const ns = `ns-${i % NAMESPACES}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name, namespace: ns, uid: `3f1c9a2e-${(i + 4096).toString(16).padStart(4, '0')}-4b5d-9e8f-0123456789ab`, resourceVersion: String(100000 + i), creationTimestamp: '2026-11-29T10:00:00Z',
      generateName: `web-${i}-7d9c5b8f6-`, labels: { app, 'pod-template-hash': '7d9c5b8f6', tier: 'web' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i}-7d9c5b8f6`, uid: '8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [{ name: 'web', image: 'registry.example/web:1.25.3', ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' } }, volumeMounts: [{ name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', nodeName: `node-${i % NODES}`, schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      volumes: [{ name: 'kube-api-access-abcde', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }],
    },
    status: {
      phase: 'Running', hostIP: `192.168.${(i % NODES) >> 8}.${(i % NODES) & 255}`, podIP: ip(i), podIPs: [{ ip: ip(i) }], startTime: '2026-11-29T10:00:01Z', qosClass: 'Burstable',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-29T10:00:03Z' })),
      containerStatuses: [{ name: 'web', state: { running: { startedAt: '2026-11-29T10:00:02Z' } }, lastState: {}, ready: true, restartCount: 0, image: 'registry.example/web:1.25.3', imageID: 'registry.example/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', containerID: 'containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', started: true }],
    },
  };
}
const nsObject = (n: number): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${n}`, uid: `ns-${n}-uid`, resourceVersion: String(n + 1), creationTimestamp: '2026-11-29T09:00:00Z', labels: { 'kubernetes.io/metadata.name': `ns-${n}` } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
const egressFacts = (e: number): EgressSelectorFacts => ({ name: `eg-${e}`, creationTimestamp: `2026-11-29T10:00:${String(e % 60).padStart(2, '0')}Z`, podSelector: { matchLabels: { app: `app-${e % APPS}` } } });
const watchEventBytes = (type: string, object: unknown): number => Buffer.byteLength(JSON.stringify({ type, object })) + 1; // a JSON watch line

class Counter implements NodeWatcher {
  messages = 0;
  bytes = 0;
  constructor(readonly node: string, readonly resources: ReadonlySet<ControlplaneResource>, private readonly frames: SharedEncodings) {}
  send(events: readonly controlplane.WatchEvent[]): void {
    for (const e of events) {
      this.messages++;
      this.bytes += this.frames.of(e, e.resourceVersion ?? '').length;
    }
  }
}

function cpuMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

function main(): void {
  const load = loadavg()[0] ?? 0;
  const rows: [string, string, string][] = [];
  const json: Record<string, unknown> = { pods: PODS, nodes: NODES, egresses: EGRESSES, namespaces: NAMESPACES, loadAverage: Number(load.toFixed(1)), at: new Date().toISOString() };

  // ---- before: each agent's egress part listed and watched every Pod and Namespace ----
  const pods = Array.from({ length: PODS }, (_, i) => podObject(i));
  const podBytes = pods.map((p) => Buffer.byteLength(JSON.stringify(p)));
  const podListBytes = podBytes.reduce((a, b) => a + b, 0) + NAMESPACES * Buffer.byteLength(JSON.stringify(nsObject(0)));
  const podEventBytes = watchEventBytes('MODIFIED', pods[0]);
  json.before = { apiWatchesPerAgent: 4, objectsHeldPerAgent: PODS + NAMESPACES + EGRESSES + NODES, listBytesPerAgent: podListBytes, podEventBytes, podBytesMean: Math.round(podListBytes / PODS) };

  // ---- after: the controller's membership, the hub, one egressgroups watcher per node ----
  const hub = new ControlplaneHub({ epoch: 'bench', bookmarkIntervalMs: 0 });
  const m = new EgressMembership();
  const publish = (cs: ReturnType<EgressMembership['setPod']>): void => hub.publishEgressGroups(egressGroupEvents(cs));
  const loadMs = cpuMs(() => {
    for (let n = 0; n < NAMESPACES; n++) publish(m.setNamespace(`ns-${n}`, { 'kubernetes.io/metadata.name': `ns-${n}` }));
    for (const p of pods) publish(m.setPod(String((p.metadata as { namespace: string }).namespace), String((p.metadata as { name: string }).name), egressMemberPod(p as never)));
    publish(m.setEgresses(Array.from({ length: EGRESSES }, (_, e) => egressFacts(e))));
  });
  hub.markSynced();
  const frames = new SharedEncodings();
  const initialFrames = new SharedEncodings({ framed: true });
  const watchers = Array.from({ length: NODES }, (_, n) => new Counter(`node-${n}`, new Set(['egressgroups']), frames));
  let initialBytes = 0;
  let initialMessages = 0;
  for (const w of watchers) {
    const start = hub.watch(w);
    if (start.mode !== 'initial') throw new Error('expected an initial watch');
    for (const e of start.events) initialBytes += initialFrames.of(e, start.resourceVersion).length;
    initialMessages += start.events.length + 1; // and the BOOKMARK
  }
  const members = m.allGroups().reduce((s, g) => s + g.groupMembers.length, 0);
  const totals = (): { messages: number; bytes: number } => watchers.reduce((t, w) => ({ messages: t.messages + w.messages, bytes: t.bytes + w.bytes }), { messages: 0, bytes: 0 });
  const measure = (what: string, change: () => void): { messages: number; bytes: number; cpuMs: number } => {
    const before = totals();
    const c = cpuMs(change);
    const after = totals();
    const out = { messages: after.messages - before.messages, bytes: after.bytes - before.bytes, cpuMs: Number(c.toFixed(2)) };
    (json.changes as Record<string, unknown>)[what] = out;
    return out;
  };
  json.changes = {};
  json.after = { apiWatchesPerAgent: 2, controlplaneStreamsPerAgent: 1, objectsHeldPerAgent: EGRESSES + NODES + members, groups: m.allGroups().length, members, initialBytesPerAgent: Math.round(initialBytes / NODES), initialMessagesPerAgent: initialMessages / NODES, membershipLoadCpuMs: Number(loadMs.toFixed(1)) };

  // A member pod's label changes so that it leaves its Egress (and another selects it).
  const moved = podObject(0, `app-${1 % APPS}`);
  const memberMove = measure('a member moves to another Egress (label change)', () => publish(m.setPod('ns-0', String((moved.metadata as { name: string }).name), egressMemberPod(moved as never))));
  // A pod no Egress selects changes (most pod churn): nothing to send.
  const other = podObject(APPS - 1, 'unselected');
  const quiet = measure('a pod no Egress selects changes', () => publish(m.setPod(`ns-${(APPS - 1) % NAMESPACES}`, String((other.metadata as { name: string }).name), egressMemberPod(other as never))));
  // A new member pod gets its IP (a pod start); its deletion.
  const fresh = podObject(PODS, 'app-0');
  const podStart = measure('a new member pod gets its IP', () => publish(m.setPod(String((fresh.metadata as { namespace: string }).namespace), String((fresh.metadata as { name: string }).name), egressMemberPod(fresh as never))));
  const podGone = measure('a member pod is deleted', () => publish(m.setPod(String((fresh.metadata as { namespace: string }).namespace), String((fresh.metadata as { name: string }).name), undefined)));
  // A new Egress selecting one app (its whole group, to every node), and its deletion.
  const newEgress = measure('an Egress is created (its group, all members)', () => publish(m.setEgresses([...Array.from({ length: EGRESSES }, (_, e) => egressFacts(e)), { name: 'eg-new', creationTimestamp: '2026-11-29T11:00:00Z', podSelector: { matchLabels: { app: `app-${APPS - 2}` } } }])));
  const newEgressMembers = m.group('eg-new')?.groupMembers.length ?? 0;
  const delEgress = measure('the Egress is deleted', () => publish(m.setEgresses(Array.from({ length: EGRESSES }, (_, e) => egressFacts(e)))));

  const kb = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`);
  rows.push(['API watches per agent (egress part)', `before 4 (Egresses, Pods, Namespaces, Nodes), after 2 (Egresses, Nodes) + the egressgroups stream`, '']);
  rows.push(['objects held per agent', `before ${PODS + NAMESPACES + EGRESSES + NODES} (${PODS} Pods, ${NAMESPACES} Namespaces, ${EGRESSES} Egresses, ${NODES} Nodes)`, `after ${EGRESSES + NODES} objects + ${members} members in ${m.allGroups().length} groups`]);
  rows.push(['initial list per agent', `before ${kb(podListBytes)} JSON (Pods ${kb(Math.round(podListBytes / PODS))} each, mean)`, `after ${kb(Math.round(initialBytes / NODES))} protobuf (${initialMessages / NODES} messages)`]);
  rows.push(['initial lists, all agents', `before ${kb(podListBytes * NODES)}`, `after ${kb(initialBytes)}`]);
  rows.push(['one Pod update, all agents', `before ${NODES} events, ${kb(podEventBytes * NODES)} (every Pod change, selected or not)`, `after: member move ${memberMove.messages} messages ${kb(memberMove.bytes)}; unselected pod ${quiet.messages} ${kb(quiet.bytes)}`]);
  rows.push(['new member pod gets its IP / deleted, all agents', `before ${NODES} events each (${kb(podEventBytes * NODES)})`, `after ${podStart.messages} messages ${kb(podStart.bytes)} / ${podGone.messages} messages ${kb(podGone.bytes)}`]);
  rows.push([`Egress created (${newEgressMembers} members) / deleted, all agents`, `before ${NODES} Egress events (the members computed on each agent)`, `after ${newEgress.messages} messages ${kb(newEgress.bytes)} / ${delEgress.messages} messages ${kb(delEgress.bytes)}`]);
  rows.push(['controller CPU: membership of the whole cluster (load)', `${loadMs.toFixed(1)} ms`, '']);
  rows.push(['controller CPU per change, incl. fan-out to all watchers', `member move ${memberMove.cpuMs} ms, pod start ${podStart.cpuMs} ms, Egress created ${newEgress.cpuMs} ms`, '']);

  // ---- the controller at 100,000 pods (Antrea's scale scenario size), 100 Egresses ----
  const big = new EgressMembership();
  const BIG = 100_000;
  const heap0 = process.memoryUsage().heapUsed;
  const bigPods = Array.from({ length: BIG }, (_, i) => ({ namespace: `ns-${i % 25_000}`, name: `p-${i}`, nodeName: `node-${i % 1000}`, ips: [ip(i)], labels: { app: `app-${i % 200}` } }));
  const bigLoad = cpuMs(() => {
    for (const p of bigPods) big.setPod(p.namespace, p.name, p);
    big.setEgresses(Array.from({ length: 100 }, (_, e) => ({ name: `eg-${e}`, creationTimestamp: `2026-11-29T10:${String(Math.floor(e / 60)).padStart(2, '0')}:${String(e % 60).padStart(2, '0')}Z`, podSelector: { matchLabels: { app: `app-${e * 2}` } } })));
  });
  const heap1 = process.memoryUsage().heapUsed;
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const p = bigPods[i * 7]!;
    samples.push(cpuMs(() => big.setPod(p.namespace, p.name, { ...p, labels: { app: `app-${(i * 3) % 200}` } })));
  }
  samples.sort((a, b) => a - b);
  const bigEgress = cpuMs(() => big.setEgresses(Array.from({ length: 101 }, (_, e) => ({ name: `eg-${e}`, creationTimestamp: `2026-11-29T10:${String(Math.floor(e / 60)).padStart(2, '0')}:${String(e % 60).padStart(2, '0')}Z`, podSelector: { matchLabels: { app: `app-${(e * 2) % 200}` } } }))));
  json.scale100k = { pods: BIG, egresses: 100, loadCpuMs: Number(bigLoad.toFixed(0)), heapMB: Number(((heap1 - heap0) / 1e6).toFixed(1)), podChangeP50Ms: samples[100], podChangeP99Ms: samples[198], egressAddedCpuMs: Number(bigEgress.toFixed(1)) };
  rows.push(['100k pods, 100 Egresses: load / heap', `${bigLoad.toFixed(0)} ms CPU, ~${((heap1 - heap0) / 1e6).toFixed(0)} MB heap (pods included)`, '']);
  rows.push(['100k pods: pod label change p50 / p99 (200)', `${samples[100]!.toFixed(3)} / ${samples[198]!.toFixed(3)} ms`, `an Egress added: ${bigEgress.toFixed(1)} ms`]);

  console.log(`Egress groups: ${PODS} pods, ${NODES} agents, ${EGRESSES} Egresses (${members} members), load average ${load.toFixed(1)}`);
  for (const [a, b, c] of rows) console.log(`| ${a} | ${b} | ${c} |`);
  const out = fileURLToPath(new URL('./egress-groups.results.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

main();
