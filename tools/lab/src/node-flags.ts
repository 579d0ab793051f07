import { existsSync, readFileSync } from 'node:fs';

/**
 * The node flags of a bin entry's `#!/usr/bin/env -S node <flags>` line (none without one, or
 * without the file): the lab starts a program with its bin's flags, so the two cannot drift.
 */
export function binNodeFlags(bin: string): string[] {
  if (!existsSync(bin)) return [];
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  return first.startsWith('#!') ? first.split(/\s+/).filter((a) => a.startsWith('--')) : [];
}
