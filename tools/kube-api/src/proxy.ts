// Proxying through the API server: nodes/<n>/proxy to the kubelet endpoint, services/<s>/proxy
// to a ready endpoint, and aggregated APIServices to their backing Service.

import http from 'node:http';
import https from 'node:https';
import type { KubeApi } from './api';
import type { UserInfo } from './auth';
import { badRequest, KubeApiError } from './errors';
import type { KubeObject } from './types';

export interface ProxyTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** Path (with query) to request on the target. */
  path: string;
  ca?: string;
  insecure: boolean;
}

/** Client identity the server presents to aggregated API servers (front-proxy client cert). */
export interface ProxyClientCert {
  certPem: string;
  keyPem: string;
}

/** `[scheme:]name[:port]` as used in proxy URLs. */
export function parseProxyName(text: string): { scheme?: string; name: string; port?: string } {
  const parts = text.split(':');
  if (parts.length === 3) return { scheme: parts[0] as string, name: parts[1] as string, port: parts[2] as string };
  if (parts.length === 2) {
    if (parts[0] === 'http' || parts[0] === 'https') return { scheme: parts[0], name: parts[1] as string };
    return { name: parts[0] as string, port: parts[1] as string };
  }
  return { name: text };
}

function unavailable(msg: string): KubeApiError {
  return new KubeApiError('ServiceUnavailable', msg);
}

/**
 * Where a node proxy request goes, as kube-apiserver resolves `nodes/<[scheme:]name[:port]>/proxy`:
 * the Node's InternalIP (else its first address), the kubelet port from
 * `status.daemonEndpoints.kubeletEndpoint.Port` (default 10250) over HTTPS when no port (or that
 * port) is named, any other port over the scheme named in the URL (default plain HTTP, as for
 * node-exporter style daemons). An explicit scheme always wins here (kube-apiserver ignores it on
 * the kubelet port). `dialHost`, when it names a host for the node, replaces the address (the
 * lab's node addresses live in network namespaces the server cannot reach).
 */
