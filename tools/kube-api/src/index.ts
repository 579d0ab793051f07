// @switchyard/kube-api: an embedded Kubernetes API server stand-in with controller-manager
// functions, reachable by kubectl and @kubernetes/client-node over real HTTP(S).

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { KubeApi } from './api';
import { Authenticator, masters, parseTokenFile, RbacAuthorizer, type UserInfo } from './auth';
import { ClusterControllers } from './controllers';
import { type DurableWriter, SnapshotFile } from './persistence';
import { ResourceRegistry } from './registry';
import { HttpFront } from './server';
import { ObjectStore } from './store';
import { ensurePki, renderKubeconfig } from './tls';
import { type Clock, type KubeObject, type Logger, silentLogger, systemClock } from './types';
import { KubeApiError } from './errors';
import { ValidatingWebhooks } from './webhook';

export { KubeApiError, type KubeApiErrorCode, type Status, type StatusCause } from './errors';
export { PkiError } from './tls';
export { startKubeletExec, parseExecRequest, exitStatus, ExecTargetError, EXEC_PROTOCOLS, ExecChannel, type ExecRequest, type KubeletExecOptions, type KubeletExecServer } from './kubelet-exec';
export { ServiceCidrError } from './serviceips';
export { parseTokenFile, type UserInfo } from './auth';
export { ValidatingWebhooks, admissionReview, parseVerdict, rulesMatch, httpsTransport, type ValidatingWebhook, type WebhookRequest, type WebhookTarget, type WebhookVerdict, type ReviewTransport, type ValidatingWebhooksOptions } from './webhook';
export type { Clock, KubeObject, Logger, ObjectMeta, OwnerReference } from './types';

/** A user of the static token table. */
export interface StaticTokenUser {
  user: string;
  uid?: string;
  groups?: string[];
}

export interface KubeApiOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Serve HTTPS with a generated CA (default true). */
  tls?: boolean;
  /** Persist objects, PKI, admin token and kubeconfig here; in-memory when absent. */
  dataDir?: string;
  /** Static bearer tokens: token -> user. The admin token (system:masters) is added. */
  tokens?: Record<string, StaticTokenUser>;
  /** kube-apiserver static token file (`token,user,uid,"group1,group2"`). */
  tokenFile?: string;
  /** Admin token to use instead of a random one. */
  adminToken?: string;
  /**
   * Service ClusterIP range (default 10.96.0.0/12); dual-stack: an IPv4 and an IPv6 prefix
   * comma-separated, the first being the primary family (kube-apiserver's --service-cluster-ip-range).
   */
  serviceCIDR?: string;
  /**
   * Pod network of the cluster (kube-controller-manager's --cluster-cidr with --allocate-node-cidrs):
   * one prefix, or an IPv4 and an IPv6 one comma-separated. Each Node created without podCIDRs gets
   * one subnet per family (`spec.podCIDRs`, `spec.podCIDR` the first). Absent: Nodes keep what they are given.
   */
  clusterCIDR?: string;
  /** Prefix length of each Node's IPv4 subnet (default 24). */
  nodeCIDRMaskSizeIPv4?: number;
  /** Prefix length of each Node's IPv6 subnet (default 64). */
  nodeCIDRMaskSizeIPv6?: number;
  /**
   * CustomResourceDefinitions to register at start (e.g. `loadCrds()` of @switchyard/apis);
   * existing ones (from a data directory) are replaced.
   */
  crds?: KubeObject[];
  /** Extra subjectAltNames for the serving certificate (IPs or DNS names). */
  extraSans?: string[];
  /** Watch events kept for resumption; older resourceVersions get 410 Gone (default 5000). */
  watchHistory?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 30 s). */
  bookmarkIntervalMs?: number;
  /**
   * Host to dial for `nodes/<name>/proxy/...` instead of the Node's InternalIP; `undefined` falls
   * back to the address. The lab needs it: its node addresses live in network namespaces the
   * server's own namespace cannot reach, while the agents' APIs listen on 127.0.0.1.
   */
  nodeProxyHost?: (nodeName: string) => string | undefined;
  /**
   * Writes the data directory's object snapshot (default: `writeFileDurableSync` of
   * @switchyard/durable-file). Tests inject one that fails, to see a write that cannot be
   * persisted refused.
   */
  snapshotWriter?: DurableWriter;
  clock?: Clock;
  logger?: Logger;
}

