#!/usr/bin/env node
// Type-checks every package and tool of the workspace as one TypeScript program. Each project's
// own `typecheck` target (tsc -p <project>) checks its sources and, through the workspace path
// mapping, the sources of every package it imports: run one after another, the shared libraries
// are checked once per project that uses them (144 s on 2 cores in CI). Projects whose tsconfig
// gives the same compiler options are checked here together, each file once (about 25 s); a
// project with options of its own gets a program of its own. The file list is each project's
// tsconfig.json, read as tsc reads it, so a new project is covered by its tsconfig alone.
// Usage: node scripts/typecheck-workspace.mjs. Exits 1 on any error, printed as tsc prints it.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every project's tsconfig.json (packages/* and tools/*). */
const configs = ['packages', 'tools'].flatMap((w) =>
  readdirSync(join(root, w), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, w, d.name, 'tsconfig.json')))
    .map((d) => join(root, w, d.name, 'tsconfig.json')),
);

/** tsc's own output: with colour and context on a terminal, plain in a log. */
const format = (diagnostics, h) => (process.stderr.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(diagnostics, h);

const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** Projects grouped by their compiler options: one program per group. */
const groups = new Map();
let failed = false;
for (const file of configs) {
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) {
    process.stderr.write(format([read.error], host));
    failed = true;
    continue;
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(file), undefined, file);
  if (parsed.errors.length) {
    process.stderr.write(format(parsed.errors, host));
    failed = true;
    continue;
  }
  const { configFilePath: _path, ...options } = parsed.options;
  const key = JSON.stringify(options, Object.keys(options).sort());
  const group = groups.get(key) ?? { options: parsed.options, files: new Set(), projects: [] };
  for (const f of parsed.fileNames) group.files.add(f);
  group.projects.push(dirname(file).slice(root.length + 1));
  groups.set(key, group);
}

const t0 = Date.now();
let count = 0;
for (const { options, files, projects } of groups.values()) {
  const program = ts.createProgram({ rootNames: [...files], options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  count += files.size;
  if (diagnostics.length) {
    process.stderr.write(format(diagnostics, host));
    process.stderr.write(`\n${diagnostics.length} error(s) in the program of ${projects.length} project(s)\n`);
    failed = true;
  }
}
process.stdout.write(`typecheck: ${configs.length} projects, ${count} files in ${groups.size} program(s), ${((Date.now() - t0) / 1000).toFixed(1)} s${failed ? ', FAILED' : ''}\n`);
process.exit(failed ? 1 : 0);
