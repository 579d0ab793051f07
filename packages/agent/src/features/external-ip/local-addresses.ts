/**
 * The node's local IPv4 and IPv6 addresses, followed: an Egress IP without a pool (manual mode) belongs to
 * the node holding it as a local address, so the external IP part needs to know when the user adds
 * or removes one. Each address event (rtnetlink groups RTMGRP_IPV4_IFADDR and RTMGRP_IPV6_IFADDR, or `ip monitor` in the
 * lab) reads the whole set again (a burst costs one read, runtime's Reconciler); a read on the
 * clock every `resyncMs` is the backstop for what a monitor cannot see (the lab's `ip monitor`
 * subscribes a moment after it starts; a monitor that died is started again there).
 */
import { Reconciler, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import type { NodeNetwork } from '../../netops';

export interface LocalAddressWatchOptions {
  net: Pick<NodeNetwork, 'localAddresses' | 'monitorAddresses'>;
  clock: Clock;
  logger: Logger;
  /** Told the whole set after every read (the receiver ignores a set that did not change). */
  onAddresses: (ips: readonly string[]) => void;
  /** Period of the backstop read. Default 10 s. */
  resyncMs?: number;
}

export class LocalAddressWatch {
  private readonly reconciler: Reconciler;
  private monitor: { stop(): void } | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** Reads done (tests and health). */
  reads = 0;
  /** Why the monitor last ended by itself, while it is down. */
  monitorDown: string | undefined;

  constructor(private readonly o: LocalAddressWatchOptions) {
    this.reconciler = new Reconciler(() => this.read(), { clock: o.clock, onError: (err, retryInMs) => o.logger.warn({ err, retryInMs }, 'local addresses not read') });
  }

  /** Subscribes, then reads (so no change falls between the two on a real node). */
  start(): void {
    this.startMonitor();
    this.reconciler.schedule();
    this.arm();
  }

  private startMonitor(): void {
    if (this.stopped) return;
    try {
      this.monitor = this.o.net.monitorAddresses(
        () => this.reconciler.schedule(),
        (why) => {
          this.monitor = undefined;
          this.monitorDown = why;
          this.o.logger.warn({ why }, 'address monitor ended: local addresses are read on the backstop period until it runs again');
        },
      );
      this.monitorDown = undefined;
    } catch (err) {
      this.monitorDown = err instanceof Error ? err.message : String(err);
      this.o.logger.warn({ err }, 'address monitor not started: local addresses are read on the backstop period');
    }
  }

  private arm(): void {
    this.timer = this.o.clock.setTimeout(() => {
      if (this.stopped) return;
      if (!this.monitor) this.startMonitor();
      this.reconciler.schedule();
      this.arm();
    }, this.o.resyncMs ?? 10_000);
  }

  private async read(): Promise<void> {
    if (this.stopped) return;
    const ips = await this.o.net.localAddresses();
    this.reads++;
    this.o.onAddresses(ips);
  }

  /** Resolves once every event seen so far is read. */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.monitor?.stop();
    this.monitor = undefined;
    await this.reconciler.stop();
  }
}
