/** Probes from inside pods (their netns) and reads from the agents' local APIs. */
import { request } from 'node:http';
import { run } from '@switchyard/testbed';

/** One TCP connection attempt from `netns` to ip:port with `nc -z` (`timeoutS`, default 1 s): true when accepted. */
export async function tcpProbe(netns: string, ip: string, port: number, timeoutS = 1): Promise<boolean> {
  const r = await run(['ip', 'netns', 'exec', netns, 'nc', '-z', '-w', String(timeoutS), ip, String(port)], { allowFailure: true, timeoutMs: timeoutS * 1000 + 4000 });
  return r.code === 0;
}

/**
 * A TCP connection from `netns` to ip:port that must open: up to three `tcpProbe` attempts (on a
 * loaded machine one SYN or accept can be late); a blocked path never opens however often it tries.
 */
export async function tcpReaches(netns: string, ip: string, port: number, timeoutS = 1): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await tcpProbe(netns, ip, port, timeoutS)) return true;
  return false;
}

/** GET on an agent's local API (HTTP on a unix socket). */
export function agentGet<T>(socketPath: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 400) reject(new Error(`${path}: HTTP ${res.statusCode}: ${body}`));
        else resolve(JSON.parse(body) as T);
      });
    });
    req.on('error', reject);
    req.end();
  });
}
