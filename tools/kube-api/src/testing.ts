/**
 * @switchyard/kube-api/testing: the API server as other packages' tests start it, with the real
 * kubectl and a loaded kubeconfig for the admin, written once for every suite that needs a cluster.
 * @packageDocumentation
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApi, type KubeApiOptions, type KubeApiServer, type KubeObject } from './index';

/** How a kubectl run ended. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * kubectl's discovery cache for a kubeconfig: a directory beside it, so it goes when the
 * kubeconfig's directory does (the API server removes its own on stop). A directory per process
 * in /tmp, removed on the process's `exit` event, stayed behind: jest ends its workers without
 * that event (96 after three CI runs here), and one per Kubectl before that left 1,097 in a day.
 * Beside the kubeconfig, a cache never outlives the server it describes, so a later server on the
 * same port cannot be read from it either.
 */
function kubectlCacheDir(kubeconfig: string): string {
  return join(dirname(kubeconfig), '.kubectl-cache');
}

/**
 * The real kubectl against a kubeconfig, run asynchronously (the API server runs in the test's
 * own process), with a cache directory of this process and HOME of its own.
 */
export class Kubectl {
  readonly env: NodeJS.ProcessEnv;

  constructor(kubeconfig: string) {
    this.env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: kubectlCacheDir(kubeconfig), HOME: tmpdir() };
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
