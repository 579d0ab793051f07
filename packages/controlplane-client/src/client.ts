/**
 * Client of the controller's per-node controlplane watch (docs/controller.md): one HTTPS stream of
 * length-delimited protobuf events kept in a {@link PolicyView}, resumed from the last
 * resourceVersion after a disconnect, restarted from scratch after `410 Expired`, with capped
 * exponential backoff between attempts. Also posts realization status.
 */
import https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { FrameDecoder, decodeWatchEvent, type controlplane } from '@switchyard/apis';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { PolicyView, type ApplyOutcome } from './view';

export const CONTROLPLANE_BASE = '/apis/controlplane.switchyard.io/v1beta2';

/**
 * One TLS context per CA for every connection of the process. Given only `ca`, Node builds a new
 * context per connection (parsing the PEM into a fresh certificate store: about 1 ms of CPU, as
 * much as the rest of the client's side of a handshake), and an agent connects for its watch and
 * for each status report. `ca` stays in the request options beside the context, so an
 * `https.Agent`'s pool still keys sockets by their CA.
 */
const contexts = new Map<string, SecureContext>();
function tlsOptions(caPem: string | undefined): { ca?: string; secureContext?: SecureContext } {
  if (!caPem) return {};
  let secureContext = contexts.get(caPem);
  if (!secureContext) {
    // A rotated CA replaces the old one: keep the few most recent.
    if (contexts.size >= 4) contexts.delete(contexts.keys().next().value as string);
    contexts.set(caPem, (secureContext = createSecureContext({ ca: caPem })));
  }
  return { ca: caPem, secureContext };
}

/** Which stream to open: `watch` carries the three policy resources in one ordered stream; the others one each (`egressgroups`: the Egress groups, only on their own stream). */
export type WatchResource = 'watch' | 'networkpolicies' | 'addressgroups' | 'appliedtogroups' | 'egressgroups';

export interface ControlplaneClientOptions {
  /** `https://host:port` of the controller. */
  url: string;
  nodeName: string;
  /** CA of the controller's serving certificate (ConfigMap kube-system/switchyard-ca). */
  caPem?: string;
  /**
   * The name the controller's certificate must carry, when `url` names it otherwise: an agent in a
   * pod reaches the controller at its Service's ClusterIP (the `SWITCHYARD_SERVICE_HOST` kubelet
   * injects), and the certificate names the Service's DNS names (`switchyard.kube-system.svc`), as
   * Antrea's agent checks `antrea.kube-system.svc`. Sent as SNI too. Default: the URL's host.
   */
  serverName?: string;
  /** Bearer token, or a function re-read at each connection (a projected token file rotates). */
  token?: string | (() => string);
  /** An HTTPS agent for the connections (many clients in one process can share one). */
  agent?: https.Agent;
  /** Default `watch`. */
  resource?: WatchResource;
  /** The view to keep in step (e.g. one restored from disk); a new empty one by default. */
  view?: PolicyView;
  /** Called after an event changed the view. */
  onChange?: () => void;
  /**
   * Called when a stream opens: `initial` (a controller instance that does not know this client,
   * e.g. one that restarted: what was reported to the old one is lost) or `resume`.
   */
  onStream?: (mode: 'initial' | 'resume') => void;
  /** Called with every decoded event after the view applied it. */
  onEvent?: (event: controlplane.WatchEvent, outcome: ApplyOutcome) => void;
  backoff?: { initialMs?: number; maxMs?: number };
  /** Injectable wait (tests). */
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

/** How a stream opened: the HTTP status, and for 200 the mode, else the error body (a JSON Status). */
export interface WatchOpening {
  status: number;
  mode?: 'initial' | 'resume';
  body?: string;
}

interface Stream {
  req: ClientRequest;
  res?: IncomingMessage;
  progressed: boolean;
  error?: Error;
  closed: Promise<void>;
}

/** Keeps a {@link PolicyView} in step with the controller. */
export class ControlplaneClient {
  readonly view: PolicyView;
  readonly nodeName: string;
  private stopped = true;
  private stream: Stream | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  private readonly log: Logger;
  /** Whether a stream is open now. */
  connected = false;
  /** Bytes received on watch streams. */
  bytesReceived = 0;
  /** Streams opened, by mode; 410s seen; failed attempts (observable for tests and agentinfo). */
  readonly stats = { initial: 0, resume: 0, expired: 0, failures: 0 };

  constructor(private readonly o: ControlplaneClientOptions) {
    this.view = o.view ?? new PolicyView();
    this.nodeName = o.nodeName;
    this.log = o.logger ?? silentLogger;
  }

