// The `nodeIpam` part (nodeIPAM.enableNodeIPAM): podCIDRs for Nodes, taken over from the Nodes'
// first list, then allocated and released as Nodes come and go.
import type { PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import type { Watch, WatchingPart } from '../informers';
import { NodeIpamController } from '../nodeipam';
import type { ControllerOptions } from '../options';
import { NODES } from '../resources';
import { notRunning, type PartState } from './lifecycle';

export class NodeIpam implements WatchingPart {
  readonly name = 'nodeIpam';
  readonly watches: readonly Watch[];
  private readonly ipam: NodeIpamController;
  private state: PartState = 'new';

  constructor(
    private readonly ctx: ControllerContext,
    private readonly config: NonNullable<ControllerOptions['nodeIPAM']>,
  ) {
    this.ipam = new NodeIpamController(ctx.kube, config, ctx.log);
    // Events before start are passed over: start takes the whole list.
    this.watches = [
      {
        resource: NODES,
        onEvent: (e) => {
          if (this.state === 'running') this.ipam.onEvent(e.type, e.object);
        },
      },
    ];
  }

  /** After the informers part: every Node is listed. */
  async start(): Promise<void> {
    this.state = 'running';
    this.ipam.start(this.ctx.informers.cache(NODES).values());
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.idle();
  }

  /** Resolves when pending Node updates are written. */
  idle(): Promise<void> {
    return this.ipam.idle();
  }

  health(): PartHealth {
    return notRunning(this.state) ?? { ok: true, detail: `podCIDRs from ${this.config.clusterCIDRs.join(', ')}` };
  }
}
