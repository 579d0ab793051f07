/**
 * @switchyard/kube-api/testing: the API server as other packages' tests start it, with the real
 * kubectl and a loaded kubeconfig for the admin, written once for every suite that needs a cluster.
 * @packageDocumentation
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApi, type KubeApiOptions, type KubeApiServer, type KubeObject } from './index';

/** How a kubectl run ended. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

let cacheDir: string | undefined;
/**
 * kubectl's discovery cache for this process: one directory (kubectl keys its entries by server
 * address, so API servers on other ports do not mix), removed when the process exits. One per
 * Kubectl left a directory in /tmp per test file and run (1,097 of them after a day of CI here).
 */
function kubectlCacheDir(): string {
  if (cacheDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    cacheDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return cacheDir;
}

/**
 * The real kubectl against a kubeconfig, run asynchronously (the API server runs in the test's
 * own process), with a cache directory of this process and HOME of its own.
 */
export class Kubectl {
  readonly env: NodeJS.ProcessEnv;

  constructor(kubeconfig: string) {
    this.env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: kubectlCacheDir(), HOME: tmpdir() };
  }

  run(args: string[], stdin?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile('kubectl', args, { env: this.env, maxBuffer: 32 << 20 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  }

  /** Runs kubectl; rejects with its stderr when it exits non-zero. */
  async ok(args: string[], stdin?: string): Promise<string> {
    const r = await this.run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  }

  /** `kubectl apply` of the objects, as one List. */
  apply(...docs: unknown[]): Promise<string> {
    // JSON, not YAML: kubectl reads YAML 1.1, where a bare `y` is a boolean.
    return this.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }));
  }

  async json<T = KubeObject>(args: string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '-o', 'json'])) as T;
  }

  /** The object, or undefined when kubectl says NotFound. */
  async maybe<T = KubeObject>(args: string[]): Promise<T | undefined> {
    try {
      return await this.json<T>(args);
    } catch (e) {
      if (/NotFound|not found/.test((e as Error).message)) return undefined;
      throw e;
    }
  }

  /** A long-running kubectl (a watch), with its output so far. */
  spawn(args: string[]): { child: ChildProcess; output: () => string } {
    const child = spawn('kubectl', args, { env: this.env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return { child, output: () => out };
  }
}

/** A started API server with the admin's kubectl and kubeconfig. */
export interface TestKubeApi {
  api: KubeApiServer;
  /** kubectl as the admin. */
  kubectl: Kubectl;
  /** The admin's kubeconfig, loaded (what @switchyard/kube's KubeConfigClient and informers take). */
  kubeConfig: KubeConfig;
}

/** Starts an API server (HTTPS unless `options.tls` is false) for a test. Stop it with `api.stop()`. */
export async function startTestKubeApi(options: KubeApiOptions = {}): Promise<TestKubeApi> {
  const api = await startKubeApi(options);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.kubeconfigPath);
  return { api, kubectl: new Kubectl(api.kubeconfigPath), kubeConfig };
}