export interface KubeApiServer {
  /** Base URL, e.g. https://127.0.0.1:41235 */
  url: string;
  port: number;
  /** PEM of the CA that signed the serving certificate ('' without TLS). */
  caPem: string;
  /** Bearer token of the `admin` user in group system:masters. */
  adminToken: string;
  /** A kubeconfig for the admin user, written at start. */
  kubeconfigPath: string;
  /** Write a kubeconfig for the admin (default) or the given token. Returns the path. */
  writeKubeconfig(path: string, user?: { name: string; token: string; namespace?: string }): string;
  /** Mint a token for a ServiceAccount (created if missing), as TokenRequest does. */
  createServiceAccountToken(namespace: string, serviceAccount: string, expirationSeconds?: number): string;
  /**
   * Create objects of any served kind (a parsed manifest) in-process, as an admin `kubectl
   * create` would, skipping those that already exist. Returns how many were created.
   * @throws KubeApiError NotFound for a kind the server does not serve
   */
  createObjects(objects: readonly KubeObject[]): number;
  /**
   * Advertise the API server at `address` (kube-apiserver's --advertise-address): the `kubernetes`
   * Service's Endpoints and EndpointSlice point there, so Service proxies send `kubernetes.default`
   * to it. The caller makes that address reach this server.
   */
  advertise(address: { ip: string; port: number }): void;
  /** Stop listening, end watches, flush the data directory. */
  stop(): Promise<void>;
}

