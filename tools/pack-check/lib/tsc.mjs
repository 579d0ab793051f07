// tsc -p on a scratch project, its diagnostics parsed with the root files that reached each one.
import { execFile as execFileCb } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);

/**
 * Runs tsc -p on a project; returns its diagnostics (file relative to the project), each with the
 * root files whose imports reached its file (from --explainFiles), so an error in a dependency's
 * declarations is charged to the package that brought it in.
 */
export async function tsc(cwd, project, bin = join(cwd, 'node_modules/.bin/tsc')) {
  let out = '';
  try {
    ({ stdout: out } = await execFile(bin, ['-p', project, '--pretty', 'false', '--explainFiles'], { cwd, maxBuffer: 256 << 20 }));
  } catch (e) {
    out = `${e.stdout ?? ''}`;
    if (!out.trim()) throw new Error(`tsc failed to start in ${cwd}: ${e.stderr ?? e.message}`);
  }
  const { diags, importers } = parseExplainedOutput(out);
  for (const d of diags) d.roots = rootsOf(d.file, importers);
  return diags;
}

/** Diagnostics, and for each file the files that import it, from `tsc --pretty false --explainFiles`. */
function parseExplainedOutput(out) {
  const diags = [];
  const importers = new Map();
  let current;
  for (const line of out.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (m) {
      diags.push({ file: m[1], line: Number(m[2]), code: m[4], text: m[5] });
      current = undefined;
    } else if (/^\S/.test(line)) {
      current = line.trim();
    } else if (current) {
      const via = /from file '([^']+)'/.exec(line);
      if (via) importers.set(current, [...(importers.get(current) ?? []), via[1]]);
      else if (diags.length && !/^\s+(Root file|Matched by|Library|Entry point|Type library|File is)/.test(line) && line.trim()) {
        diags[diags.length - 1].text += ` ${line.trim()}`;
      }
    }
  }
  return { diags, importers };
}

/** The files nothing imports that reach `file` through importers. */
function rootsOf(file, importers) {
  const roots = new Set();
  const seen = new Set();
  const todo = [file];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const up = importers.get(f) ?? [];
    if (up.length === 0) roots.add(f);
    todo.push(...up);
  }
  return [...roots];
}
