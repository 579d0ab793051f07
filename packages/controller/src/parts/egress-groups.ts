// The `egressGroups` part (feature gate Egress): the members of every Egress, computed here from
// the Pods, the Namespaces and the Egresses as their events come, and served to every agent
// through the hub's `egressgroups` watch (Antrea's EgressGroups). The younger of two Egresses
// selecting one pod gets the EgressOverlap Event from the same state.
import type { Egress, ObjectReference } from '@switchyard/apis/types';
import type { controlplane } from '@switchyard/apis';
import type { InformerEvent } from '@switchyard/kube';
import { Reconciler, type PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { EgressMembership, egressCompetes, egressMemberPod, egressSelectorFacts, overlapNote, type EgressGroupChange } from '../egress-groups';
import { EventRecorder } from '../events';
import type { ControlplaneHub } from '../hub';
import type { Watch, WatchingPart } from '../informers';
import { EGRESSES, NAMESPACES, PODS } from '../resources';
import { notRunning, type PartState } from './lifecycle';

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The hub's watch events for membership changes. */
export function egressGroupEvents(changes: readonly EgressGroupChange[]): controlplane.WatchEvent[] {
  return changes.map((c): controlplane.WatchEvent => {
    switch (c.type) {
      case 'ADDED':
        return { type: 'ADDED', kind: 'EgressGroup', object: c.group };
      case 'MODIFIED':
        return { type: 'MODIFIED', kind: 'EgressGroupPatch', object: c.patch };
      case 'DELETED':
        return { type: 'DELETED', kind: 'EgressGroup', object: { name: c.name, groupMembers: [] } };
    }
  });
}

/**
 * Follows Pod, Namespace and Egress events from the first LIST on (before the hub serves, so the
 * first watch already gets every group), publishes each change to the hub, and reports overlaps
 * once started.
 */
export class EgressGroups implements WatchingPart {
  readonly name = 'egressGroups';
  readonly watches: readonly Watch[];
  readonly membership = new EgressMembership();
  readonly events: EventRecorder;
  private readonly reconciler: Reconciler;
  private state: PartState = 'new';
  private reportedOverlaps = -1;
  /** Events published to the hub (for metrics and tests). */
  published = 0;

  constructor(private readonly ctx: ControllerContext, private readonly hub: ControlplaneHub) {
    this.events = new EventRecorder({ kube: ctx.kube, clock: ctx.clock, log: ctx.log, component: 'switchyard-controller', ...(ctx.options.podRef ? { instance: ctx.options.podRef.name } : {}) });
    this.reconciler = new Reconciler(() => this.reportOverlaps(), { clock: ctx.clock, onError: (e, retryInMs) => ctx.log.warn({ err: message(e), retryInMs }, 'EgressOverlap Events not written') });
    this.watches = [
      { resource: EGRESSES, onEvent: (e) => this.onEgress(e) },
      { resource: PODS, onEvent: (e) => this.publish(this.membership.setPod(e.object.metadata.namespace ?? '', e.object.metadata.name ?? '', e.type === 'DELETED' ? undefined : egressMemberPod(e.object))) },
      { resource: NAMESPACES, onEvent: (e) => this.publish(this.membership.setNamespace(e.object.metadata.name ?? '', e.type === 'DELETED' ? undefined : (e.object.metadata.labels ?? {}))) },
    ];
    ctx.metrics.register('switchyard_controller_egress_group_members', 'gauge', 'Members of the Egress groups served to agents', () => this.membership.allGroups().reduce((n, g) => n + g.groupMembers.length, 0));
    ctx.metrics.register('switchyard_controller_egress_group_events_total', 'counter', 'Egress group events published to the agents', () => this.published);
  }

  async start(): Promise<void> {
    this.state = 'running';
    this.reconciler.schedule();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.reconciler.stop();
  }

  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  health(): PartHealth {
    const off = notRunning(this.state);
    if (off) return off;
    const groups = this.membership.allGroups();
    const detail = `${groups.length} Egress groups, ${groups.reduce((n, g) => n + g.groupMembers.length, 0)} members of ${this.membership.podCount} pods`;
    if (this.reconciler.failing) return { ok: false, detail: `${detail}; EgressOverlap Events not written: ${message(this.reconciler.lastError)}` };
    return { ok: true, detail };
  }

  private egresses(): Egress[] {
    return [...this.ctx.informers.cache(EGRESSES).values()] as unknown as Egress[];
  }

  private onEgress(e: InformerEvent): void {
    if (e.type === 'DELETED' && e.object.metadata.uid) this.events.clear({ uid: e.object.metadata.uid });
    this.publish(this.membership.setEgresses(this.egresses().filter(egressCompetes).map(egressSelectorFacts)));
    // An Egress that stopped competing may still hold an Event of an earlier overlap.
    if (this.state === 'running') this.reconciler.schedule();
  }

  private publish(changes: readonly EgressGroupChange[]): void {
    if (changes.length > 0) {
      const events = egressGroupEvents(changes);
      this.hub.publishEgressGroups(events);
      this.published += events.length;
    }
    if (this.state === 'running' && this.membership.overlapVersion !== this.reportedOverlaps) this.reconciler.schedule();
  }

  /** EgressOverlap on every younger Egress that loses pods to an older one; cleared on the others. */
  private async reportOverlaps(): Promise<void> {
    if (this.state !== 'running') return;
    const version = this.membership.overlapVersion;
    const overlaps = this.membership.overlaps();
    for (const eg of this.egresses()) {
      const ref: ObjectReference = { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', name: eg.metadata.name ?? '', ...(eg.metadata.uid ? { uid: eg.metadata.uid } : {}), ...(eg.metadata.resourceVersion ? { resourceVersion: eg.metadata.resourceVersion } : {}) };
      const lost = overlaps.get(eg.metadata.name ?? '');
      if (lost) await this.events.report(ref, 'overlap', overlapNote(lost));
      else this.events.clear(ref, 'overlap');
    }
    this.reportedOverlaps = version;
  }
}
