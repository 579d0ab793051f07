/**
 * This agent's member Lease (`coordination.k8s.io/v1`, `switchyard-agent-<nodeName>` in the lease
 * namespace): renewed every period on the agent's clock, deleted on a graceful stop, so the other
 * agents see at once that this node no longer holds external IPs. What it says: this agent runs,
 * and which external IPs its node answers for (HELD_IPS_ANNOTATION, written at once when that
 * changes), so a new owner takes an IP only once the old one, still running, has let it go.
 */
import type { KubeClient } from '@switchyard/kube';
import { KubeRequestError } from '@switchyard/kube';
import type { Clock, Logger, TimerHandle } from '@switchyard/runtime';
import { HELD_IPS_ANNOTATION, MEMBER_LEASE_PREFIX } from './ownership';

export interface MemberLeaseOptions {
  kube: KubeClient;
  nodeName: string;
  namespace: string;
  renewSeconds: number;
  durationSeconds: number;
  clock: Clock;
  logger: Logger;
  /** Told after every renewal that went through. */
  onRenewed?: () => void;
  /** The IPs the node answers for at start (a previous run's record); see {@link MemberLease.setHeld}. */
  held?: readonly string[];
}

/** A Lease as this agent reads and writes it. */
interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** A Lease's MicroTime: RFC 3339 with microseconds, as the API server writes it. */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

export class MemberLease {
  readonly name: string;
  /** When the last renewal went through (the agent's clock); undefined before the first. */
  lastRenewedAt: number | undefined;
  /** The last renewal's failure, until one goes through. */
  lastError: unknown;
  private timer: TimerHandle | undefined;
  /** Writes, one after another (the periodic renewals and the ones {@link setHeld} asks for). */
  private writes: Promise<void> = Promise.resolve();
  private stopped = false;
  /** HELD_IPS_ANNOTATION's value: the IPs, sorted, comma-separated ('' for none). */
  private held: string;

  constructor(private readonly o: MemberLeaseOptions) {
    this.name = `${MEMBER_LEASE_PREFIX}${o.nodeName}`;
    this.held = [...(o.held ?? [])].sort().join(',');
  }

  /**
   * The IPs the node answers for now: written into the Lease at once when they change (a renewal),
   * resolved once that write is done or has failed (then the next renewal carries them). Nothing
   * is written once the Lease is stopping.
   */
  setHeld(ips: readonly string[]): Promise<void> {
    const v = [...ips].sort().join(',');
    if (v === this.held || this.stopped) return this.writes;
    this.held = v;
    return this.enqueue();
  }

  private enqueue(): Promise<void> {
    this.writes = this.writes.then(() => this.renew());
    return this.writes;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases`;
  }

  /** Whether the Lease is current at `now` as far as this agent knows (renewed less than a duration ago). */
  current(now: number): boolean {
    return this.lastRenewedAt !== undefined && now - this.lastRenewedAt < this.o.durationSeconds * 1000;
  }

  /** Renews now, then every period until {@link stop}. */
  start(): void {
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    void this.enqueue().finally(() => {
      if (!this.stopped) this.timer = this.o.clock.setTimeout(() => this.tick(), this.o.renewSeconds * 1000);
    });
  }

  /** The Lease as last written (its resourceVersion makes the next update conditional). */
  private written: LeaseObject | undefined;

  /**
   * One renewal: an update of the Lease last written (created when missing; read again after a
   * conflict). Never throws: the failure is kept in {@link lastError}.
   */
  async renew(): Promise<void> {
    const now = this.o.clock.now();
    const spec = { holderIdentity: this.o.nodeName, leaseDurationSeconds: this.o.durationSeconds, renewTime: microTime(now) };
    const annotations = (have: Record<string, string> | undefined): Record<string, string> | undefined => {
      const { [HELD_IPS_ANNOTATION]: _was, ...rest } = have ?? {};
      const out = this.held ? { ...rest, [HELD_IPS_ANNOTATION]: this.held } : rest;
      return Object.keys(out).length ? out : undefined;
    };
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          this.written ??= await this.read();
          this.written = this.written
            ? await this.o.kube.request<LeaseObject>('PUT', `${this.path}/${this.name}`, { ...this.written, metadata: { ...this.written.metadata, annotations: annotations(this.written.metadata.annotations) }, spec: { ...this.written.spec, ...spec } })
            : await this.o.kube.request<LeaseObject>('POST', this.path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: this.o.namespace, annotations: annotations(undefined) }, spec: { ...spec, acquireTime: microTime(now) } });
          break;
        } catch (e) {
          // Someone else wrote it (a previous run of this agent, an operator) or deleted it: read it again, once.
          this.written = undefined;
          if (attempt > 0 || !(e instanceof KubeRequestError && (e.status === 409 || e.status === 404))) throw e;
        }
      }
      if (this.lastError !== undefined) this.o.logger.info({ lease: this.name }, 'member Lease renewed again');
      this.lastError = undefined;
      this.lastRenewedAt = now;
      this.o.onRenewed?.();
    } catch (e) {
      if (this.lastError === undefined) this.o.logger.warn({ err: e instanceof Error ? e.message : String(e), lease: `${this.o.namespace}/${this.name}` }, 'member Lease not renewed');
      this.lastError = e;
    }
  }

  /** The Lease as the API has it, or undefined when there is none. */
  private async read(): Promise<LeaseObject | undefined> {
    try {
      return await this.o.kube.request<LeaseObject>('GET', `${this.path}/${this.name}`);
    } catch (e) {
      if (e instanceof KubeRequestError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** Stops renewing; with `release`, deletes the Lease (a graceful stop). */
  async stop(opts: { release: boolean }): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.writes;
    if (!opts.release || this.lastRenewedAt === undefined) return;
    try {
      await this.o.kube.request('DELETE', `${this.path}/${this.name}`);
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) this.o.logger.warn({ err: e instanceof Error ? e.message : String(e), lease: this.name }, 'member Lease not deleted: the other agents wait for it to run out');
    }
  }
}
