// The `ipPools` part (feature gate AntreaIPAM): StatefulSet pre-allocation, status.usage and the
// in-use finalizer of IPPools, with all state in the pools' status.
import { KubeIPPoolStore } from '@switchyard/ipam';
import type { PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import type { Watch, WatchingPart } from '../informers';
import { IPPoolController } from '../ippool';
import { IPPOOLS, STATEFULSETS } from '../resources';
import { notRunning, type PartState } from './lifecycle';

export class IPPools implements WatchingPart {
  readonly name = 'ipPools';
  readonly watches: readonly Watch[];
  readonly pools: IPPoolController;
  private state: PartState = 'new';

  constructor(private readonly ctx: ControllerContext) {
    const pools = new IPPoolController(new KubeIPPoolStore(ctx.kube), { logger: ctx.log });
    this.pools = pools;
    // Events before start are taken in (the controller holds them until start); after stop, none.
    this.watches = [
      {
        resource: IPPOOLS,
        onEvent: (e) => {
          if (this.state !== 'stopped') pools.onPoolEvent(e.type, e.object);
        },
      },
      {
        resource: STATEFULSETS,
        onEvent: (e) => {
          if (this.state !== 'stopped') pools.onStatefulSetEvent(e.type, e.object);
        },
      },
    ];
  }

  /** After the informers part: both lists are complete, so StatefulSets deleted while no controller ran are found. */
  async start(): Promise<void> {
    this.state = 'running';
    this.pools.start(this.ctx.informers.cache(IPPOOLS).values(), this.ctx.informers.cache(STATEFULSETS).values());
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.idle();
  }

  /** Resolves when the queued work is done. */
  idle(): Promise<void> {
    return this.pools.idle();
  }

  health(): PartHealth {
    return notRunning(this.state) ?? { ok: true, detail: `${this.ctx.informers.cache(IPPOOLS).size} pools, ${this.ctx.informers.cache(STATEFULSETS).size} StatefulSets` };
  }
}