export function nodeTarget(api: KubeApi, nameText: string, path: string, dialHost?: (nodeName: string) => string | undefined): ProxyTarget {
  const { scheme, name, port } = parseProxyName(nameText);
  if (name === '' || (port !== undefined && !/^\d+$/.test(port)) || (scheme !== undefined && scheme !== 'http' && scheme !== 'https')) throw badRequest(`invalid node request "${nameText}"`);
  const node = api.get(api.type('', 'nodes'), undefined, name);
  const status = (node.status ?? {}) as { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
  const host = dialHost?.(name) ?? (status.addresses?.find((a) => a.type === 'InternalIP') ?? status.addresses?.[0])?.address;
  if (host === undefined || host === '') throw unavailable(`no preferred addresses found; known addresses: [${(status.addresses ?? []).map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
  const kubeletPort = status.daemonEndpoints?.kubeletEndpoint?.Port || 10250;
  const p = port !== undefined ? Number(port) : kubeletPort;
  const onKubelet = p === kubeletPort;
  const s: 'http' | 'https' = scheme === 'http' || scheme === 'https' ? scheme : onKubelet ? 'https' : 'http';
  return { scheme: s, host, port: p, path, insecure: true };
}

/** Pick a ready endpoint of a Service for `portSpec` (port name or number; default: first port). */
export function serviceEndpoint(api: KubeApi, ns: string, name: string, portSpec: string | number | undefined): { host: string; port: number } {
  const svc = api.get(api.type('', 'services'), ns, name);
  const spec = (svc.spec ?? {}) as { ports?: { name?: string; port: number }[]; type?: string; externalName?: string };
  const ports = spec.ports ?? [];
  const sp = portSpec === undefined || portSpec === '' ? ports[0] : ports.find((p) => p.name === String(portSpec) || String(p.port) === String(portSpec));
  if (!sp) throw unavailable(`no service port ${JSON.stringify(portSpec ?? '')} found for service "${name}"`);
  if (spec.type === 'ExternalName' && spec.externalName) return { host: spec.externalName, port: sp.port };
  const ep = api.tryGet(api.type('', 'endpoints'), ns, name);
  for (const s of (ep?.subsets as { addresses?: { ip: string }[]; ports?: { name?: string; port: number }[] }[] | undefined) ?? []) {
    const target = (s.ports ?? []).find((p) => (p.name ?? '') === (sp.name ?? '')) ?? (ports.length === 1 ? s.ports?.[0] : undefined);
    const addr = s.addresses?.[0];
    if (target && addr) return { host: addr.ip, port: target.port };
  }
  throw unavailable(`no endpoints available for service "${name}"`);
}

export function serviceTarget(api: KubeApi, ns: string, nameText: string, path: string): ProxyTarget {
  const { scheme, name, port } = parseProxyName(nameText);
  const ep = serviceEndpoint(api, ns, name, port);
  return { scheme: scheme === 'https' ? 'https' : 'http', host: ep.host, port: ep.port, path, insecure: true };
}

/** The APIService that serves group/version through a Service, if any. */
export function findApiService(api: KubeApi, group: string, version: string): KubeObject | undefined {
  const t = api.registry.get('apiregistration.k8s.io', 'apiservices');
  if (!t) return undefined;
  const s = api.tryGet(t, undefined, `${version}.${group}`);
  const spec = (s?.spec ?? {}) as { service?: unknown };
  return s && spec.service ? s : undefined;
}

export function apiServiceTarget(api: KubeApi, apiService: KubeObject, path: string): ProxyTarget {
  const spec = (apiService.spec ?? {}) as { service: { namespace: string; name: string; port?: number }; caBundle?: string; insecureSkipTLSVerify?: boolean };
  const ep = serviceEndpoint(api, spec.service.namespace, spec.service.name, spec.service.port ?? 443);
  const t: ProxyTarget = { scheme: 'https', host: ep.host, port: ep.port, path, insecure: spec.insecureSkipTLSVerify === true || !spec.caBundle };
  if (spec.caBundle) t.ca = Buffer.from(spec.caBundle, 'base64').toString('utf8');
  return t;
}

const hopHeaders = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/**
 * Forward `req` to `target`, streaming both ways. The caller's identity travels in
 * X-Remote-User/X-Remote-Group (request-header authentication), never its bearer token.
 */
export function forward(req: http.IncomingMessage, res: http.ServerResponse, target: ProxyTarget, user: UserInfo, clientCert?: ProxyClientCert): Promise<void> {
  if (!Number.isInteger(target.port) || target.port <= 0) return Promise.reject(badRequest(`invalid port ${target.port}`));
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!hopHeaders.has(k.toLowerCase()) && !k.toLowerCase().startsWith('x-remote-')) headers[k] = v;
    headers['x-remote-user'] = user.username;
    headers['x-remote-group'] = user.groups;
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    headers.host = `${host}:${target.port}`;
    const options: https.RequestOptions = { host: target.host, port: target.port, path: target.path, method: req.method ?? 'GET', headers };
    if (target.scheme === 'https') {
      options.rejectUnauthorized = !target.insecure;
      if (target.ca) options.ca = target.ca;
      if (clientCert) {
        options.cert = clientCert.certPem;
        options.key = clientCert.keyPem;
      }
    }
    const out = (target.scheme === 'https' ? https : http).request(options, (up) => {
      const h: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(up.headers)) if (!hopHeaders.has(k.toLowerCase()) && v !== undefined) h[k] = v;
      res.writeHead(up.statusCode ?? 502, h);
      up.pipe(res);
      up.on('end', () => resolve());
      up.on('error', reject);
    });
    out.on('error', (e) => reject(unavailable(`error trying to reach service: ${e.message}`)));
    req.pipe(out);
  });
}
