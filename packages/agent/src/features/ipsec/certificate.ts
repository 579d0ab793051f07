/**
 * The agent's IPsec certificate while it runs (`ipsec.authenticationMode: cert`): made sure of at
 * start (asked of the controller's signer when missing or unusable), then checked again on the
 * agent's clock when it enters its renewal window (the last fifth of its lifetime) and at least
 * every `checkIntervalMs` (so a new CA from the controller is noticed: the certificate is then no
 * longer signed by it). A renewed certificate or CA is published under new names and Open_vSwitch
 * other_config is pointed at them, which is what makes ovs-monitor-ipsec reconfigure strongSwan;
 * the previous copies are removed after that. A failed check is retried after `retryMs`.
 */
import type { Clock, Logger, TimerHandle, PartHealth } from '@switchyard/runtime';
import {
  certificateRenewAt, ensureIPsecCertificate, publishIPsecCertificate, removeStaleIPsecCopies, type IPsecCertificateFiles, type IPsecCertificateOptions,
} from './cert';

/** Default longest time between two checks: an hour. */
export const IPSEC_CERT_CHECK_INTERVAL_MS = 60 * 60 * 1000;
/** Default wait before a failed check is tried again. */
export const IPSEC_CERT_RETRY_MS = 30_000;
/** Shortest wait between checks (a certificate issued already inside its renewal window is not asked for again at once). */
const MIN_CHECK_MS = 60_000;

export interface IPsecCertificateKeeperOptions extends Omit<IPsecCertificateOptions, 'clock' | 'logger'> {
  /** Where other_config goes (the node's Open_vSwitch row). */
  vswitch: { setOpenVSwitchOtherConfig(config: Record<string, string>): Promise<unknown> };
  clock: Clock;
  logger: Logger;
  checkIntervalMs?: number;
  retryMs?: number;
}

export class IPsecCertificateKeeper {
  /** The published set other_config names. */
  files: IPsecCertificateFiles | undefined;
  /** When the current certificate is due for renewal (ms since the epoch). */
  renewAt: number | undefined;
  /** Certificates (or CAs) replaced while this agent ran. */
  rotations = 0;
  lastError: unknown;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(private readonly o: IPsecCertificateKeeperOptions) {}

  /** The first check; a failure fails the agent's start (ovs-monitor-ipsec cannot configure a peer without it). */
  async start(): Promise<void> {
    await this.check();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Resolves when a check in progress is done. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  health(): PartHealth {
    const until = this.renewAt !== undefined ? `, renewed from ${new Date(this.renewAt).toISOString()}` : '';
    if (this.lastError !== undefined) return { ok: false, detail: `IPsec certificate check failed (retried): ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: this.files !== undefined, detail: this.files ? `IPsec certificate ${this.files.certificate}${until}` : 'no IPsec certificate yet' };
  }

  private async check(): Promise<void> {
    const { clock, logger: log } = this.o;
    const o = this.o;
    const files = await ensureIPsecCertificate({
      kube: o.kube, nodeName: o.nodeName, dir: o.dir, caNamespace: o.caNamespace, clock, logger: log,
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}), ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}), ...(o.renewBefore !== undefined ? { renewBefore: o.renewBefore } : {}),
    });
    const published = publishIPsecCertificate(files, this.o.dir);
    if (JSON.stringify(published) !== JSON.stringify(this.files)) {
      await this.o.vswitch.setOpenVSwitchOtherConfig({ ...published });
      const previous = this.files;
      this.files = published;
      const removed = removeStaleIPsecCopies(this.o.dir, published);
      if (previous) {
        this.rotations++;
        log.info({ certificate: published.certificate, ca: published.ca_cert, previous: previous.certificate, removed }, 'IPsec certificate or CA replaced: other_config points at the new files (ovs-monitor-ipsec reconfigures strongSwan)');
      }
    }
    this.renewAt = certificateRenewAt(files.certificate, this.o.renewBefore);
    this.arm(Math.max(MIN_CHECK_MS, Math.min(this.renewAt - clock.now(), this.o.checkIntervalMs ?? IPSEC_CERT_CHECK_INTERVAL_MS)));
  }

  private arm(ms: number): void {
    this.timer?.cancel();
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.running = this.check()
        .then(() => void (this.lastError = undefined))
        .catch((e: unknown) => {
          this.lastError = e;
          this.o.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'IPsec certificate check failed; retried');
          this.arm(this.o.retryMs ?? IPSEC_CERT_RETRY_MS);
        })
        .finally(() => (this.running = undefined));
    }, ms);
  }
}
