/**
 * The agent's cluster configuration, resolved by @kubernetes/client-node's KubeConfig in a
 * short-lived child (kube-config-resolve.ts) rather than in the agent: importing client-node pulls
 * in its whole generated API, 70-80 MiB of RSS the agent would carry for its life to read one file
 * (see docs/agent.md, "Agent memory"). The child's answer is the request options client-node
 * computed; the agent asks again when they may be stale (the token file changed, an exec credential aged).
 */
import { execFile } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { dirname, join } from 'node:path';
import type { KubeConfigSource } from '@switchyard/kube';
import { systemClock, type Clock } from '@switchyard/runtime';
import { AgentError } from './errors';
import { KUBE_CONFIG_TLS_FIELDS, type KubeConfigResolution } from './kube-config-resolution';

type Resolved = Exclude<KubeConfigResolution, { unsupported: string }>;

/** Runs the resolver for a kubeconfig path (undefined: client-node's defaults). */
export type KubeConfigResolver = (path: string | undefined) => Promise<KubeConfigResolution>;

const RESOLVER_NAME = 'kube-config-resolve.js';

/**
 * The resolver beside the running program (`dist/agent-cli.js` -> `dist/kube-config-resolve.js`),
 * or in dist/ when the program is the package's bin entry (`bin/switchyard-agent.js`, maybe linked).
 */
export function resolverProgram(program = process.argv[1] ?? ''): string {
  const dir = dirname(existsSync(program) ? realpathSync(program) : program);
  const candidates = [join(dir, RESOLVER_NAME), join(dir, '..', 'dist', RESOLVER_NAME)];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/**
 * Resolves in a child `node` (no V8 flags of the agent: it lives for one resolution) running
 * {@link resolverProgram}; the child inherits the environment ($KUBECONFIG, in-cluster variables).
 */
export const childResolver =
  (program = resolverProgram()): KubeConfigResolver =>
  (path) =>
    new Promise((resolve, reject) => {
      if (!existsSync(program)) {
        reject(new AgentError('INVALID_CONFIG', `kubeconfig resolver ${program} is not built`, program));
        return;
      }
      execFile(process.execPath, [program, ...(path ? [path] : [])], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
        let out: (KubeConfigResolution & { error?: undefined }) | { error: string } | undefined;
        try {
          out = JSON.parse(stdout.trim().split('\n').pop() ?? '') as typeof out;
        } catch {
          out = undefined;
        }
        if (out && 'error' in out && out.error !== undefined) reject(new AgentError('INVALID_CONFIG', `kubeconfig: ${out.error}`, path ?? '(defaults)', 'clientConnection.kubeconfig'));
        else if (err || !out) reject(new AgentError('INVALID_CONFIG', `kubeconfig resolver failed: ${err?.message ?? 'no answer'} ${stderr}`.trim(), path ?? '(defaults)', 'clientConnection.kubeconfig', { cause: err }));
        else resolve(out as KubeConfigResolution);
      });
    });

/** A file's identity for change detection (kubelet replaces a projected token through a symlink swap); '' when it cannot be read. */
function stamp(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return '';
  }
}

const decode = (v: string): string | Buffer => (v.startsWith('base64:') ? Buffer.from(v.slice(7), 'base64') : v);

/**
 * A {@link KubeConfigSource} over a resolver's answer: the request options client-node computed,
 * asked for again (once, however many requests wait) when `refreshMs` has passed or the token
 * file changed (checked with a stat at each request, where client-node re-reads it every 60 s).
 */
export class ResolvedKubeConfig implements KubeConfigSource {
  private refreshing: Promise<void> | undefined;
  private fetchedAt: number;
  /** The token file's identity (mtime, size, inode) when it was resolved. */
  private tokenStamp: string | undefined;

  private constructor(
    private current: Resolved,
    private readonly o: { path: string | undefined; resolver: KubeConfigResolver; clock: Clock },
  ) {
    this.fetchedAt = o.clock.now();
    this.tokenStamp = stamp(current.tokenFile);
  }

  /**
   * Resolves `path` (undefined: client-node's defaults). Undefined when the configuration cannot
   * leave client-node (the reason is passed to `onUnsupported`); throws when it does not resolve.
   */
  static async load(o: { path?: string | undefined; resolver?: KubeConfigResolver; clock?: Clock; onUnsupported?: (reason: string) => void }): Promise<ResolvedKubeConfig | undefined> {
    const resolver = o.resolver ?? childResolver();
    const r = await resolver(o.path);
    if ('unsupported' in r) {
      o.onUnsupported?.(r.unsupported);
      return undefined;
    }
    return new ResolvedKubeConfig(r, { path: o.path, resolver, clock: o.clock ?? systemClock });
  }

  getCurrentCluster(): { readonly server: string } {
    return { server: this.current.server };
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const { refreshMs, tokenFile } = this.current;
    if ((refreshMs !== null && this.o.clock.now() - this.fetchedAt >= refreshMs) || (tokenFile !== undefined && stamp(tokenFile) !== this.tokenStamp)) await this.refresh();
    const r = this.current;
    if (r.requestError !== undefined) throw new AgentError('INVALID_CONFIG', `kubeconfig: ${r.requestError}`, r.server, 'clientConnection.kubeconfig');
    const tls: https.AgentOptions = {};
    for (const f of KUBE_CONFIG_TLS_FIELDS) {
      const v = r.tls[f];
      if (v !== undefined) (tls as Record<string, unknown>)[f] = decode(v);
    }
    if (r.rejectUnauthorized !== undefined) tls.rejectUnauthorized = r.rejectUnauthorized;
    Object.assign(opts, tls);
    if (r.auth !== undefined) opts.auth = r.auth;
    opts.headers = { ...opts.headers, ...r.headers };
    // As client-node does: an agent per request carrying the TLS options; plain HTTP only with skipTLSVerify.
    opts.agent = r.server.startsWith('http:') ? new http.Agent() : new https.Agent(tls);
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.o
      .resolver(this.o.path)
      .then((r) => {
        if ('unsupported' in r) throw new AgentError('INVALID_CONFIG', `kubeconfig changed to one the agent cannot resolve out of process: ${r.unsupported}`, this.o.path ?? '(defaults)', 'clientConnection.kubeconfig');
        this.current = r;
        this.fetchedAt = this.o.clock.now();
        this.tokenStamp = stamp(r.tokenFile);
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }
}
