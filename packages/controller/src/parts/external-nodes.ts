// The `externalNode` part (feature gate ExternalNode): each ExternalNode's ExternalEntities and
// AntreaAgentInfo, reconciled from the ExternalNode informer's events.
import type { ExternalNode } from '@switchyard/apis';
import type { InformerEvent } from '@switchyard/kube';
import type { PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { ExternalNodeController } from '../externalnode';
import type { Watch, WatchingPart } from '../informers';
import { EXTERNAL_ENTITIES, EXTERNAL_NODES } from '../resources';
import { notRunning, type PartState } from './lifecycle';

export class ExternalNodes implements WatchingPart {
  readonly name = 'externalNode';
  readonly watches: readonly Watch[];
  private controller: ExternalNodeController | undefined;
  private state: PartState = 'new';

  constructor(private readonly ctx: ControllerContext) {
    // The entities it reads to find those an ExternalNode no longer wants.
    this.watches = [{ resource: EXTERNAL_ENTITIES }, { resource: EXTERNAL_NODES, onEvent: (e) => this.onEvent(e) }];
  }

  /** From the informers' first list on (before this part's start, as before the parts). */
  private onEvent(e: InformerEvent): void {
    if (this.state === 'stopped') return;
    // Made at the first event: the entities' informer exists once the controller has read the declarations.
    this.controller ??= new ExternalNodeController(this.ctx.kube, this.ctx.informers.cache(EXTERNAL_ENTITIES), this.ctx.log);
    this.controller.onEvent(e.type, e.object as unknown as ExternalNode);
  }

  async start(): Promise<void> {
    this.state = 'running';
  }

  /** Takes no further events and waits for the queued reconciles. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.idle();
  }

  /** Resolves when the queued reconciles are done. */
  idle(): Promise<void> {
    return this.controller?.idle() ?? Promise.resolve();
  }

  health(): PartHealth {
    return notRunning(this.state) ?? { ok: true, detail: `${this.ctx.informers.cache(EXTERNAL_NODES).size} ExternalNodes` };
  }
}