const version = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-switchyard',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** Start an API server. Resolves once it listens. */
export async function startKubeApi(options: KubeApiOptions = {}): Promise<KubeApiServer> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const host = options.host ?? '127.0.0.1';
  const useTls = options.tls ?? true;
  const dataDir = options.dataDir;
  if (dataDir) mkdirSync(dataDir, { recursive: true });

  const registry = new ResourceRegistry();
  const store = new ObjectStore(options.watchHistory ?? 5000);
  const api = new KubeApi(registry, store, clock, logger);
  const snapshot = dataDir ? new SnapshotFile(dataDir, store, options.snapshotWriter) : undefined;
  snapshot?.load();

  const { adminToken, tokens } = tokenTable(options, dataDir);
  const pki = useTls ? await ensurePki(dataDir ? join(dataDir, 'pki') : undefined, options.extraSans ?? []) : undefined;
  const authn = new Authenticator(api, tokens);
  const authz = new RbacAuthorizer(api);
  let boundPort = options.port ?? 0;
  const webhooks = new ValidatingWebhooks({ api, clock, logger });
  const front = new HttpFront({
    api,
    authn,
    authz,
    clock,
    logger,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 30000,
    serverAddress: () => `${host}:${boundPort}`,
    ...(pki ? { proxyClientCert: { certPem: pki.proxyCertPem, keyPem: pki.proxyKeyPem } } : {}),
    ...(options.nodeProxyHost ? { nodeProxyHost: options.nodeProxyHost } : {}),
    webhooks,
    version,
  });
  const server = pki ? https.createServer({ cert: pki.certPem, key: pki.keyPem }, front.handle) : http.createServer(front.handle);
  server.on('upgrade', front.handleUpgrade);
  boundPort = await listen(server, boundPort, host);
  const caPem = pki?.caPem ?? '';
  const nodeCidrs = options.clusterCIDR
    ? {
        clusterCIDR: options.clusterCIDR,
        ...(options.nodeCIDRMaskSizeIPv4 !== undefined ? { nodeCIDRMaskSizeIPv4: options.nodeCIDRMaskSizeIPv4 } : {}),
        ...(options.nodeCIDRMaskSizeIPv6 !== undefined ? { nodeCIDRMaskSizeIPv6: options.nodeCIDRMaskSizeIPv6 } : {}),
      }
    : undefined;
  let controllers: ClusterControllers;
  try {
    controllers = new ClusterControllers(api, authn, { serviceCIDR: options.serviceCIDR ?? '10.96.0.0/12', ...(nodeCidrs ? { nodeCidrs } : {}), selfAddress: { ip: host === '0.0.0.0' ? '127.0.0.1' : host, port: boundPort }, caPem });
  } catch (e) {
    // An unusable service or cluster CIDR: nothing is left listening.
    webhooks.close();
    server.close();
    throw e;
  }
  controllers.bootstrap();
  applyCrds(api, options.crds ?? []);
  try {
    // From here every change is on disk before it is acknowledged or watched.
    snapshot?.start();
  } catch (e) {
    controllers.stop();
    webhooks.close();
    server.close();
    throw e;
  }

  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `${useTls ? 'https' : 'http'}://${urlHost}:${boundPort}`;
  const writeKubeconfig = kubeconfigWriter(url, adminToken, caPem);
  const tmpDir = dataDir ? undefined : mkdtempSync(join(tmpdir(), 'kube-api-'));
  const kubeconfigPath = writeKubeconfig(join(dataDir ?? (tmpDir as string), 'kubeconfig'));
  logger.info({ url, kubeconfigPath }, 'kube-api listening');

  return {
    url,
    port: boundPort,
    caPem,
    adminToken,
    kubeconfigPath,
    writeKubeconfig,
    createObjects: (objects) => createObjects(api, objects),
    advertise: (address) => controllers.advertise(address),
    createServiceAccountToken(namespace, serviceAccount, expirationSeconds) {
      const saType = api.type('', 'serviceaccounts');
      const sa = api.tryGet(saType, namespace, serviceAccount) ?? api.create(saType, namespace, { metadata: { name: serviceAccount, namespace } });
      return authn.mintServiceAccountToken(namespace, serviceAccount, sa.metadata.uid as string, undefined, expirationSeconds);
    },
    async stop() {
      controllers.stop();
      front.closeWatches();
      webhooks.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      snapshot?.stop();
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

/**
 * The bearer tokens: the token file's, the options', and the admin's (given, kept in the data
 * directory from an earlier start, or new), which is written back to the data directory.
 */
function tokenTable(options: KubeApiOptions, dataDir: string | undefined): { adminToken: string; tokens: Map<string, UserInfo> } {
  let adminToken = options.adminToken;
  const adminFile = dataDir ? join(dataDir, 'admin-token') : undefined;
  if (!adminToken && adminFile && existsSync(adminFile)) adminToken = readFileSync(adminFile, 'utf8').trim();
  adminToken ??= randomBytes(24).toString('base64url');
  if (adminFile) writeFileDurableSync(adminFile, `${adminToken}\n`, { mode: 0o600 });
  const tokens = new Map<string, UserInfo>();
  if (options.tokenFile) for (const [k, v] of parseTokenFile(readFileSync(options.tokenFile, 'utf8'))) tokens.set(k, v);
  for (const [tok, u] of Object.entries(options.tokens ?? {})) {
    const info: UserInfo = { username: u.user, groups: u.groups ?? [] };
    if (u.uid) info.uid = u.uid;
    tokens.set(tok, info);
  }
  tokens.set(adminToken, { username: 'admin', groups: [masters] });
  return { adminToken, tokens };
}

/** Listen on `port` (0: a free one); resolves to the port bound. */
async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Register CustomResourceDefinitions, replacing those that exist (from a data directory). */
function applyCrds(api: KubeApi, crds: readonly KubeObject[]): void {
  const crdType = api.type('apiextensions.k8s.io', 'customresourcedefinitions');
  for (const crd of crds) {
    const name = crd.metadata.name ?? '';
    const cur = api.tryGet(crdType, undefined, name);
    if (cur) api.update(crdType, undefined, name, { ...crd, metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion as string } });
    else api.create(crdType, undefined, crd);
  }
}

/** Writes a kubeconfig for the admin, or the user given, of the server at `url`. */
function kubeconfigWriter(url: string, adminToken: string, caPem: string): KubeApiServer['writeKubeconfig'] {
  return (path, user) => {
    mkdirSync(dirname(path), { recursive: true });
    const input: Parameters<typeof renderKubeconfig>[0] = { server: url, token: user?.token ?? adminToken, user: user?.name ?? 'admin' };
    if (caPem) input.caPem = caPem;
    if (user?.namespace) input.namespace = user.namespace;
    writeFileDurableSync(path, renderKubeconfig(input), { mode: 0o600 });
    return path;
  };
}

/** {@link KubeApiServer.createObjects}: what an admin `kubectl create` would, skipping what exists. */
function createObjects(api: KubeApi, objects: readonly KubeObject[]): number {
  let created = 0;
  for (const o of objects) {
    const apiVersion = String(o.apiVersion ?? '');
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const t = api.registry.byKind(group, String(o.kind ?? ''));
    if (!t) throw new KubeApiError('NotFound', `the server does not serve kind ${String(o.kind)} in ${apiVersion}`);
    const ns = t.namespaced ? ((o.metadata.namespace as string | undefined) ?? 'default') : undefined;
    if (api.tryGet(t, ns, o.metadata.name as string)) continue;
    api.create(t, ns, o);
    created++;
  }
  return created;
}
