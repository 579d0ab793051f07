/**
 * `kube-config-resolve`: a short-lived child of the agent that resolves the kubeconfig with
 * @kubernetes/client-node's KubeConfig and prints what a request needs (server, TLS material,
 * headers) as one JSON line, so the agent itself never loads client-node (see kube-config.ts).
 *
 * argv[2]: a kubeconfig path, or nothing for client-node's defaults ($KUBECONFIG, in-cluster,
 * ~/.kube/config). Exit 0 with a {@link KubeConfigResolution}; exit 1 with `{ error }` otherwise.
 */
import type https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { KUBE_CONFIG_TLS_FIELDS, type KubeConfigResolution, type TlsField } from './kube-config-resolution';

/** An exec plugin's token: client-node caches it until it expires, which it does not tell; asked again after this. */
const EXEC_REFRESH_MS = 60_000;

async function resolve(path: string | undefined): Promise<KubeConfigResolution> {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  // client-node makes a proxy agent the agent could not rebuild without client-node: load it in-process then.
  if (cluster.proxyUrl) return { unsupported: `cluster ${cluster.name} goes through proxy ${cluster.proxyUrl}` };
  const user = kc.getCurrentUser();
  // client-node's FileAuth re-reads a token file (in-cluster) every 60 s; the agent resolves again when the file changes.
  const tokenFile = (user?.authProvider as { config?: { tokenFile?: string } } | undefined)?.config?.tokenFile;
  const refreshMs = user?.exec || (user?.authProvider && !tokenFile) ? EXEC_REFRESH_MS : null;
  const opts: https.RequestOptions = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (e) {
    return { server: cluster.server, tls: {}, headers: {}, refreshMs, ...(tokenFile ? { tokenFile } : {}), requestError: e instanceof Error ? e.message : String(e) };
  }
  const tls: Partial<Record<TlsField, string>> = {};
  for (const f of KUBE_CONFIG_TLS_FIELDS) {
    const v = (opts as Record<string, unknown>)[f];
    if (typeof v === 'string') tls[f] = v;
    else if (Buffer.isBuffer(v)) tls[f] = `base64:${v.toString('base64')}`;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
  return {
    server: cluster.server,
    tls,
    ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
    ...(opts.auth ? { auth: opts.auth } : {}),
    headers,
    refreshMs,
    ...(tokenFile ? { tokenFile } : {}),
  };
}

resolve(process.argv[2]).then(
  (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
  (e: unknown) => {
    process.stdout.write(`${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`);
    process.exitCode = 1;
  },
);
