// The `labelIdentities` part (stretched NetworkPolicy): the ClusterSet's LabelIdentities go to the
// compiler, so `scope: ClusterSet` peers carry the ids of the labels they select.
import type { PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import type { Watch, WatchingPart } from '../informers';
import { LABEL_IDENTITIES } from '../resources';
import { compileInto, type PolicyCore } from './policy-core';

export class LabelIdentities implements WatchingPart {
  readonly name = 'labelIdentities';
  readonly watches: readonly Watch[];

  constructor(private readonly ctx: ControllerContext, policy: PolicyCore) {
    this.watches = [{ resource: LABEL_IDENTITIES, onEvent: compileInto(policy.hub, ctx.log, LABEL_IDENTITIES) }];
  }

  async start(): Promise<void> {
    // The informers part lists them into the hub.
  }

  async stop(): Promise<void> {
    // Nothing of its own: the informer stops with the informers part.
  }

  health(): PartHealth {
    return { ok: true, detail: `${this.ctx.informers.cache(LABEL_IDENTITIES).size} label identities` };
  }
}
