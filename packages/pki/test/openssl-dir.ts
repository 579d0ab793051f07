// A suite's scratch directory for openssl, the independent verifier of the pki tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files and openssl runs in a directory made before the suite's tests and removed after them. */
export interface OpensslDir {
  /** Path of `name` in the directory. */
  path(name: string): string;
  /** Writes `text` to `name` in the directory; returns its path. */
  file(name: string, text: string): string;
  /** Runs openssl in the directory; returns its stdout (throws on a non-zero exit). */
  openssl(...args: string[]): string;
}

/** Registers the hooks that make and remove the directory (named `<prefix>XXXXXX` in the temp dir). */
export function opensslDir(prefix: string): OpensslDir {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string): string => join(dir, name);
  return {
    path,
    file(name, text) {
      writeFileSync(path(name), text);
      return path(name);
    },
    openssl: (...args) => execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  };
}
