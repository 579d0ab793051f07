/**
 * The API part: the local API on a unix socket (for yardctl on the node) and the HTTPS agent API
 * on TCP (Antrea's apiPort, reached through the API server's node proxy).
 */
import { KubeDelegatedAuth, type KubeClient } from '@switchyard/kube';
import type { Logger, Part, PartHealth } from '@switchyard/runtime';
import { LocalApi, type AgentIntrospection } from './api';
import type { AgentContext } from '../../context';
import { AgentError } from '../../errors';
import { selfSignedCert } from './tls';

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * The CAs of client certificates the API server presents (its own client CA and the front-proxy
 * CA), from kube-system/extension-apiserver-authentication as kube-apiserver publishes them.
 * Undefined when the ConfigMap cannot be read: then only bearer tokens authenticate.
 */
async function clusterClientCa(kube: KubeClient, log: Logger): Promise<string | undefined> {
  try {
    const cm = await kube.request<{ data?: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    const pems = [cm.data?.['client-ca-file'], cm.data?.['requestheader-client-ca-file']].filter((p): p is string => typeof p === 'string' && p.includes('BEGIN CERTIFICATE'));
    return pems.length ? [...new Set(pems)].join('\n') : undefined;
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e) }, 'cannot read kube-system/extension-apiserver-authentication: the agent API accepts bearer tokens only');
    return undefined;
  }
}

export class AgentApi implements Part {
  readonly name = 'api';
  private readonly cert: Promise<{ certPem: string; keyPem: string }> | undefined;
  private unix: LocalApi | undefined;
  private tcp: LocalApi | undefined;

  /** `introspect` is read when the servers open, once every part has started. */
  constructor(
    private readonly ctx: AgentContext,
    private readonly introspect: () => AgentIntrospection,
  ) {
    const o = ctx.options;
    // The certificate is made at construction, before any part starts: the first one in a process
    // loads @peculiar/x509 (about half a second), which then overlaps the node bring-up.
    this.cert = o.apiPort !== undefined
      ? selfSignedCert(`${o.nodeName}@switchyard-agent`, [o.nodeIP, o.apiBindAddress, '127.0.0.1', 'localhost', o.nodeName].filter((h) => h !== '0.0.0.0' && h !== '::'))
      : undefined;
    this.cert?.catch(() => undefined); // awaited where the TCP API starts; a failure surfaces there
  }

  /** The TCP port served, when there is a TCP API. */
  get port(): number | undefined {
    return this.tcp?.port;
  }

  async start(): Promise<void> {
    // Nothing to prime: the servers open in sync, once the first round is installed.
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    if (o.apiSocket !== undefined) {
      this.unix = await LocalApi.listen(o.apiSocket, this.introspect(), { logger: log });
      log.info({ socket: o.apiSocket }, 'local API listening');
    }
    if (o.apiPort === undefined || !this.cert) return;
    // HTTPS with a self-signed certificate; callers authenticated and authorized through the
    // Kubernetes API when there is one (without it, only a loopback bind is allowed).
    const tls = await this.cert;
    let auth: KubeDelegatedAuth | undefined;
    let clientCaPem: string | undefined;
    if (o.kube) {
      clientCaPem = await clusterClientCa(o.kube, log);
      auth = new KubeDelegatedAuth(o.kube, { clientCertificates: true, logger: log, ...(o.clock ? { clock: o.clock } : {}) });
    } else if (!isLoopback(o.apiBindAddress)) {
      throw new AgentError('INVALID_CONFIG', `the agent API cannot bind ${o.apiBindAddress} without the Kubernetes API to authenticate callers`, o.apiBindAddress, 'apiBindAddress');
    }
    this.tcp = await LocalApi.listenTcp(o.apiBindAddress, o.apiPort, this.introspect(), {
      logger: log,
      tls: { ...tls, ...(clientCaPem ? { clientCaPem } : {}) },
      ...(auth ? { auth } : {}),
    });
    log.info({ address: this.tcp.address }, 'agent API listening on TCP');
  }

  async stop(): Promise<void> {
    await this.tcp?.close();
    await this.unix?.close();
  }

  health(): PartHealth {
    const serving = [this.unix?.address, this.tcp?.address].filter((a): a is string => a !== undefined);
    const o = this.ctx.options;
    const expected = (o.apiSocket !== undefined ? 1 : 0) + (o.apiPort !== undefined ? 1 : 0);
    if (serving.length < expected) return { ok: false, detail: `serving ${serving.length} of ${expected} endpoints` };
    return { ok: true, detail: serving.length ? `serving on ${serving.join(', ')}` : 'no API configured' };
  }
}
