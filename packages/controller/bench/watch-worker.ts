// A bench worker process (forked by bench/run.ts): runs the watch clients of a slice of the nodes,
// as that many agents would, so the controller's own process is what the benchmark measures.
// Messages from the parent: `open` (connect every client, then report `synced` with the bytes of
// each initial state and this process's CPU time from `open` to `synced`), `await` (report `reached` once the listed nodes' views are at rv), `close`.
import { ControlplaneClient } from '@switchyard/controlplane-client';
import https from 'node:https';

interface Open { type: 'open'; url: string; caPem: string; nodes: string[] }
interface Await { type: 'await'; id: number; rv: string; nodes: string[] }
interface Close { type: 'close' }
type Msg = Open | Await | Close;

const clients = new Map<string, ControlplaneClient>();
const send = (m: unknown): void => void process.send?.(m);

process.on('message', (m: Msg) => {
  void handle(m).catch((e: unknown) => send({ type: 'error', message: e instanceof Error ? e.message : String(e) }));
});
send({ type: 'ready' });

async function handle(m: Msg): Promise<void> {
  if (m.type === 'open') {
    const cpu0 = process.cpuUsage();
    // No session cache: each agent is a process of its own whose first connection to a controller
    // is a full handshake; a shared cache let 4 in 5 clients here resume another node's session.
    const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: m.caPem, maxCachedSessions: 0 });
    for (const n of m.nodes) clients.set(n, new ControlplaneClient({ url: m.url, caPem: m.caPem, nodeName: n, token: `node:${n}`, agent }));
    const list = [...clients.values()];
    // Batches of 50: agents do not all arrive in the same millisecond either.
    for (let i = 0; i < list.length; i += 50) await Promise.all(list.slice(i, i + 50).map((c) => c.open()));
    await Promise.all(list.map((c) => c.waitFor(() => c.view.synced, 600_000, 'sync')));
    const cpu = process.cpuUsage(cpu0);
    send({ type: 'synced', bytes: list.map((c) => c.bytesReceived), policies: list.map((c) => c.view.counts.policies), cpuMs: (cpu.user + cpu.system) / 1000 });
  } else if (m.type === 'await') {
    const cs = m.nodes.map((n) => clients.get(n)).filter((c): c is ControlplaneClient => c !== undefined);
    await Promise.all(cs.map((c) => c.waitFor(() => c.view.resourceVersion === m.rv, 10_000, 'event')));
    send({ type: 'reached', id: m.id });
  } else {
    for (const c of clients.values()) c.close();
    send({ type: 'closed' });
    process.exit(0);
  }
}
