// Cross-process lock on `<dir>/lock` compatible with host-local's flock(2), held by a helper child.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { IpamError } from '../errors';

/** A mutual-exclusion lock shared with other processes. */
export interface DirLock {
  /** Resolves once this process holds the lock. */
  acquire(): Promise<void>;
  /** Gives the lock up. */
  release(): void;
  /** Stops any helper; the lock is released if held. */
  close(): Promise<void>;
}

/** Which helper takes the flock; see README "Locking". */
export type LockMechanism = 'perl-helper' | 'flock-command';

/**
 * A long-lived `perl` child opens the lock file once and toggles flock(2) LOCK_EX / LOCK_UN on
 * request: one pipe round trip per acquisition. perl-base is an Essential package on Debian
 * and Ubuntu, and perl's flock() is flock(2) there (d_flock), the very lock host-local takes.
 * The child exits when its stdin closes, so a parent killed with -9 never leaves the lock held.
 */
const PERL_HELPER = String.raw`
use Fcntl qw(:flock);
open(my $fh, '<', $ARGV[0]) or die "open $ARGV[0]: $!\n";
$| = 1;
print "ready\n";
while (my $l = <STDIN>) {
  if ($l =~ /^L/) { flock($fh, LOCK_EX) or die "flock: $!\n"; print "L\n"; }
  elsif ($l =~ /^U/) { flock($fh, LOCK_UN) or die "unlock: $!\n"; }
}
`;

/** Pipes of a child are sockets with ref/unref, though not typed so. */
const refable = (s: unknown): { ref?: () => void; unref?: () => void } | undefined => s as { ref?: () => void; unref?: () => void } | undefined;

let perlAvailable: boolean | undefined;
/** True when a perl with flock(2) can run here (checked once). */
export function perlHelperAvailable(): boolean {
  perlAvailable ??= spawnSync('perl', ['-e', 'use Fcntl qw(:flock); print "ok"'], { encoding: 'utf8' }).stdout === 'ok';
  return perlAvailable;
}

/** Lock held by a long-lived perl child; see {@link PERL_HELPER}. */
export class PerlHelperLock implements DirLock {
  private child: ChildProcessWithoutNullStreams | undefined;
  private ready: Promise<void> | undefined;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private buffered = '';
  private dead: Error | undefined;
  private held = false;

  constructor(private readonly lockPath: string) {}

  /** Process id of the helper, while one runs. */
  get helperPid(): number | undefined {
    return this.dead ? undefined : this.child?.pid;
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const child = spawn('perl', ['-e', PERL_HELPER, this.lockPath], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    this.ready = new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.buffered += d;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        this.buffered = this.buffered.slice(nl + 1);
        this.waiters.shift()?.resolve();
      }
    });
    const fail = (why: string): void => {
      this.dead ??= new IpamError('LOCK_FAILED', `lock helper for ${this.lockPath} ${why}${stderr ? `: ${stderr.trim()}` : ''}`, this.lockPath);
      for (const w of this.waiters.splice(0)) w.reject(this.dead);
    };
    child.on('error', (e) => fail(`failed: ${e.message}`));
    child.on('exit', (code, signal) => fail(`exited (${signal ?? code})`));
    child.stdin.on('error', () => undefined);
    return this.ready;
  }

  // The helper must not keep an idle process alive, but must while a caller waits on it.
  private busy(): void {
    const c = this.child;
    if (!c) return;
    c.ref();
    refable(c.stdout)?.ref?.();
  }
  private idle(): void {
    const c = this.child;
    if (!c) return;
    c.unref();
    for (const s of [c.stdout, c.stderr, c.stdin]) refable(s)?.unref?.();
  }

  async acquire(): Promise<void> {
    if (this.dead && !this.held) {
      // A helper that died between critical sections took nothing with it: start a new one.
      this.child = undefined;
      this.ready = undefined;
      this.dead = undefined;
      this.buffered = '';
    }
    const started = this.start();
    this.busy();
    try {
      await started;
      if (this.dead) throw this.dead;
      const got = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
      this.child?.stdin.write('L\n');
      await got;
      this.held = true;
    } finally {
      this.idle();
    }
  }

  /**
   * Gives the lock up. If the helper died while the lock was held, mutual exclusion was lost
   * for that critical section; the next {@link PerlHelperLock.acquire} starts a new helper.
   */
  release(): void {
    if (!this.held) return;
    this.held = false;
    if (!this.dead) this.child?.stdin.write('U\n');
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.ref();
    child.stdin.end();
    await exited;
  }
}

/**
 * Lock held by util-linux `flock <lockfile> -c 'echo locked; read _'`, one child per
 * acquisition: slower (a process spawn per lock), but needs only util-linux. The child
 * holds the lock until its stdin closes, including when this process dies.
 */
export class FlockCommandLock implements DirLock {
  private child: ChildProcessWithoutNullStreams | undefined;
  private exiting: Promise<void> | undefined;

  constructor(private readonly lockPath: string) {}

  acquire(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const child = spawn('flock', [this.lockPath, '-c', 'echo locked; read _'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('locked\n')) {
          this.child = child;
          resolve();
        }
      });
      child.stdin.on('error', () => undefined);
      child.on('error', (e) => reject(new IpamError('LOCK_FAILED', `flock ${this.lockPath}: ${e.message}`, this.lockPath)));
      child.on('exit', (code) => {
        if (this.child !== child) reject(new IpamError('LOCK_FAILED', `flock ${this.lockPath} exited ${code}: ${err.trim()}`, this.lockPath));
      });
    });
  }

  release(): void {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    this.exiting = child.exitCode === null && child.signalCode === null ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : undefined;
    child.stdin.end();
  }

  /** Releases, and resolves once the flock child is gone (the lock is free for others). */
  async close(): Promise<void> {
    this.release();
    await this.exiting;
  }
}

/** The lock of a mechanism; `perl-helper` falls back to `flock-command` when perl is missing. */
export function createDirLock(lockPath: string, mechanism: LockMechanism = 'perl-helper'): DirLock {
  return mechanism === 'perl-helper' && perlHelperAvailable() ? new PerlHelperLock(lockPath) : new FlockCommandLock(lockPath);
}
