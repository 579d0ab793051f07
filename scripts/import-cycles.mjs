#!/usr/bin/env node
// Import cycles inside each package's src/, type-only imports included (a .d.ts keeps them, and a
// type circle is the same knot for a reader as a runtime one). Prints each cycle; exits 1 when
// there is one. Usage: node scripts/import-cycles.mjs [package dir ...] (default: every package
// and tool of the workspace).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every .ts file under `dir`, skipping declaration files. */
function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The file a relative specifier names, if it is a source file. */
function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec.replace(/\.(m|c)?js$/, ''));
  for (const c of [base, `${base}.ts`, `${base}.mts`, `${base}.cts`, join(base, 'index.ts')]) if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

/** Relative imports of every file under `src` (import, import type, export from, dynamic import). */
export function importGraph(src) {
  const graph = new Map();
  for (const file of sources(src)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const deps = info.importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.')).map((s) => resolveImport(file, s)).filter(Boolean);
    graph.set(file, [...new Set(deps)]);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const comp = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(comp.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The package directories of the workspace. */
export function workspacePackages() {
  return ['packages', 'tools'].flatMap((d) => readdirSync(join(root, d)).map((n) => join(root, d, n))).filter((p) => existsSync(join(p, 'src')));
}

/** Cycles per package, as lists of paths relative to the workspace root. */
export function workspaceCycles(dirs = workspacePackages()) {
  return dirs.flatMap((d) => cycles(importGraph(join(d, 'src'))).map((c) => c.map((f) => relative(root, f))));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.slice(2).map((d) => resolve(d));
  const found = workspaceCycles(dirs.length ? dirs : undefined);
  for (const c of found) console.log(`cycle: ${c.join(' <-> ')}`);
  console.log(found.length ? `${found.length} import cycle(s), type-only imports included` : 'no import cycles (type-only imports included)');
  process.exit(found.length ? 1 : 0);
}
