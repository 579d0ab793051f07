// The controller process: the parts of CONTROLLER_PARTS behind one lifecycle (start, sync, stop,
// health). Everything I/O is injected through the options.
import type { Informer, KubeObject } from '@switchyard/kube';
import { composeParts, type Part, type PartSet, type PartsHealth } from '@switchyard/runtime';
import { controllerContext, type ControllerContext } from './context';
import { CONTROLLER_PARTS } from './controller-parts';
import type { ControlplaneHub } from './hub';
import { watchesOf } from './informers';
import type { MetricsRegistry } from './metrics';
import type { ControllerOptions } from './options';
import type { ControllerApi } from './parts/controller-api';
import type { ControllerInfoHeartbeat } from './parts/controller-info';
import type { PolicyCore } from './parts/policy-core';
import type { ServingCertificate } from './parts/serving-certificate';
import type { ControllerPki } from './pki';
import type { ControlplaneServer } from './server';
import type { PolicyStatusAggregator } from './status';

export { CONTROLLER_VERSION } from './context';
export type { ControllerOptions } from './options';

/** A running controller: the enabled parts of {@link CONTROLLER_PARTS}. */
export class Controller {
  /** The enabled parts, in start order. */
  readonly parts: PartSet;
  private readonly ctx: ControllerContext;

  constructor(options: ControllerOptions) {
    this.ctx = controllerContext(options, () => this.health());
    this.parts = composeParts(CONTROLLER_PARTS, this.ctx);
    for (const part of this.parts.list) this.ctx.informers.watch(watchesOf(part));
  }

  /**
   * Starts then syncs the parts in order: informers listed before the allocators start, the hub
   * synced before the server listens, the server listening before the registrations. Resolves with
   * the bound port; on a failure, the parts reached are stopped again and the failure is thrown.
   */
  async start(): Promise<number> {
    await this.parts.start(this.ctx.log);
    this.ctx.log.info({ port: this.port, resourceVersion: this.hub.resourceVersion, parts: this.parts.names() }, 'controller serving');
    return this.port;
  }

  /** Graceful shutdown, parts in reverse start order: watch streams end cleanly, informers, timers and queues stop. */
  async stop(): Promise<void> {
    await this.parts.stop(this.ctx.log);
  }

  /** Each part's health, in start order; ok when every part is. */
  health(): PartsHealth {
    return this.parts.health();
  }

  /** The part of this name; `PartError` `PART_MISSING` when the options leave it off. */
  part<T extends Part>(name: string): T {
    return this.parts.require<T>(name);
  }

  /** The compiler and the per-node streams (part `policy`). */
  get hub(): ControlplaneHub {
    return this.part<PolicyCore>('policy').hub;
  }

  /** Policy realization status (part `policy`). */
  get status(): PolicyStatusAggregator {
    return this.part<PolicyCore>('policy').status;
  }

  get metrics(): MetricsRegistry {
    return this.ctx.metrics;
  }

  /** One informer per watched resource, in the order the parts declare them. */
  get informers(): readonly Informer[] {
    return this.ctx.informers.list;
  }

  /** The CA and serving certificate (part `pki`, from start on). */
  get pki(): ControllerPki {
    return this.part<ServingCertificate>('pki').pki;
  }

  /** The HTTPS server (part `server`, from start on). */
  get server(): ControlplaneServer {
    return this.part<ControllerApi>('server').server;
  }

  /** The bound API port (0 before the server listens). */
  get port(): number {
    return this.part<ControllerApi>('server').port;
  }

  /** Write AntreaControllerInfo `antrea-controller` now (part `controllerInfo`). */
  writeControllerInfo(): Promise<void> {
    return this.part<ControllerInfoHeartbeat>('controllerInfo').write();
  }

  /** Objects the informers hold for a resource (plural). */
  cacheOf(plural: string): ReadonlyMap<string, KubeObject> | undefined {
    return this.ctx.informers.cacheOf(plural);
  }
}
