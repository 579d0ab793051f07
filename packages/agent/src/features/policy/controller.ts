/**
 * NetworkPolicy realization on the node: the controlplane view (kept current by
 * {@link ControlplaneClient}, persisted to disk so policies apply at start even when the controller
 * is unreachable) goes into the pipeline's node state; flows follow as diffs in bundles; each
 * realized policy generation is reported back to the controller.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { FlowSync } from '../../flow-sync';
import { RECONCILE_RETRY, Reconciler, silentLogger, systemClock, type BackoffPolicy, type Clock, type Logger } from '@switchyard/runtime';
import { ControlplaneClient, PolicyView, type ControlplaneClientOptions, type PolicyViewData } from '@switchyard/controlplane-client';

/** Reads a persisted view; an absent or unreadable file gives an empty, unsynced view. */
export function loadPolicyView(file: string, log: Logger = silentLogger): PolicyView {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new PolicyView();
  }
  try {
    return PolicyView.fromData(JSON.parse(text) as PolicyViewData);
  } catch (e) {
    log.warn({ err: e, file }, 'policy cache unreadable: starting without it');
    return new PolicyView();
  }
}

/**
 * Writes the view durably (temporary file, fsync, rename, directory fsync), so a crash or a power loss leaves the
 * previous cache or this one, whole; never an empty or half file.
 */
export function savePolicyView(file: string, view: PolicyView): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileDurableSync(file, JSON.stringify(view.toData()), { mode: 0o600 });
}

export interface NetworkPolicyControllerOptions {
  nodeName: string;
  flows: FlowSync;
  view: PolicyView;
  cacheFile: string;
  /** Without it the agent enforces only the cached view (no controller configured). */
  controlplane?: Omit<ControlplaneClientOptions, 'nodeName' | 'logger' | 'view' | 'onChange'>;
  logger?: Logger;
  /** Timers of the retry after a failed realization (tests pass a manual clock). */
  clock?: Clock;
}

/**
 * Retry delays after a failed realization (the switch refused or was away): runtime's reconcile
 * default, 0.5 s doubling to 10 s, up to 20% shorter at random so agents do not retry in step.
 */
export const REALIZE_RETRY: BackoffPolicy = RECONCILE_RETRY;

/** Drives flows and status from the controlplane view. */
export class NetworkPolicyController {
  readonly view: PolicyView;
  readonly client: ControlplaneClient | undefined;
  private readonly log: Logger;
  private readonly reported = new Map<string, number>();
  /**
   * One realization at a time of the latest view; a failed one (the switch refused or was away)
   * is retried after a backoff: nothing else may come to trigger it (the view is complete).
   */
  private readonly reconciler: Reconciler;
  /**
   * Sends the realized policies' status reports the controller has not acknowledged, retried after
   * a backoff until every one is: a report refused once (the controller restarting, its token or
   * access review failing) would otherwise wait for the next stream or realization, and the
   * policy would stay Realizing meanwhile (a CI chaos run saw 90 s of it after an agent restart).
   */
  private readonly reporter: Reconciler;
  /** Syncs done (observable for tests and agentinfo). */
  syncs = 0;

  constructor(private readonly o: NetworkPolicyControllerOptions) {
    this.view = o.view;
    this.log = o.logger ?? silentLogger;
    this.reconciler = new Reconciler(() => this.realize(), {
      retry: REALIZE_RETRY,
      clock: o.clock ?? systemClock,
      onError: (e, retryInMs) => this.log.error({ err: e, retryInMs }, 'policy realization failed'),
    });
    this.reporter = new Reconciler(() => this.reportUnacknowledged(), {
      retry: REALIZE_RETRY,
      clock: o.clock ?? systemClock,
      onError: (e, retryInMs) => this.log.warn({ err: e, retryInMs }, 'status reports not acknowledged; retrying'),
    });
    this.client = o.controlplane
      ? new ControlplaneClient({ ...o.controlplane, nodeName: o.nodeName, logger: this.log, view: this.view, onChange: () => this.reconciler.schedule(), onStream: (mode) => this.onStream(mode) })
      : undefined;
  }

  /** The failure of the last realization, until one succeeds. */
  get lastError(): unknown {
    return this.reconciler.lastError;
  }

  /** Puts the current view into the node state without syncing (used before the initial sync). */
  primeState(): void {
    this.o.flows.prime(this.view.snapshot());
  }

  start(): void {
    this.client?.start();
  }

  async stop(): Promise<void> {
    // No realization starts from here on (a pending retry is cancelled); a running one is awaited.
    const realizing = this.reconciler.stop();
    const reporting = this.reporter.stop();
    await this.client?.stop();
    await Promise.all([realizing, reporting]);
  }

  /** Realizes the current view again and resolves when that is done (successfully or not). */
  async resync(): Promise<void> {
    this.reconciler.schedule();
    await this.idle();
  }

  /** Resolves when everything scheduled so far is realized (tests). */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  /** The failure of the last round of status reports, until one round is acknowledged in full. */
  get lastReportError(): unknown {
    return this.reporter.lastError;
  }

  /**
   * A stream opened. An `initial` one comes from a controller that does not know this node (it
   * restarted): what was reported before is forgotten there, so every realized policy is reported
   * again. Either way, reports that failed while the controller was away are sent now.
   */
  private onStream(mode: 'initial' | 'resume'): void {
    if (mode === 'initial') this.reported.clear();
    this.reporter.schedule();
  }

  /** One round of the reports the controller has not acknowledged; throws (to be retried) if any failed. */
  private async reportUnacknowledged(): Promise<void> {
    const failed = await this.report(this.realized.filter((p) => this.reported.get(p.uid) !== p.generation));
    if (failed > 0) throw new Error(`${failed} status report(s) not acknowledged by the controller`);
  }

  /** The policies (uid, generation) the last successful realization installed. */
  private realized: { uid: string; generation: number }[] = [];

  /** Realizes the view as it is now; a failure is reported to the controller, then thrown (to be retried). */
  private async realize(): Promise<void> {
    const snap = this.view.snapshot();
    try {
      const stats = await this.o.flows.set(snap);
      this.syncs++;
      this.log.info({ ...this.view.counts, ...stats }, 'policies realized');
    } catch (e) {
      await this.report(snap.policies.map((p) => ({ uid: p.uid, generation: p.generation })), e);
      throw e;
    }
    try {
      savePolicyView(this.o.cacheFile, this.view);
    } catch (e) {
      this.log.warn({ err: e, file: this.o.cacheFile }, 'policy cache not written');
    }
    this.realized = snap.policies.map((p) => ({ uid: p.uid, generation: p.generation }));
    if ((await this.report(this.realized.filter((p) => this.reported.get(p.uid) !== p.generation))) > 0) this.reporter.schedule();
  }

  /** Sends one report per item; how many failed. */
  private async report(items: { uid: string; generation: number }[], failure?: unknown): Promise<number> {
    if (!this.client) return 0;
    let failed = 0;
    await Promise.all(
      items.map(async ({ uid, generation }) => {
        try {
          await this.client!.reportStatus({
            name: uid,
            nodes: [
              {
                nodeName: this.o.nodeName,
                generation,
                ...(failure ? { realizationFailure: true, message: failure instanceof Error ? failure.message : String(failure) } : {}),
              },
            ],
          });
          // A failure replaces what the controller held for this generation: the next success must be reported again.
          if (failure) this.reported.delete(uid);
          else this.reported.set(uid, generation);
        } catch (e) {
          failed++;
          this.log.warn({ err: e, uid }, 'status report failed');
        }
      }),
    );
    return failed;
  }
}
