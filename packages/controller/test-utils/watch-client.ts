// Agent-side client of the controlplane watch protocol (docs/controller.md), used by the tests
// and the benchmark: keeps a node's view (policies, address groups, applied-to groups) from the
// stream, applying patches, resuming from the last resourceVersion and resyncing on 410.
import https from 'node:https';
import type http from 'node:http';
import { FrameDecoder, decodeWatchEvent, type controlplane } from '@switchyard/apis';

export interface WatchClientOptions {
  /** https://host:port of the controller. */
  url: string;
  caPem: string;
  token?: string;
  nodeName: string;
  /** Paths resource: `watch` (all three, default) or one of the resources. */
  resource?: 'watch' | 'networkpolicies' | 'addressgroups' | 'appliedtogroups';
  agent?: https.Agent;
}

const memberKey = (m: controlplane.GroupMember): string => JSON.stringify([m.pod?.namespace, m.pod?.name, m.externalEntity?.namespace, m.externalEntity?.name, m.node?.name, [...m.ips].sort()]);

/** One agent's view, built from the stream. */
export class ControlplaneWatchClient {
  readonly policies = new Map<string, controlplane.NetworkPolicy>();
  readonly addressGroups = new Map<string, Map<string, controlplane.GroupMember>>();
  readonly appliedToGroups = new Map<string, Map<string, controlplane.GroupMember>>();
  /** Every event received, in order (BOOKMARKs included). */
  readonly received: controlplane.WatchEvent[] = [];
  resourceVersion = '';
  /** Modes of each connection (initial / resume) and 410s seen. */
  readonly modes: string[] = [];
  expiredCount = 0;
  bytesReceived = 0;
  synced = false;
  private res: http.IncomingMessage | undefined;
  private req: http.ClientRequest | undefined;
  private pendingInitial = false;
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  /** Called for every event after it is applied. */
  onEvent: ((e: controlplane.WatchEvent) => void) | undefined;

  constructor(readonly o: WatchClientOptions) {}

  /** Open the stream (resuming when a resourceVersion is known). Resolves with the HTTP status. */
  connect(): Promise<{ status: number; body?: string }> {
    const u = new URL(this.o.url);
    const q = new URLSearchParams({ watch: 'true', nodeName: this.o.nodeName });
    if (this.resourceVersion) q.set('resourceVersion', this.resourceVersion);
    const headers: Record<string, string> = {};
    if (this.o.token) headers.authorization = `Bearer ${this.o.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request(
        { hostname: u.hostname, port: u.port, path: `/apis/controlplane.switchyard.io/v1beta2/${this.o.resource ?? 'watch'}?${q.toString()}`, headers, ...(this.o.agent ? { agent: this.o.agent } : { ca: this.o.caPem }) },
        (res) => {
          if (res.statusCode !== 200) {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            return;
          }
          this.res = res;
          this.modes.push(String(res.headers['x-switchyard-watch-mode'] ?? ''));
          this.pendingInitial = res.headers['x-switchyard-watch-mode'] === 'initial';
          const dec = new FrameDecoder();
          res.on('data', (chunk: Buffer) => {
            this.bytesReceived += chunk.length;
            for (const f of dec.push(chunk)) this.apply(decodeWatchEvent(f));
          });
          res.on('error', () => undefined);
          resolve({ status: 200 });
        },
      );
      this.req = req;
      req.on('error', reject);
      req.end();
    });
  }

  /** Stop reading from the socket (a stuck agent). */
  pause(): void {
    this.res?.pause();
  }

  /** Drop the connection. */
  close(): void {
    this.res?.destroy();
    this.req?.destroy();
  }

  /** Resolves when the stream has ended or been cut. */
  ended(): Promise<void> {
    const res = this.res;
    if (!res || res.destroyed || res.complete) return Promise.resolve();
    return new Promise((r) => {
      res.once('close', () => r());
    });
  }

  private apply(e: controlplane.WatchEvent): void {
    this.received.push(e);
    if (e.type === 'ERROR' && e.kind === 'Status' && e.object.code === 410) {
      this.expiredCount++;
      this.resourceVersion = '';
      return;
    }
    if (this.pendingInitial) {
      // The initial state replaces whatever we had (first connect or resync).
      this.pendingInitial = false;
      this.policies.clear();
      this.addressGroups.clear();
      this.appliedToGroups.clear();
    }
    if (e.resourceVersion) this.resourceVersion = e.resourceVersion;
    const groups = (kind: string): Map<string, Map<string, controlplane.GroupMember>> => (kind.startsWith('Address') ? this.addressGroups : this.appliedToGroups);
    switch (e.kind) {
      case 'NetworkPolicy':
        if (e.type === 'DELETED') this.policies.delete(e.object.uid);
        else this.policies.set(e.object.uid, e.object);
        break;
      case 'AddressGroup':
      case 'AppliedToGroup':
        if (e.type === 'DELETED') groups(e.kind).delete(e.object.name);
        else groups(e.kind).set(e.object.name, new Map(e.object.groupMembers.map((m) => [memberKey(m), m])));
        break;
      case 'AddressGroupPatch':
      case 'AppliedToGroupPatch': {
        const g = groups(e.kind).get(e.object.name);
        if (!g) throw new Error(`patch for unknown group ${e.object.name}`);
        for (const m of e.object.removedGroupMembers) g.delete(memberKey(m));
        for (const m of e.object.addedGroupMembers) g.set(memberKey(m), m);
        break;
      }
      case 'Bookmark':
        this.synced = true;
        break;
      default:
        break;
    }
    this.onEvent?.(e);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred()) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves when `pred` holds (checked after every event), rejects after `timeoutMs`. */
  waitFor(pred: () => boolean, timeoutMs = 10000, what = 'condition'): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${what} on ${this.o.nodeName}`)), timeoutMs);
      this.waiters.push({ pred, resolve: () => { clearTimeout(t); resolve(); } });
    });
  }

  /** Names of members of a group (pods as ns/name). */
  members(kind: 'address' | 'applied', name: string): string[] {
    const g = (kind === 'address' ? this.addressGroups : this.appliedToGroups).get(name);
    return [...(g?.values() ?? [])].map((m) => (m.pod ? `${m.pod.namespace}/${m.pod.name}` : m.externalEntity ? `ee:${m.externalEntity.namespace}/${m.externalEntity.name}` : m.ips.join(','))).sort();
  }
}
