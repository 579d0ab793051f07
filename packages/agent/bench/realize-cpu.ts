// The 1,000-rule realization of `npm run bench` (BENCH_ONLY=policy) without OVS: FlowSync computes
// the policy's flows and encodes its bundle as SwitchConnection does (bundle-adds written into a
// buffer), so the agent's CPU per realization can be measured alone, realization after realization
// in one process (the first one runs cold code). `tsx bench/realize-cpu.ts [rounds]`; prints the CPU
// ms of each realization (the process's, and its main thread's against its other threads': V8's
// compiler and GC helpers), alternating two policies of the same shape (nothing of one reused by the
// other), and a hash of each encoded bundle. docs/agent.md#benchmark.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { FlowTransport } from '@switchyard/openflow';
import * as codec from '@switchyard/openflow/codec';
import { Writer, writeMessage, type Flow, type OfMessage } from '@switchyard/openflow/codec';
import type { NetworkPolicy, NodeConfig } from '@switchyard/openflow-pipeline';
import { FlowSync } from '../src/flow-sync';

/** Encodes what FlowSync sends as the switch connection's bundle would; a hash of the bytes for comparisons. */
class EncodingSwitch implements FlowTransport {
  private readonly w = new Writer(1 << 17);
  private hash = createHash('sha256');
  bytes = 0;
  async bundle(messages: Iterable<OfMessage>): Promise<void> {
    let xid = 1;
    const flags = { atomic: true, ordered: true };
    // What SwitchConnection.bundle writes per message (writeBundleAdd where the codec has it).
    const write = (codec as Record<string, unknown>).writeBundleAdd as ((w: Writer, id: number, f: typeof flags, bits: number, m: OfMessage, xid: number) => void) | undefined;
    // As SwitchConnection.bundle walks an array: by index.
    const list = Array.isArray(messages) ? (messages as OfMessage[]) : [...messages];
    for (let i = 0; i < list.length; i++) {
      const message = list[i]!;
      if (write) write(this.w, 1, flags, 3, message, xid++);
      else writeMessage(this.w, { type: 'bundleAdd', bundleId: 1, flags, message }, xid++);
      if (this.w.length >= 1 << 16) this.drain();
    }
    this.drain();
  }
  private drain(): void {
    const b = this.w.take();
    this.bytes += b.length;
    this.hash.update(b);
  }
  digest(): string {
    const d = this.hash.digest('hex').slice(0, 16);
    this.hash = createHash('sha256');
    return d;
  }
  async dumpFlows(): Promise<Flow[]> {
    return [];
  }
  async flowMods(): Promise<void> {}
}

const config: NodeConfig = {
  round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.100.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.100.0.0/16',
  nodeIP: '192.168.1.1', netdevDatapath: true, enableAntreaPolicy: true, enableProxy: true,
};

/** The bench's policy: rule i allows TCP port `port0 + i` from its own /32 (10.`net0`.x.y), applied to pod-0. */
function benchPolicy(n: number, uid: string, net0: number, port0: number, prio: number): { policy: NetworkPolicy; group: string } {
  const rules = Array.from({ length: n }, (_, i) => ({
    direction: 'In' as const,
    from: { addressGroups: [], ipBlocks: [{ cidr: `10.${net0 + (i >> 16)}.${(i >> 8) & 0xff}.${i & 0xff}/32`, except: [] }] },
    to: { addressGroups: [], ipBlocks: [] },
    services: [{ protocol: 'TCP' as const, port: port0 + i }],
    action: 'Allow' as const,
    priority: i,
    enableLogging: false,
  }));
  const group = `${uid}-atg`;
  const policy: NetworkPolicy = {
    uid, name: uid, namespace: '', generation: 1, priority: prio, tierPriority: 250, appliedToGroups: [group],
    sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: uid, uid },
    rules,
  };
  return { policy, group };
}

/** CPU ms of this process's main thread and of its other threads (V8's compiler and GC helpers), from /proc (10 ms ticks). */
function threadCpuMs(): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(f[11]) + Number(f[12])) * 10;
    if (Number(tid) === process.pid) main += ms;
    else others += ms;
  }
  return { main, others };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 6);
  const n = Number(process.env.BENCH_RULES ?? 1000);
  // WARMUP_RULES=<n>: a synthetic n-rule policy realized and removed first on another FlowSync (V8 warm-up).
  const wn = Number(process.env.WARMUP_RULES ?? 0);
  if (wn > 0) {
    const ws = new FlowSync(new EncodingSwitch(), config);
    await ws.initialSync([{ name: 'pod-0', namespace: 'bench', ofport: 3, ips: ['10.100.0.2'], mac: '02:00:00:00:00:02' }]);
    const { policy, group } = benchPolicy(wn, 'warmup', 240, 40000, 9);
    const c0 = process.cpuUsage();
    await ws.set({ policies: [policy], addressGroups: [], appliedToGroups: [{ name: group, groupMembers: [{ pod: { name: 'pod-0', namespace: 'bench' }, ips: ['10.100.0.2'] }] }] });
    await ws.set({ policies: [], addressGroups: [], appliedToGroups: [] });
    const c = process.cpuUsage(c0);
    console.log(`warm-up ${wn} rules: ${Math.round((c.user + c.system) / 1000)} ms CPU`);
  }
  const sw = new EncodingSwitch();
  const sync = new FlowSync(sw, config);
  const pod = { name: 'pod-0', namespace: 'bench', ofport: 3, ips: ['10.100.0.2'], mac: '02:00:00:00:00:02' };
  await sync.initialSync([pod]);
  sw.digest();
  const cpu: number[] = [];
  const threads: { main: number; others: number }[] = [];
  const digests: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const { policy, group } = r % 2 === 0 ? benchPolicy(n, 'bench-acnp', 200, 10000, 5) : benchPolicy(n, 'bench-acnp-warm', 220, 30000, 7);
    // REALIZE_CPU_PROFILE=<file>: a CPU profile of realization REALIZE_PROFILE_ROUND (default 0, the first).
    const profiler = r === Number(process.env.REALIZE_PROFILE_ROUND ?? 0) && process.env.REALIZE_CPU_PROFILE ? new Session() : undefined;
    // REALIZE_HEAP_PROFILE=<file>: an allocation-sampling profile of the same realization instead.
    const heap = profiler && process.env.REALIZE_HEAP_PROFILE !== undefined;
    if (profiler) {
      profiler.connect();
      if (heap) {
        await profiler.post('HeapProfiler.enable');
        await profiler.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      } else {
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
        await profiler.post('Profiler.start');
      }
    }
    const th0 = threadCpuMs();
    const c0 = process.cpuUsage();
    await sync.set({ policies: [policy], addressGroups: [], appliedToGroups: [{ name: group, groupMembers: [{ pod: { name: 'pod-0', namespace: 'bench' }, ips: ['10.100.0.2'] }] }] });
    const c = process.cpuUsage(c0);
    cpu.push(Math.round((c.user + c.system) / 100) / 10);
    const th1 = threadCpuMs();
    threads.push({ main: th1.main - th0.main, others: th1.others - th0.others });
    if (profiler) {
      const out = heap ? (await profiler.post('HeapProfiler.stopSampling')).profile : (await profiler.post('Profiler.stop')).profile;
      writeFileSync(process.env.REALIZE_CPU_PROFILE!, JSON.stringify(out));
      profiler.disconnect();
    }
    digests.push(sw.digest());
    await sync.set({ policies: [], addressGroups: [], appliedToGroups: [] });
    sw.digest();
  }
  console.log(JSON.stringify({ cpuMs: cpu, threadCpuMs: threads, digests }));
}

void main();
