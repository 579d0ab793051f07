/**
 * A WireGuard device's private key while the agent runs, for the node's device and for any other
 * feature's WireGuard device: loaded (or made) at start, and rotated on three triggers that one
 * pure function decides (`keyRotationDecision`): the key file removed, replaced with another key,
 * or older than the rotation period on the agent's clock. The file's directory is watched for the
 * first two; a timer on the clock wakes the check when the key comes of age.
 *
 * The keeper decides and keeps the file; its owner installs the new key on its device and
 * publishes the public key (`install`), and runs checks one at a time with its other device work
 * (`onCheckDue` asks it to).
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Clock, Logger, TimerHandle } from '@switchyard/runtime';
import { generatePrivateKey, keyRotationDecision, loadOrCreatePrivateKey, publicKeyOf, readKeyFile, writePrivateKey } from './wireguard';

export interface WireGuardKeyOptions {
  /** The key file (its directory is watched). */
  file: string;
  clock: Clock;
  log: Logger;
  /** Rotate when the key is this old (its file's time on the clock); absent = never by age. */
  periodMs?: number;
  /** Which device, in log lines (`WireGuard`, or the other feature's name for its device). */
  label: string;
  /** Called when a check is due; the owner then calls {@link WireGuardKey.rotateIfDue} in its own order. */
  onCheckDue: () => void;
}

export class WireGuardKey {
  privateKey = '';
  /** The public key of {@link privateKey} (base64). */
  publicKey = '';
  /** Key rotations made while this agent ran. */
  rotations = 0;
  /** Why the key file was not used (it holds no key); cleared once it is right again. */
  problem: string | undefined;
  private timer: TimerHandle | undefined;
  private watcher: FSWatcher | undefined;
  private stopped = false;

  constructor(private readonly o: WireGuardKeyOptions) {}

  /**
   * The key from the file, made (durably, dated on the clock) when there is none.
   * @throws AgentError `WIREGUARD` when the file holds no key.
   */
  load(): { created: boolean } {
    const { privateKey, created } = loadOrCreatePrivateKey(this.o.file, this.o.clock.now());
    this.privateKey = privateKey;
    this.publicKey = publicKeyOf(privateKey);
    return { created };
  }

  /** Starts the triggers and asks for a first check (which arms the age timer). */
  watch(): void {
    const dir = dirname(this.o.file);
    const name = basename(this.o.file);
    try {
      this.watcher = watch(dir, (_event, file) => {
        if (file === name) this.due();
      });
      this.watcher.on('error', (e) => this.o.log.warn({ err: e.message, dir }, `${this.o.label} key directory watch failed; the rotation period still applies`));
    } catch (e) {
      this.o.log.warn({ err: e instanceof Error ? e.message : String(e), dir }, `${this.o.label} key directory not watched; the rotation period still applies`);
    }
    this.due();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.watcher?.close();
  }

  /**
   * Applies the rotation decision for the key file as it is now. A new key is written to disk
   * before `install` puts it on the device (an agent that dies in between comes back with it);
   * `install` also publishes it. Resolves whether the key changed.
   */
  async rotateIfDue(install: (privateKey: string, publicKey: string) => Promise<void>): Promise<boolean> {
    const { clock, log, periodMs, file, label } = this.o;
    const d = keyRotationDecision({ file: readKeyFile(file), current: this.privateKey, nowMs: clock.now(), ...(periodMs !== undefined ? { periodMs } : {}) });
    if (d.action === 'keep') {
      this.problem = undefined;
      if (d.nextCheckInMs !== undefined) this.arm(d.nextCheckInMs);
      return false;
    }
    if (d.action === 'refuse') {
      if (this.problem === undefined) log.error({ file }, `${label} key file ${file}: ${d.reason}; the device keeps its key`);
      this.problem = d.reason;
      return false;
    }
    this.problem = undefined;
    let next: string;
    if (d.action === 'generate') {
      next = generatePrivateKey();
      writePrivateKey(file, next, clock.now());
    } else next = d.privateKey;
    const previous = this.publicKey;
    const nextPublic = publicKeyOf(next);
    await install(next, nextPublic);
    this.privateKey = next;
    this.publicKey = nextPublic;
    this.rotations++;
    log.info({ previous, publicKey: nextPublic, reason: d.reason }, `${label} key rotated: ${d.reason}`);
    if (periodMs !== undefined) this.arm(periodMs);
    return true;
  }

  private due(): void {
    if (!this.stopped) this.o.onCheckDue();
  }

  private arm(ms: number): void {
    this.timer?.cancel();
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => this.due(), ms);
  }
}
