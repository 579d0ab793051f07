// How `yardctl check installation` opens a TCP connection from inside a test pod: `pods/exec` of
// agnhost's `connect` through the API server (a real cluster), or, on the Switchyard lab, whose
// kubelet stand-in serves no exec, `nc -z` in the pod's network namespace the lab annotates.
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { Exec, type KubeConfig } from '@kubernetes/client-node';

/** Annotation the lab's kubelet stand-in puts on each pod: the pod's network namespace on this host. */
export const LAB_NETNS_ANNOTATION = 'lab.switchyard.io/netns';

/** A pod to connect from. */
export interface ClientPod {
  namespace: string;
  name: string;
  container: string;
  annotations?: Record<string, string>;
}

/** One connection attempt: opened, or why not (agnhost's TIMEOUT/REFUSED/..., nc's text, the exec error). */
export interface ConnectOutcome {
  ok: boolean;
  detail: string;
  /** The attempt could not be made at all (no pods/exec, forbidden): retrying will not help, and it says nothing about the path. */
  fatal?: boolean;
}

/** Opens one TCP connection from a pod to ip:port within `timeoutS`. */
export interface PodConnector {
  /** For the report: `pods/exec` or `lab netns`. */
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

/**
 * In the pod's network namespace on this host (`ip netns exec <netns> nc -z`): the lab's pods
 * carry {@link LAB_NETNS_ANNOTATION}, and its API server has no `pods/exec`. Needs root on the lab host.
 */
export function labNetnsConnector(): PodConnector {
  return {
    via: 'lab netns',
    connect(from, ip, port, timeoutS) {
      const netns = from.annotations?.[LAB_NETNS_ANNOTATION];
      if (!netns) return Promise.resolve({ ok: false, detail: `pod ${from.namespace}/${from.name} has no ${LAB_NETNS_ANNOTATION} annotation` });
      return new Promise((resolve) => {
        execFile('ip', ['netns', 'exec', netns, 'nc', '-z', '-v', '-w', String(timeoutS), ip, String(port)], { timeout: (timeoutS + 10) * 1000 }, (err, _stdout, stderr) => {
          if (!err) return resolve({ ok: true, detail: 'connected' });
          const text = stderr.trim().split('\n').pop() ?? '';
          resolve({ ok: false, detail: /refused/i.test(text) ? 'REFUSED' : /timed out|timeout/i.test(text) || text === '' ? 'TIMEOUT' : text });
        });
      });
    },
  };
}

/** The lab's mechanism when the pod carries the lab's netns annotation, else `pods/exec`. */
export function connectorFor(pod: ClientPod, kc: () => KubeConfig): PodConnector {
  return pod.annotations?.[LAB_NETNS_ANNOTATION] ? labNetnsConnector() : podsExecConnector(kc());
}
