// The `server` part: the controller's HTTPS API (agents' watch streams and status reports, the
// read API, the admission webhook, metrics, health), listening from sync on, once every part has
// started and the hub is synced.
import { KubeDelegatedAuth } from '@switchyard/kube';
import type { Part, PartHealth } from '@switchyard/runtime';
import { CONTROLLER_VERSION, type ControllerContext } from '../context';
import { ControllerError } from '../errors';
import type { MetricsRegistry } from '../metrics';
import { ControlplaneServer } from '../server';
import type { Admission } from './admission';
import type { PolicyCore } from './policy-core';
import type { ServingCertificate } from './serving-certificate';

/** The parts the server serves from. */
export interface ControllerApiParts {
  pki: ServingCertificate;
  policy: PolicyCore;
  admission?: Admission;
}

export class ControllerApi implements Part {
  readonly name = 'server';
  /** The bound port (0 until it listens). */
  port = 0;
  private srv: ControlplaneServer | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly parts: ControllerApiParts,
  ) {
    registerMetrics(ctx.metrics, () => this.srv);
  }

  /** The HTTPS server (from sync on). */
  get server(): ControlplaneServer {
    if (!this.srv) throw new ControllerError('NOT_STARTED', 'the server is made when the controller starts', 'server');
    return this.srv;
  }

  async start(): Promise<void> {
    // Serves nothing before every part has started: see sync.
  }

  async sync(): Promise<void> {
    const ctx = this.ctx;
    const o = ctx.options;
    const { pki, policy, admission } = this.parts;
    this.srv = new ControlplaneServer({
      hub: policy.hub,
      auth: o.auth ?? new KubeDelegatedAuth(ctx.kube, { clock: ctx.clock, logger: ctx.log }),
      tls: { certPem: pki.pki.certPem, keyPem: pki.pki.keyPem, ...(o.requestHeaderCaPem ? { clientCaPem: o.requestHeaderCaPem } : {}) },
      port: o.port ?? 10349,
      ...(o.host ? { host: o.host } : {}),
      ...(o.maxWatcherBufferBytes ? { maxWatcherBufferBytes: o.maxWatcherBufferBytes } : {}),
      status: policy.status,
      ...(admission ? { admission: admission.webhook } : {}),
      metrics: ctx.metrics,
      health: () => ctx.health(),
      info: () => ({ version: CONTROLLER_VERSION, epoch: policy.hub.epoch }),
      logger: ctx.log,
    });
    this.port = await this.srv.listen();
  }

  /** Ends every watch stream cleanly (agents resume against the next instance) and closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.srv?.close();
  }

  health(): PartHealth {
    if (this.stopped) return { ok: false, detail: 'stopped' };
    if (this.port === 0) return { ok: false, detail: 'not listening' };
    return { ok: true, detail: `listening on port ${this.port}, ${this.srv?.connections.size ?? 0} watch streams` };
  }
}

function registerMetrics(m: MetricsRegistry, server: () => ControlplaneServer | undefined): void {
  const stat = (read: (s: ControlplaneServer) => number) => () => {
    const s = server();
    return s ? read(s) : 0;
  };
  m.register('switchyard_controller_watchers', 'gauge', 'Open agent watch streams', stat((s) => s.connections.size));
  m.register('switchyard_controller_watcher_queue_bytes', 'gauge', 'Bytes queued for watchers (sum)', stat((s) => s.bufferedBytes()));
  m.register('switchyard_controller_events_sent_total', 'counter', 'Watch events sent to agents', stat((s) => s.stats.eventsSent));
  m.register('switchyard_controller_bytes_sent_total', 'counter', 'Watch bytes sent to agents', stat((s) => s.stats.bytesSent));
  m.register('switchyard_controller_watcher_overflows_total', 'counter', 'Watchers disconnected for exceeding their buffer bound', stat((s) => s.stats.overflowDisconnects));
  m.register('switchyard_controller_watch_expired_total', 'counter', 'Watches refused with 410 (stale resourceVersion)', stat((s) => s.stats.watchesExpired));
}
