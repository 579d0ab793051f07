// Drive the real kubectl against a server (asynchronously: the server runs in this process).

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import type { KubeApiServer } from '../../src/index';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  readonly env: NodeJS.ProcessEnv;

  constructor(server: Pick<KubeApiServer, 'kubeconfigPath'>, kubeconfig = server.kubeconfigPath) {
    this.env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: mkdtempSync(join(tmpdir(), 'kubectl-cache-')), HOME: tmpdir() };
  }

  run(args: string[], stdin?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile('kubectl', args, { env: this.env, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  }

  /** Run and fail the test with kubectl's stderr when it exits non-zero. */
  async ok(args: string[], stdin?: string): Promise<string> {
    const r = await this.run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  }

  async json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '-o', 'json'])) as T;
  }

  spawn(args: string[]): { child: ChildProcess; output: () => string } {
    const child = spawn('kubectl', args, { env: this.env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return { child, output: () => out };
  }
}

/** Every API object in the seed fixtures, with the file it came from. */
export function seedDocs(): { file: string; text: string; docs: Record<string, unknown>[] }[] {
  const dir = join(__dirname, '..', 'fixtures', 'seeds');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const docs = YAML.parseAllDocuments(text)
        .map((d) => d.toJSON() as Record<string, unknown> | null)
        .filter((d): d is Record<string, unknown> => d !== null);
      return { file, text, docs };
    });
}

/** Every field of `want` is present with the same value in `got` (extra fields allowed). */
export function missingFields(want: unknown, got: unknown, path = ''): string[] {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return [path || '.'];
    return Object.entries(want).flatMap(([k, v]) => missingFields(v, (got as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return [path];
    return want.flatMap((v, i) => missingFields(v, got[i], `${path}[${i}]`));
  }
  // YAML numbers like 9000.0 read back as 9000: compare as JSON values.
  return JSON.stringify(want) === JSON.stringify(got) ? [] : [`${path}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`];
}