  /** Keep a stream open until {@link stop}: reconnect (resume or resync) with backoff. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.close();
    this.wake?.();
    await this.loop;
  }

  /**
   * Open one stream (resuming when the view has a resourceVersion) and resolve once the response
   * headers are in; the stream then feeds the view until it ends ({@link ended}) or is closed.
   * An HTTP error resolves with its status and body. For callers that drive connections themselves
   * (tests, tools); {@link start} does it with reconnects.
   */
  open(): Promise<WatchOpening> {
    const u = new URL(this.o.url);
    const resource = this.o.resource ?? 'watch';
    const q = new URLSearchParams(resource === 'watch' ? { nodeName: this.nodeName } : { watch: 'true', nodeName: this.nodeName });
    if (this.view.resourceVersion) q.set('resourceVersion', this.view.resourceVersion);
    const token = this.token();
    let closed: () => void = () => undefined;
    return new Promise<WatchOpening>((resolve, reject) => {
      const req = https.request(
        {
          hostname: u.hostname,
          port: u.port || 443,
          path: `${CONTROLPLANE_BASE}/${resource}?${q.toString()}`,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          ...tlsOptions(this.o.caPem),
          ...(this.o.serverName ? { servername: this.o.serverName } : {}),
          ...(this.o.agent ? { agent: this.o.agent } : {}),
        },
        (res) => {
          stream.res = res;
          res.on('close', () => {
            this.connected = false;
            closed();
          });
          if (res.statusCode !== 200) {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            return;
          }
          const mode = res.headers['x-switchyard-watch-mode'] === 'resume' ? 'resume' : 'initial';
          this.stats[mode]++;
          this.view.beginStream(mode);
          this.connected = true;
          this.log.info({ mode, resourceVersion: this.view.resourceVersion }, 'controlplane watch open');
          this.o.onStream?.(mode);
          const decoder = new FrameDecoder();
          res.on('data', (chunk: Buffer) => {
            this.bytesReceived += chunk.length;
            try {
              for (const frame of decoder.push(chunk)) {
                if (this.apply(decodeWatchEvent(frame), stream) === 'expired') {
                  res.destroy();
                  return;
                }
              }
            } catch (e) {
              stream.error = e instanceof Error ? e : new Error(String(e));
              res.destroy();
            }
          });
          res.on('error', () => undefined); // 'close' follows
          resolve({ status: 200, mode });
        },
      );
      const stream: Stream = { req, progressed: false, closed: new Promise<void>((r) => (closed = r)) };
      this.stream = stream;
      req.on('error', (e) => {
        stream.error ??= e;
        closed();
        reject(e);
      });
      req.end();
    });
  }

  /** Resolves when the current stream has ended or been cut. */
  ended(): Promise<void> {
    return this.stream?.closed ?? Promise.resolve();
  }

  /** Drop the current connection (a running {@link start} loop reconnects and resumes). */
  close(): void {
    this.stream?.res?.destroy();
    this.stream?.req.destroy();
  }

  /** Stop reading from the socket (a stuck agent; the controller's bound on queued bytes then applies). */
  pause(): void {
    this.stream?.res?.pause();
  }

  /** Resolves when `pred` holds (checked now and after every event), rejects after `timeoutMs`. */
  waitFor(pred: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        pred,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} on ${this.nodeName}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private apply(event: controlplane.WatchEvent, stream: Stream): ApplyOutcome {
    const outcome = this.view.apply(event);
    stream.progressed = true;
    if (outcome === 'changed') this.o.onChange?.();
    if (outcome === 'expired') {
      this.stats.expired++;
      this.log.info({}, 'controlplane resourceVersion expired: resyncing');
    }
    this.o.onEvent?.(event, outcome);
    if (this.waiters.length > 0) {
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred()) return true;
        w.resolve();
        return false;
      });
    }
    return outcome;
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
  private async streamOnce(): Promise<boolean> {
    const opening = await this.open();
    if (opening.status !== 200) throw new Error(`controlplane watch: HTTP ${opening.status}: ${(opening.body ?? '').slice(0, 300)}`);
    const stream = this.stream as Stream;
    await stream.closed;
    if (stream.error) throw stream.error;
    return stream.progressed;
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
          ...tlsOptions(this.o.caPem),
          ...(this.o.serverName ? { servername: this.o.serverName } : {}),
          ...(this.o.agent ? { agent: this.o.agent } : {}),
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
