/**
 * The lab's podman runtime (`switchyard-lab up --runtime podman`): the images `npm run images`
 * built, loaded into podman, and containers started from switchyard.yml's pod specs (pod-spec.ts
 * maps them). Every container is handled by the ID podman returned when the lab created it,
 * never by its name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { isAlive, processRef, run } from '@switchyard/testbed';
import type { InstallOptions } from '@switchyard/apis';
import { LabError } from './plan';

export type LabRuntime = 'process' | 'podman';
export const LAB_RUNTIMES: readonly LabRuntime[] = ['process', 'podman'];

export function parseRuntime(v: string): LabRuntime {
  if (!(LAB_RUNTIMES as readonly string[]).includes(v)) throw new LabError('INVALID_ARGUMENT', `--runtime must be one of ${LAB_RUNTIMES.join(', ')}, got ${v}`, v, '--runtime');
  return v as LabRuntime;
}

/** Where `npm run images` puts the archives (its default `--out`). */
export const imagesDir = (root: string): string => join(root, 'dist/images');

/** What the lab tells a user whose machine lacks podman or the images. */
const BUILD_HINT = 'run `npm run images` at the repository root first (it installs podman, runc, mmdebstrap and umoci, and builds dist/images/switchyard-{agent,controller}.oci.tar; a few minutes)';

/** Runs podman; throws a LabError with podman's own message on failure. */
export async function podman(args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const r = await run(['podman', ...args], { allowFailure: true, timeoutMs });
  if (r.code !== 0) throw new LabError('START_FAILED', `podman ${args.slice(0, 2).join(' ')} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join('\n')}`, args, 'podman');
  return r.stdout;
}

/** One image archive of dist/images: the reference it carries and its manifest digest (report.json of the build). */
export interface ImageArchive {
  reference: string;
  archive: string;
  manifestDigest: string;
  revision?: string;
}

interface BuildReport {
  revision?: string;
  images?: { reference: string; archive: string; manifestDigest: string }[];
}

/** The archives of the last `npm run images` (dist/images/report.json). */
export function builtImages(dir: string): ImageArchive[] {
  const file = join(dir, 'report.json');
  if (!existsSync(file)) throw new LabError('NOT_BUILT', `no container images: ${file} is missing; ${BUILD_HINT}`, file);
  const r = JSON.parse(readFileSync(file, 'utf8')) as BuildReport;
  return (r.images ?? []).map((i) => ({ reference: i.reference, archive: i.archive, manifestDigest: i.manifestDigest, ...(r.revision ? { revision: r.revision } : {}) }));
}

