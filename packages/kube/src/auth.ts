// Delegated authentication and authorization against the Kubernetes API, as a server the API
// server proxies to (an aggregated API, a node daemon) does it: bearer tokens through TokenReview,
// the API server's front-proxy client certificate with the caller in X-Remote-* headers, other
// verified client certificates as the identity they name, decisions through SubjectAccessReview.
// Results are cached briefly (injectable clock).
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import { silentLogger, systemClock, type Clock, type Logger } from '@switchyard/runtime';
import type { KubeClient } from './client';

/** An authenticated caller. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The attributes a SubjectAccessReview decides on. */
export interface AccessAttributes {
  verb: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** Non-resource request path (e.g. /metrics) instead of a resource. */
  path?: string;
}

/** The subject of a verified TLS client certificate, as node's `getPeerCertificate()` gives it. */
export interface PeerCertificateSubject {
  CN?: string | string[];
  O?: string | string[];
}

/**
 * What authentication reads of a request: its headers and, on a TLS connection, whether the
 * client certificate verified and its subject. `http.IncomingMessage` is one.
 */
export interface AuthRequest {
  readonly headers: http.IncomingHttpHeaders;
  /** The connection; a TLS one carries `authorized` and `getPeerCertificate()`. */
  readonly socket: object;
}

/** The TLS side of a request's socket, where there is one. */
interface VerifiedPeer {
  authorized: boolean;
  getPeerCertificate(): { subject?: PeerCertificateSubject } | undefined;
}

function tlsPeer(socket: object): VerifiedPeer | undefined {
  const s = socket as Partial<Pick<TLSSocket, 'authorized' | 'getPeerCertificate'>>;
  return s.authorized === true && typeof s.getPeerCertificate === 'function' ? (s as VerifiedPeer) : undefined;
}

/** Who is calling and may they: implemented on the Kubernetes API by {@link KubeDelegatedAuth}. */
export interface RequestAuth {
  authenticate(req: AuthRequest): Promise<UserInfo | undefined>;
  authorize(user: UserInfo, attrs: AccessAttributes): Promise<boolean>;
}

/** TokenReview `user.extra` key Kubernetes (1.32+) sets on pod-bound ServiceAccount tokens. */
export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

/** The node an identity is bound to: the token's node-name claim, or `system:node:<name>`. */
export function nodeOf(user: UserInfo): string | undefined {
  const claim = user.extra?.[NODE_NAME_EXTRA]?.[0];
  if (claim) return claim;
  const m = /^system:node:(.+)$/.exec(user.username);
  return m?.[1];
}

/** Options of {@link KubeDelegatedAuth}. */
export interface DelegatedAuthOptions {
  /** How long answers are cached (default 10 s). */
  cacheTtlMs?: number;
  /**
   * Take a verified client certificate that is not a front-proxy one as the caller (CN user, O
   * groups). Default false: only for servers whose TLS `ca` is the cluster's client CA.
   */
  clientCertificates?: boolean;
  /** Common names accepted on front-proxy client certificates (default ['front-proxy-client', 'aggregator']). */
  allowedProxyNames?: string[];
  clock?: Clock;
  logger?: Logger;
}

/** {@link RequestAuth} delegated to the Kubernetes API server. */
export class KubeDelegatedAuth implements RequestAuth {
  private readonly tokens = new Map<string, { at: number; user: UserInfo | undefined }>();
  private readonly decisions = new Map<string, { at: number; allowed: boolean }>();
  private readonly ttl: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly proxyNames: Set<string>;
  private readonly clientCerts: boolean;

  constructor(
    private readonly kube: KubeClient,
    options: DelegatedAuthOptions = {},
  ) {
    this.ttl = options.cacheTtlMs ?? 10000;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.proxyNames = new Set(options.allowedProxyNames ?? ['front-proxy-client', 'aggregator']);
    this.clientCerts = options.clientCertificates ?? false;
  }

  async authenticate(req: AuthRequest): Promise<UserInfo | undefined> {
    const sock = tlsPeer(req.socket);
    // Requests relayed by the API server's aggregator: trust X-Remote-* only with a verified proxy certificate.
    if (sock) {
      const cn = sock.getPeerCertificate()?.subject?.CN;
      const user = req.headers['x-remote-user'];
      if (cn && this.proxyNames.has(Array.isArray(cn) ? (cn[0] ?? '') : cn) && typeof user === 'string' && user !== '') {
        const groups = ([] as string[]).concat(req.headers['x-remote-group'] ?? []).flatMap((g) => g.split(',')).filter((g) => g !== '');
        const extra: Record<string, string[]> = {};
        for (const [h, v] of Object.entries(req.headers)) {
          if (h.startsWith('x-remote-extra-') && v !== undefined) extra[decodeURIComponent(h.slice(15))] = ([] as string[]).concat(v);
        }
        return { username: user, groups, extra };
      }
      // Any other certificate the TLS layer verified (against the client CA the server trusts) is
      // the identity it names: CN the user, O the groups (how the API server reaches kubelets).
      if (this.clientCerts) {
        const subject = sock.getPeerCertificate()?.subject;
        const name = Array.isArray(subject?.CN) ? subject.CN[0] : subject?.CN;
        if (name && !this.proxyNames.has(name)) {
          const o = subject?.O;
          return { username: name, groups: [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'] };
        }
      }
    }
    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
    if (!m?.[1]) return undefined;
    return this.reviewToken(m[1]);
  }

  private async reviewToken(token: string): Promise<UserInfo | undefined> {
    const now = this.clock.now();
    const hit = this.tokens.get(token);
    if (hit && now - hit.at < this.ttl) return hit.user;
    const res = await this.kube.request<{ status?: { authenticated?: boolean; user?: UserInfo } }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    const user = res.status?.authenticated && res.status.user ? { ...res.status.user, groups: res.status.user.groups ?? [] } : undefined;
    if (this.tokens.size > 10000) this.tokens.clear();
    this.tokens.set(token, { at: now, user });
    return user;
  }

  async authorize(user: UserInfo, attrs: AccessAttributes): Promise<boolean> {
    const key = JSON.stringify([user.username, user.groups, attrs]);
    const now = this.clock.now();
    const hit = this.decisions.get(key);
    if (hit && now - hit.at < this.ttl) return hit.allowed;
    const spec: Record<string, unknown> = { user: user.username, groups: user.groups };
    if (user.uid) spec.uid = user.uid;
    if (user.extra) spec.extra = user.extra;
    if (attrs.path !== undefined) spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
    else {
      const ra: Record<string, string> = { verb: attrs.verb, group: attrs.group ?? '', resource: attrs.resource ?? '' };
      if (attrs.version) ra.version = attrs.version;
      if (attrs.subresource) ra.subresource = attrs.subresource;
      if (attrs.name) ra.name = attrs.name;
      if (attrs.namespace) ra.namespace = attrs.namespace;
      spec.resourceAttributes = ra;
    }
    const res = await this.kube.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec,
    });
    const allowed = res.status?.allowed === true;
    if (this.decisions.size > 10000) this.decisions.clear();
    this.decisions.set(key, { at: now, allowed });
    this.log.debug({ user: user.username, attrs, allowed }, 'access review');
    return allowed;
  }
}
