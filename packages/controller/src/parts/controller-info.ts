// The `controllerInfo` part: AntreaControllerInfo `antrea-controller`, written once the server
// listens (it names the API port) and then every heartbeatIntervalMs (default 60 s).
import type { Part, PartHealth, TimerHandle } from '@switchyard/runtime';
import { CONTROLLER_VERSION, type ControllerContext } from '../context';
import { upsert } from '../upsert';
import type { ControllerApi } from './controller-api';
import type { PolicyCore } from './policy-core';
import { notRunning, type PartState } from './lifecycle';

export class ControllerInfoHeartbeat implements Part {
  readonly name = 'controllerInfo';
  private timer: TimerHandle | undefined;
  private state: PartState = 'new';
  private writes = 0;
  private lastError: string | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly parts: { policy: PolicyCore; server: ControllerApi },
  ) {}

  async start(): Promise<void> {
    // Describes the running controller: written from sync on.
  }

  async sync(): Promise<void> {
    this.state = 'running';
    this.beat();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.timer?.cancel();
  }

  health(): PartHealth {
    const off = notRunning(this.state);
    if (off) return off;
    if (this.lastError !== undefined) return { ok: false, detail: `last write failed: ${this.lastError}` };
    return { ok: true, detail: `${this.writes} writes` };
  }

  private beat(): void {
    if (this.state === 'stopped') return;
    void this.write().then(
      () => {
        this.writes++;
        this.lastError = undefined;
      },
      (e: unknown) => {
        this.lastError = e instanceof Error ? e.message : String(e);
        this.ctx.log.warn({ err: this.lastError }, 'controller info heartbeat failed');
      },
    );
    this.timer = this.ctx.clock.setTimeout(() => this.beat(), this.ctx.options.heartbeatIntervalMs ?? 60000);
  }

  /** Write AntreaControllerInfo `antrea-controller` now. */
  async write(): Promise<void> {
    const { ctx } = this;
    const hub = this.parts.policy.hub;
    const snap = hub.engine.snapshot();
    const body: Record<string, unknown> = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'AntreaControllerInfo',
      metadata: { name: 'antrea-controller' },
      version: CONTROLLER_VERSION,
      networkPolicyControllerInfo: { networkPolicyNum: snap.networkPolicies.length, addressGroupNum: snap.addressGroups.length, appliedToGroupNum: snap.appliedToGroups.length },
      connectedAgentNum: hub.connectedNodes().length,
      controllerConditions: [{ type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: new Date(ctx.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') }],
      apiPort: this.parts.server.port,
      serviceRef: { kind: 'Service', namespace: ctx.namespace, name: ctx.serviceName },
    };
    if (ctx.options.podRef) body.podRef = { kind: 'Pod', ...ctx.options.podRef };
    if (ctx.options.nodeName) body.nodeRef = { kind: 'Node', name: ctx.options.nodeName };
    await upsert(ctx.kube, '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos/antrea-controller', '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos', body);
  }
}
