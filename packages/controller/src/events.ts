// Kubernetes Events about the objects the controller acts on (core/v1, as client-go's recorder
// writes them): one Event per distinct problem of an object, not one per pass that sees it again.
import type { Event, ObjectReference } from '@switchyard/apis/types';
import type { KubeClient } from '@switchyard/kube';
import type { Clock, Logger } from '@switchyard/runtime';

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  kube: KubeClient;
  clock: Clock;
  log: Logger;
  /** `source.component` and `reportingComponent`. */
  component: string;
  /** `reportingInstance` (the pod or host of this controller). */
  instance?: string;
}

/** What one Event says about one object. */
export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Writes Events. {@link EventRecorder.report} writes one only when the object's last reported note
 * for that `topic` differs (a Service that stays pending for the same reason gets one Event);
 * {@link EventRecorder.clear} forgets it (the problem is over, a recurrence is news again). Writes
 * are best effort, as client-go's recorder: a failure is logged, never thrown.
 */
export class EventRecorder {
  private readonly last = new Map<string, string>();
  /** Events written (for tests and health). */
  written = 0;

  constructor(private readonly o: EventRecorderOptions) {}

  /** Reports `note` about `ref` unless it was the last one reported for this object and topic. */
  async report(ref: ObjectReference, topic: string, note: EventNote): Promise<void> {
    const key = `${ref.uid ?? `${ref.namespace ?? ''}/${ref.name ?? ''}`}|${topic}`;
    const said = `${note.type}|${note.reason}|${note.message}`;
    if (this.last.get(key) === said) return;
    this.last.set(key, said);
    await this.write(ref, note);
  }

  /** Forgets what was reported about the object (every topic when none is given). */
  clear(ref: ObjectReference, topic?: string): void {
    const id = ref.uid ?? `${ref.namespace ?? ''}/${ref.name ?? ''}`;
    if (topic !== undefined) return void this.last.delete(`${id}|${topic}`);
    for (const k of [...this.last.keys()]) if (k.startsWith(`${id}|`)) this.last.delete(k);
  }

  /** Writes one Event now. */
  async write(ref: ObjectReference, note: EventNote): Promise<void> {
    const now = rfc3339(this.o.clock.now());
    // Events of a cluster-scoped object go to `default`, as kubectl and client-go put them.
    const namespace = ref.namespace ?? 'default';
    const body: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${ref.name ?? 'object'}.`, namespace },
      involvedObject: ref,
      reason: note.reason,
      message: note.message,
      type: note.type,
      source: { component: this.o.component },
      reportingComponent: this.o.component,
      reportingInstance: this.o.instance ?? this.o.component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.o.kube.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, body);
      this.written++;
      this.o.log.info({ object: `${ref.kind ?? ''} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name ?? ''}`, type: note.type, reason: note.reason, message: note.message }, 'event');
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message, reason: note.reason, object: ref.name }, 'event not written');
    }
  }
}
