/**
 * This agent's member Lease (`coordination.k8s.io/v1`, `switchyard-agent-<nodeName>` in the lease
 * namespace): renewed every period on the agent's clock, deleted on a graceful stop, so the other
 * agents see at once that this node no longer holds external IPs. What it says: this agent runs.
 */
import type { KubeClient } from '@switchyard/kube';
import { KubeRequestError } from '@switchyard/kube';
import type { Clock, Logger, TimerHandle } from '@switchyard/runtime';
import { CLAIMS_ANNOTATION, LOCAL_IPS_ANNOTATION, MEMBER_LEASE_PREFIX } from './ownership';

export interface MemberLeaseOptions {
  kube: KubeClient;
  nodeName: string;
  namespace: string;
  renewSeconds: number;
  durationSeconds: number;
  /** How long before the Lease runs out (by this agent's clock) its IPs must be off the node; default 1. */
  fenceMarginSeconds?: number;
  clock: Clock;
  logger: Logger;
  /** Told after every renewal that went through. */
  onRenewed?: () => void;
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
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  /** The external IPs this agent answers for, written into every renewal ({@link CLAIMS_ANNOTATION}). */
  private claims = '';
  /** The Egress IPs without a pool this node holds as local addresses ({@link LOCAL_IPS_ANNOTATION}). */
  private local = '';

  constructor(private readonly o: MemberLeaseOptions) {
    this.name = `${MEMBER_LEASE_PREFIX}${o.nodeName}`;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases`;
  }

  /** Whether the Lease is current at `now` as far as this agent knows (renewed less than a duration ago). */
  current(now: number): boolean {
    return this.lastRenewedAt !== undefined && now - this.lastRenewedAt < this.o.durationSeconds * 1000;
  }

  /**
   * When this agent must have let go of its IPs (ms, its clock): the last good renewal's `renewTime`
   * plus the duration, less the margin. Undefined before the first renewal.
   */
  fenceAt(): number | undefined {
    return this.lastRenewedAt === undefined ? undefined : this.lastRenewedAt + (this.o.durationSeconds - (this.o.fenceMarginSeconds ?? 1)) * 1000;
  }

  /** Renews now, then every period until {@link stop}. */
  start(): void {
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    if (this.inFlight) {
      // A claim is being written: that is this period's renewal.
      this.timer = this.o.clock.setTimeout(() => this.tick(), this.o.renewSeconds * 1000);
      return;
    }
    this.inFlight = this.renew().finally(() => {
      this.inFlight = undefined;
      if (!this.stopped) this.timer = this.o.clock.setTimeout(() => this.tick(), this.o.renewSeconds * 1000);
    });
  }

  /**
   * Says which external IPs this agent answers for: written at once (a renewal, after the one in
   * flight) when the set changed. Resolves once written; rejects when the write failed, so a caller
   * about to take an IP does not take it unannounced.
   */
  async claim(ips: readonly string[]): Promise<void> {
    const value = [...ips].sort().join(',');
    if (value === this.claims && this.lastError === undefined) return;
    this.claims = value;
    await this.writeNow();
  }

  /**
   * Says which Egress IPs without a pool this node holds as local addresses (every agent chooses
   * their owner from these): written at once when the set changed, as {@link claim}.
   */
  async publishLocal(ips: readonly string[]): Promise<void> {
    const value = [...ips].sort().join(',');
    if (value === this.local && this.lastError === undefined) return;
    this.local = value;
    await this.writeNow();
  }

  /** A renewal now (after the one in flight); rejects when it failed. */
  private async writeNow(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (this.stopped) return;
    const write: Promise<void> = this.renew().finally(() => {
      if (this.inFlight === write) this.inFlight = undefined;
    });
    this.inFlight = write;
    await write;
    if (this.lastError !== undefined) throw this.lastError;
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
    const withClaims = (m: LeaseObject['metadata']): LeaseObject['metadata'] => {
      const { [CLAIMS_ANNOTATION]: _old, [LOCAL_IPS_ANNOTATION]: _oldLocal, ...rest } = m.annotations ?? {};
      const annotations = { ...rest, ...(this.claims ? { [CLAIMS_ANNOTATION]: this.claims } : {}), ...(this.local ? { [LOCAL_IPS_ANNOTATION]: this.local } : {}) };
      return { ...m, annotations };
    };
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          this.written ??= await this.read();
          this.written = this.written
            ? await this.o.kube.request<LeaseObject>('PUT', `${this.path}/${this.name}`, { ...this.written, metadata: withClaims(this.written.metadata), spec: { ...this.written.spec, ...spec } })
            : await this.o.kube.request<LeaseObject>('POST', this.path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: withClaims({ name: this.name, namespace: this.o.namespace }), spec: { ...spec, acquireTime: microTime(now) } });
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
    await this.inFlight;
    if (!opts.release || this.lastRenewedAt === undefined) return;
    try {
      await this.o.kube.request('DELETE', `${this.path}/${this.name}`);
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) this.o.logger.warn({ err: e instanceof Error ? e.message : String(e), lease: this.name }, 'member Lease not deleted: the other agents wait for it to run out');
    }
  }
}
