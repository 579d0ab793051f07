// pods/exec on the API server's side: the request checked as kube-apiserver checks it (the pod,
// its node, the container, a command), then the upgraded connection relayed byte for byte to the
// node's kubelet (`/exec/<ns>/<pod>/<container>?<query>`), as kube-apiserver proxies exec.

import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { KubeApi } from './api';
import type { UserInfo } from './auth';
import { badRequest, KubeApiError } from './errors';
import { nodeTarget, type ProxyClientCert, type ProxyTarget } from './proxy';

interface PodShape {
  spec?: { nodeName?: string; containers?: { name?: string }[] };
  status?: { phase?: string };
}

/**
 * The kubelet endpoint of an exec into `ns/name`: the pod's node (its kubelet port, over HTTPS)
 * and the path `/exec/<ns>/<pod>/<container>` with the caller's query. The container defaults to
 * the pod's only one; a command is required.
 * @throws KubeApiError NotFound (no such pod), BadRequest naming the field (container, command,
 * an unscheduled or completed pod)
 */
export function execTarget(api: KubeApi, ns: string, name: string, q: URLSearchParams, dialHost?: (nodeName: string) => string | undefined): ProxyTarget {
  const pod = api.get(api.type('', 'pods'), ns, name) as PodShape;
  const names = (pod.spec?.containers ?? []).map((c) => c.name ?? '');
  let container = q.get('container') ?? '';
  if (container === '') {
    if (names.length !== 1) throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`);
    container = names[0] as string;
  } else if (!names.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  }
  if (q.getAll('command').length === 0) throw badRequest('command: Required value: you must specify at least one command for the container');
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') throw badRequest(`cannot exec into a container in a completed pod; current phase is ${phase}`);
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
  const query = new URLSearchParams(q);
  query.set('container', container);
  const path = `/exec/${[ns, name, container].map(encodeURIComponent).join('/')}?${query.toString()}`;
  const target = nodeTarget(api, nodeName, path, dialHost);
  return { ...target, scheme: 'https' };
}

// Headers that belong to one hop, or to the caller's credentials; the upgrade ones are set anew.
const dropped = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/** An HTTP response written on a raw (upgrade-requested) socket, which is then closed. */
export function respondOnSocket(socket: Duplex, code: number, reason: string, headers: Record<string, string>, body: Buffer): void {
  const lines = [`HTTP/1.1 ${code} ${reason}`, ...Object.entries({ ...headers, 'Content-Length': String(body.length), Connection: 'close' }).map(([k, v]) => `${k}: ${v}`)];
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}

/** A Status for an upgrade the server refuses (or cannot relay), written on the raw socket. */
export function refuseUpgrade(socket: Duplex, e: KubeApiError): void {
  respondOnSocket(socket, e.httpStatus, http.STATUS_CODES[e.httpStatus] ?? e.code, { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify(e.toStatus())));
}

/**
 * Relays an upgrade request to `target`: the kubelet's answer (101 and the upgraded stream, or a
 * refusal with its body) goes back to the caller unchanged. The caller's bearer token stays here;
 * its identity travels in X-Remote-User/X-Remote-Group, and the server presents `clientCert`.
 * Resolves when the relayed connection ends.
 */
export function relayUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, target: ProxyTarget, user: UserInfo, clientCert?: ProxyClientCert): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!dropped.has(k) && !k.startsWith('x-remote-') && v !== undefined) headers[k] = v;
    headers.connection = 'Upgrade';
    headers.upgrade = req.headers.upgrade ?? '';
    headers['x-remote-user'] = user.username;
    headers['x-remote-group'] = user.groups;
    headers.host = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
    const out = https.request({
      host: target.host, port: target.port, path: target.path, method: req.method ?? 'GET', headers, agent: false,
      rejectUnauthorized: !target.insecure, ...(target.ca ? { ca: target.ca } : {}), ...(clientCert ? { cert: clientCert.certPem, key: clientCert.keyPem } : {}),
    });
    out.on('upgrade', (res, upstream, upstreamHead) => {
      const lines = [`HTTP/1.1 101 ${res.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
      const done = (): void => {
        upstream.destroy();
        socket.destroy();
        resolve();
      };
      upstream.on('close', done);
      socket.on('close', done);
      upstream.on('error', done);
      socket.on('error', done);
    });
    out.on('response', (res) => {
      // The kubelet refused the upgrade: its answer, whole.
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        respondOnSocket(socket, res.statusCode ?? 502, res.statusMessage ?? http.STATUS_CODES[res.statusCode ?? 502] ?? '', { 'Content-Type': String(res.headers['content-type'] ?? 'text/plain') }, Buffer.concat(chunks));
        resolve();
      });
      res.on('error', reject);
    });
    out.on('error', (e) => reject(new KubeApiError('ServiceUnavailable', `error trying to reach service: ${e.message}`)));
    out.end();
  });
}
