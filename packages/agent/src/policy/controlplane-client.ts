/**
 * Client of the controller's per-node controlplane watch (docs/controller.md): one HTTPS stream of
 * length-delimited protobuf events, resumed from the last resourceVersion after a disconnect,
 * restarted from scratch after `410 Expired`, with capped exponential backoff between attempts.
 * Also posts realization status.
 */
import https from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { FrameDecoder, decodeWatchEvent, type controlplane } from '@switchyard/apis';
import { silentLogger, type Logger } from '@switchyard/runtime';
import type { PolicyView } from './view';

export const CONTROLPLANE_BASE = '/apis/controlplane.switchyard.io/v1beta2';

export interface ControlplaneClientOptions {
  /** `https://host:port` of the controller. */
  url: string;
  nodeName: string;
  /** CA of the controller's serving certificate (ConfigMap kube-system/switchyard-ca). */
  caPem?: string;
  /** Bearer token, or a function re-read at each connection (a projected token file rotates). */
  token?: string | (() => string);
  backoff?: { initialMs?: number; maxMs?: number };
  /** Injectable wait (tests). */
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

/** Keeps a {@link PolicyView} in step with the controller. */
export class ControlplaneClient {
  private stopped = true;
  private req: ClientRequest | undefined;
  private res: IncomingMessage | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly log: Logger;
  /** Whether a stream is open now. */
  connected = false;
  /** Streams opened, by mode; 410s seen (observable for tests and agentinfo). */
  readonly stats = { initial: 0, resume: 0, expired: 0, failures: 0 };

  constructor(
    private readonly o: ControlplaneClientOptions,
    private readonly view: PolicyView,
    private readonly onChange: () => void,
  ) {
    this.log = o.logger ?? silentLogger;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.res?.destroy();
    this.req?.destroy();
    this.wake?.();
    await this.loop;
  }

  private token(): string | undefined {
    return typeof this.o.token === 'function' ? this.o.token() : this.o.token;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      let progressed = false;
      try {
        progressed = await this.streamOnce();
      } catch (e) {
        this.stats.failures++;
        this.log.warn({ err: e, attempt }, 'controlplane watch failed');
      }
      this.connected = false;
      if (this.stopped) break;
      attempt = progressed ? 0 : attempt + 1;
      if (attempt === 0) continue; // a stream that worked (or expired): reconnect at once
      const initial = this.o.backoff?.initialMs ?? 500;
      const delay = Math.min(this.o.backoff?.maxMs ?? 30_000, initial * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void (this.o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(delay).then(resolve);
      });
    }
  }

  /** One watch stream; resolves true when it delivered anything (reconnect without backoff). */
  private streamOnce(): Promise<boolean> {
    const u = new URL(this.o.url);
    const q = new URLSearchParams({ nodeName: this.o.nodeName });
    if (this.view.resourceVersion) q.set('resourceVersion', this.view.resourceVersion);
    const token = this.token();
    return new Promise<boolean>((resolve, reject) => {
      let progressed = false;
      const req = https.request(
        {
          hostname: u.hostname,
          port: u.port || 443,
          path: `${CONTROLPLANE_BASE}/watch?${q.toString()}`,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          ...(this.o.caPem ? { ca: this.o.caPem } : {}),
        },
        (res) => {
          this.res = res;
          if (res.statusCode !== 200) {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => reject(new Error(`controlplane watch: HTTP ${res.statusCode ?? 0}: ${body.slice(0, 300)}`)));
            return;
          }
          const mode = res.headers['x-switchyard-watch-mode'] === 'resume' ? 'resume' : 'initial';
          this.stats[mode]++;
          this.view.beginStream(mode);
          this.connected = true;
          this.log.info({ mode, resourceVersion: this.view.resourceVersion }, 'controlplane watch open');
          const decoder = new FrameDecoder();
          res.on('data', (chunk: Buffer) => {
            try {
              for (const frame of decoder.push(chunk)) {
                const outcome = this.view.apply(decodeWatchEvent(frame));
                progressed = true;
                if (outcome === 'changed') this.onChange();
                if (outcome === 'expired') {
                  this.stats.expired++;
                  this.log.info({}, 'controlplane resourceVersion expired: resyncing');
                  res.destroy();
                  return;
                }
              }
            } catch (e) {
              res.destroy();
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          });
          res.on('error', () => undefined); // the close below settles the promise
          res.on('close', () => resolve(progressed));
        },
      );
      this.req = req;
      req.on('error', reject);
      req.end();
    });
  }

  /** Posts a realization status for one policy (uid) on this node. */
  reportStatus(status: controlplane.NetworkPolicyStatus): Promise<void> {
    const u = new URL(this.o.url);
    const token = this.token();
    const body = JSON.stringify(status);
    return new Promise<void>((resolve, reject) => {
      const req = https.request(
        {
          hostname: u.hostname,
          port: u.port || 443,
          method: 'POST',
          path: `${CONTROLPLANE_BASE}/networkpolicies/${encodeURIComponent(status.name)}/status`,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          ...(this.o.caPem ? { ca: this.o.caPem } : {}),
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 201 || res.statusCode === 200 ? resolve() : reject(new Error(`status report for ${status.name}: HTTP ${res.statusCode ?? 0}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