/** The digest podman holds for a reference, or undefined when it has no such image. */
async function loadedDigest(reference: string): Promise<string | undefined> {
  const r = await run(['podman', 'image', 'inspect', '--format', '{{.Digest}}', reference], { allowFailure: true });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/**
 * Makes podman hold each image `references` names, as the last build made it: loaded from its
 * archive unless podman already has that digest. Refuses, naming what is missing and the command
 * that makes it, when podman or an archive is not there. Returns what it did per image.
 */
export async function ensureImages(dir: string, references: readonly string[]): Promise<{ reference: string; loaded: boolean; revision?: string; ms: number }[]> {
  if ((await run(['podman', '--version'], { allowFailure: true })).code !== 0) throw new LabError('NOT_BUILT', `podman is not installed; ${BUILD_HINT}`, 'podman');
  const built = builtImages(dir);
  const out: { reference: string; loaded: boolean; revision?: string; ms: number }[] = [];
  for (const ref of references) {
    const img = built.find((b) => b.reference === ref);
    if (!img) throw new LabError('NOT_BUILT', `the manifest names image ${ref}, which the last build (${join(dir, 'report.json')}) did not make (it made ${built.map((b) => b.reference).join(', ') || 'nothing'}); ${BUILD_HINT}`, ref);
    if (!existsSync(img.archive)) throw new LabError('NOT_BUILT', `image archive ${img.archive} is missing; ${BUILD_HINT}`, img.archive);
    const t0 = Date.now();
    const have = await loadedDigest(ref);
    const loaded = have !== img.manifestDigest;
    if (loaded) await podman(['load', '--quiet', '--input', img.archive], 300_000);
    out.push({ reference: ref, loaded, ...(img.revision ? { revision: img.revision } : {}), ms: Date.now() - t0 });
  }
  return out;
}

/**
 * switchyard.yml for the lab's install options, from the generator itself (`npm run manifest -w
 * @switchyard/images`, tools/images/src/manifest.ts), parsed: what a user applies, not a second
 * description of it.
 */
export async function generatedManifest(root: string, install: InstallOptions): Promise<Record<string, unknown>[]> {
  const flags = ['--traffic-encap-mode', install.trafficEncapMode, '--encryption', install.encryption, ...(install.tunnelType ? ['--tunnel-type', install.tunnelType] : [])];
  const r = await run([process.execPath, '--import', 'tsx', join(root, 'tools/images/src/cli.ts'), 'manifest', ...flags], { allowFailure: true, timeoutMs: 120_000, env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tools/images/tsconfig.json') } });
  if (r.code !== 0) throw new LabError('START_FAILED', `generating switchyard.yml failed: ${r.stderr.trim()}`, flags, 'manifest');
  return YAML.parseAllDocuments(r.stdout).map((d) => d.toJSON() as Record<string, unknown>).filter((o) => o !== null);
}

/** A container the lab created: its ID (from `podman run`), the only handle the lab uses. */
export class PodmanContainer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The container's process as last seen (pid and start time), 0 when not running. */
  pid = 0;
  private pidStart = '';
  private constructor(readonly id: string, readonly name: string) {}

  /** `podman run --detach` with the given arguments (pod-spec.ts); resolves once podman returns the new container's ID. */
  static async run(args: readonly string[], name: string): Promise<PodmanContainer> {
    const id = (await podman(args)).trim().split('\n').pop() ?? '';
    if (!/^[0-9a-f]{64}$/.test(id)) throw new LabError('START_FAILED', `podman run for ${name} printed no container ID (got ${JSON.stringify(id)})`, id, 'podman run');
    return new PodmanContainer(id, name);
  }

  /** The container's state as podman has it: running, and the host pid of its process (0 when not running); remembers the process for {@link watch}. */
  async state(): Promise<{ running: boolean; pid: number; exitCode: number; startedAt: string }> {
    const r = await run(['podman', 'container', 'inspect', '--format', '{{.State.Running}} {{.State.Pid}} {{.State.ExitCode}} {{.State.StartedAt}}', this.id], { allowFailure: true });
    const [running, pid, code, ...at] = r.code === 0 ? r.stdout.trim().split(' ') : ['false', '0', '-1'];
    const st = { running: running === 'true', pid: running === 'true' ? Number(pid) : 0, exitCode: Number(code), startedAt: at.join(' ') };
    this.pid = st.pid;
    this.pidStart = (st.pid && processRef(st.pid)?.start) || '';
    return st;
  }

  /** `podman start` (the container exited: a kubelet restarts it, restartPolicy Always). */
  async start(): Promise<void> {
    await podman(['start', this.id]);
  }

  /**
   * Calls `onGone` each time the process last seen by {@link state} is gone (the container
   * exited, or was restarted from outside: `podman restart` stops and starts it under podman's
   * lock, which `podman wait` does not see), until {@link remove}; one call at a time. The check
   * is a read of /proc every `intervalMs`, no podman command. `onGone` decides whether to start
   * the container again, and calls {@link state} to see the new process.
   */
  watch(onGone: () => Promise<void>, intervalMs = 200): void {
    let busy = false;
    this.timer = setInterval(() => {
      if (busy || this.stopped) return;
      if (this.pid !== 0 && isAlive(this.pid, this.pidStart || undefined)) return;
      busy = true;
      void onGone()
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, intervalMs);
  }

  /** Stops watching, stops the container (SIGTERM, then SIGKILL after `graceSeconds`) and removes it. */
  async remove(graceSeconds = 10): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await run(['podman', 'stop', '--time', String(graceSeconds), this.id], { allowFailure: true, timeoutMs: (graceSeconds + 30) * 1000 });
    await run(['podman', 'rm', '--force', this.id], { allowFailure: true, timeoutMs: 60_000 });
  }
}

/** Removes containers by the IDs a lab recorded (what a crashed supervisor left); an ID podman no longer has is skipped. */
export async function removeContainers(ids: readonly string[]): Promise<void> {
  for (const id of ids) if (/^[0-9a-f]{64}$/.test(id)) await run(['podman', 'rm', '--force', '--time', '5', id], { allowFailure: true, timeoutMs: 60_000 });
}
