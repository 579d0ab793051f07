// Benchmark (not run in CI): this package's informer and REST client against the embedded API
// server (tools/kube-api, TLS, bearer token), with @kubernetes/client-node's own informer and
// CoreV1Api in the same run as the reference. Measures the initial LIST until synced (this
// informer pages it, 500 objects a page; client-node's lists in one request), the latency from
// sending a merge-patch until the informer's handler has the change, and GET latency.
// `BENCH_PODS=1000 npm run bench` scales it down.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { startKubeApi } from '@switchyard/kube-api';
import { Informer, KubeConfigClient, type ResourceSpec } from '../src/index';

const PODS = Number(process.env['BENCH_PODS'] ?? 5000);
const PATCHES = Math.min(PODS, Number(process.env['BENCH_PATCHES'] ?? 2000));
const GETS = Number(process.env['BENCH_GETS'] ?? 2000);
const NS = 'bench';
const pods: ResourceSpec = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };

interface Row {
  case: string;
  ops: number;
  switchyard: string;
  clientNode: string;
  ratio: string;
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
const median = (xs: number[]): number => pct(xs, 0.5);
const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 0)} ms`;

/**
 * Watch delivery: PATCHES merge-patches one at a time, each timed from sending the request until
 * the informer's handler sees that change (the server commits and sends the event before it
 * answers the PATCH). `round` is new each time, so every patch is a real change.
 */
class DeliveryProbe {
  private readonly sent = new Map<string, number>();
  private waiting: { name: string; wake: () => void } | undefined;
  readonly latencies: number[] = [];
  constructor(private readonly round: string) {}

  /** To call from the informer's update handler. */
  readonly seen = (name: string | undefined, round: string | undefined): void => {
    if (name === undefined || round !== this.round) return;
    const t = this.sent.get(name);
    if (t === undefined) return;
    this.sent.delete(name);
    this.latencies.push(performance.now() - t);
    if (this.waiting?.name === name) this.waiting.wake();
  };

  async run(kube: KubeConfigClient): Promise<void> {
    for (let i = 0; i < PATCHES; i++) {
      const name = `p${i}`;
      const arrived = new Promise<void>((wake) => (this.waiting = { name, wake }));
      this.sent.set(name, performance.now());
      await kube.request('PATCH', `/api/v1/namespaces/${NS}/pods/${name}`, { metadata: { labels: { round: this.round } } }, 'application/merge-patch+json');
      if (!this.sent.has(name)) continue;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no watch event for ${name} within 10 s`)), 10_000)));
      await Promise.race([arrived, late]).finally(() => clearTimeout(timer));
    }
  }
}

/** One informer's run: start until synced, then the delivery latency of each patch. */
interface Timing {
  syncMs: number;
  delivery: number[];
}

async function main(): Promise<void> {
  const api = await startKubeApi({});
  const dir = mkdtempSync(join(tmpdir(), 'kube-bench-'));
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig')));
    const kube = new KubeConfigClient(kc);
    const core = kc.makeApiClient(CoreV1Api);
    api.createObjects([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      ...Array.from({ length: PODS }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p${i}`, namespace: NS, labels: { app: `a${i % 10}`, round: '0' } },
        spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'c', image: 'registry.example/app:1' }] },
      })),
    ]);
    const rows: Row[] = [];
    const row = (name: string, ops: number, ours: number, ref: number, unit = ms): void => {
      rows.push({ case: name, ops, switchyard: unit(ours), clientNode: unit(ref), ratio: `${(ref / ours).toFixed(2)}x` });
    };

    let round = 0;
    const runOurs = async (): Promise<Timing> => {
      const probe = new DeliveryProbe(String(++round));
      const inf = new Informer(kube, pods, (e) => {
        if (e.type === 'MODIFIED') probe.seen(e.object.metadata.name, e.object.metadata.labels?.['round']);
      });
      const t0 = performance.now();
      inf.start();
      await inf.synced;
      const syncMs = performance.now() - t0;
      if (inf.cache.size !== PODS) throw new Error(`informer cached ${inf.cache.size} pods, expected ${PODS}`);
      await probe.run(kube);
      await inf.stop();
      return { syncMs, delivery: probe.latencies };
    };
    const runClientNode = async (): Promise<Timing> => {
      const probe = new DeliveryProbe(String(++round));
      const inf = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${NS}/pods`, () => core.listNamespacedPod({ namespace: NS }));
      let stopping = false;
      inf.on('update', (o) => probe.seen(o.metadata?.name, o.metadata?.labels?.['round']));
      inf.on('error', (err) => {
        if (!stopping) console.error('client-node informer error', err);
      });
      const t0 = performance.now();
      await inf.start(); // resolves once the LIST is in its cache
      const syncMs = performance.now() - t0;
      if (inf.list().length !== PODS) throw new Error(`client-node informer cached ${inf.list().length} pods, expected ${PODS}`);
      await probe.run(kube);
      stopping = true;
      await inf.stop();
      return { syncMs, delivery: probe.latencies };
    };
    // Warm-up (TLS sessions, JIT) outside the figures, then rounds in alternating order.
    await runOurs();
    await runClientNode();
    const ours: Timing[] = [];
    const ref: Timing[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) {
        ours.push(await runOurs());
        ref.push(await runClientNode());
      } else {
        ref.push(await runClientNode());
        ours.push(await runOurs());
      }
    }
    const delivery = (ts: Timing[]): number[] => ts.flatMap((t) => t.delivery);
    row(`initial LIST of ${PODS} pods until synced, median of ${ROUNDS}`, PODS, median(ours.map((t) => t.syncMs)), median(ref.map((t) => t.syncMs)));
    row('merge-patch sent -> change in the informer, p50', ROUNDS * PATCHES, pct(delivery(ours), 0.5), pct(delivery(ref), 0.5));
    row('merge-patch sent -> change in the informer, p99', ROUNDS * PATCHES, pct(delivery(ours), 0.99), pct(delivery(ref), 0.99));

    // GET latency, one request at a time, alternating so both see the same server state.
    const oursGet: number[] = [];
    const refGet: number[] = [];
    for (let i = 0; i < GETS; i++) {
      const name = `p${i % PODS}`;
      const t0 = performance.now();
      await kube.request('GET', `/api/v1/namespaces/${NS}/pods/${name}`);
      const t1 = performance.now();
      await core.readNamespacedPod({ name, namespace: NS });
      refGet.push(performance.now() - t1);
      oursGet.push(t1 - t0);
    }
    row('GET one pod, p50', GETS, pct(oursGet, 0.5), pct(refGet, 0.5));
    row('GET one pod, p99', GETS, pct(oursGet, 0.99), pct(refGet, 0.99));

    console.table(rows);
    writeFileSync(
      join(dirname(fileURLToPath(import.meta.url)), 'results.json'),
      `${JSON.stringify(
        {
          node: process.version,
          date: new Date().toISOString(),
          server: 'tools/kube-api in-process, TLS, bearer token',
          reference: '@kubernetes/client-node makeInformer and CoreV1Api, same server and kubeconfig',
          ratio: 'client-node time / switchyard time (above 1: switchyard is faster)',
          rows,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
