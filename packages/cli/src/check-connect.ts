// How `yardctl check installation` opens a TCP connection from inside a test pod: `pods/exec` of
// agnhost's `connect` through the API server, on a cluster and on the Switchyard lab alike.
import { Writable } from 'node:stream';
import { Exec, type KubeConfig } from '@kubernetes/client-node';

/** A pod to connect from. */
export interface ClientPod {
  namespace: string;
  name: string;
  container: string;
}

/** One connection attempt: opened, or why not (agnhost's TIMEOUT/REFUSED/..., the exec error). */
export interface ConnectOutcome {
  ok: boolean;
  detail: string;
  /** The attempt could not be made at all (no pods/exec, forbidden): retrying will not help, and it says nothing about the path. */
  fatal?: boolean;
}

/** Opens one TCP connection from a pod to ip:port within `timeoutS`. */
export interface PodConnector {
  /** For the report: how the connection is made (`pods/exec`). */
  readonly via: string;
  connect(from: ClientPod, ip: string, port: number, timeoutS: number): Promise<ConnectOutcome>;
}

/** agnhost's `connect` (exit 0 when the TCP connection opens), as `kubectl exec` runs it. */
export function agnhostConnectArgv(ip: string, port: number, timeoutS: number): string[] {
  return ['/agnhost', 'connect', `${ip.includes(':') ? `[${ip}]` : ip}:${port}`, `--timeout=${timeoutS}s`];
}

/** Through the API server's `pods/exec` (websocket), as `kubectl exec` does. */
export function podsExecConnector(kc: KubeConfig): PodConnector {
  const exec = new Exec(kc);
  return {
    via: 'pods/exec',
    async connect(from, ip, port, timeoutS) {
      let out = '';
      const sink = new Writable({ write: (c: Buffer, _e, cb) => { out += c.toString('utf8'); cb(); } });
      let timer: NodeJS.Timeout | undefined;
      let socket: { close(): void } | undefined;
      try {
        const status = await new Promise<{ status?: string; message?: string }>((resolve, reject) => {
          // agnhost gives up after timeoutS; an exec stream that outlives that by 10 s is stuck.
          timer = setTimeout(() => reject(new Error(`no exit status within ${timeoutS + 10}s`)), (timeoutS + 10) * 1000);
          exec.exec(from.namespace, from.name, from.container, agnhostConnectArgv(ip, port, timeoutS), sink, sink, null, false, resolve).then((ws) => (socket = ws), reject);
        });
        if (status.status === 'Success') return { ok: true, detail: 'connected' };
        return { ok: false, detail: (out.trim() || status.message || 'failed').split('\n')[0]! };
      } catch (e) {
        socket?.close();
        // The API server refused the exec upgrade (404: no pods/exec, 403: not allowed): no connection was tried.
        const status = /Unexpected server response: (\d+)/.exec((e as Error).message)?.[1];
        return { ok: false, fatal: status !== undefined && status.startsWith('4'), detail: `pods/exec of ${from.namespace}/${from.name}: ${(e as Error).message}` };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
