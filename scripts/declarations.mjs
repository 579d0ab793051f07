// The declaration files (.d.ts) of every package and tool, emitted by one TypeScript program for
// the whole workspace, for tsup to bundle per package (tsup.shared.ts). tsup's own `dts` option
// runs a TypeScript program per package, which parses and binds @types/node, the libs and every
// workspace library it imports again: 70 % of the build's CPU (docs/development.md). Here each file
// is parsed, bound and checked once, and the emit is kept in .cache/declarations, named by a hash
// of everything it depends on, so the packages nx builds one after another (or side by side) share
// one emit, and a build with unchanged sources does no TypeScript work at all.
//
// Cross-package imports resolve to the sources (tsconfig.paths.json), so no package needs another's
// dist/ first; the emitted text keeps the import as written (`@switchyard/apis`), which is what the
// published bundle must say. Packages whose tsconfig.build.json sets options of its own (the agent's
// stripInternal) get a program of their own that shares the first one's parsed files and emits
// only their own.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Not under node_modules: TypeScript takes a file there for a library's, which bundlers leave external.
const cacheRoot = join(root, '.cache/declarations');

/** Every project with a tsconfig.build.json: its directory and parsed build options and files. */
function projects() {
  const out = [];
  for (const w of ['packages', 'tools']) {
    for (const d of readdirSync(join(root, w), { withFileTypes: true })) {
      const file = join(root, w, d.name, 'tsconfig.build.json');
      if (!d.isDirectory() || !existsSync(file)) continue;
      const read = ts.readConfigFile(file, ts.sys.readFile);
      if (read.error) throw new Error(format([read.error]));
      const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(file), undefined, file);
      if (parsed.errors.length) throw new Error(format(parsed.errors));
      out.push({ dir: dirname(file), options: parsed.options, files: parsed.fileNames });
    }
  }
  return out;
}

const format = (diagnostics) =>
  ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });

/** The workspace's path mapping (each @switchyard/* specifier to its source entry). */
function paths() {
  const read = ts.readConfigFile(join(root, 'tsconfig.paths.json'), ts.sys.readFile);
  if (read.error) throw new Error(format([read.error]));
  return read.config.compilerOptions.paths;
}

/** A hash of what the emit depends on: TypeScript's version, this script, every project's options and sources. */
function key(list) {
  const h = createHash('sha256');
  h.update(ts.version).update(readFileSync(fileURLToPath(import.meta.url)));
  h.update(readFileSync(join(root, 'tsconfig.base.json'))).update(
    readFileSync(join(root, 'tsconfig.paths.json')),
  );
  for (const p of list) {
    h.update(p.dir).update(JSON.stringify(p.options, Object.keys(p.options).sort()));
    for (const f of [...p.files].sort()) h.update(f).update(readFileSync(f));
  }
  return h.digest('hex').slice(0, 16);
}

/** Emits every project's declarations under `out` (the repository's layout: out/packages/x/src/index.d.ts). */
function emit(list, out) {
  const mapping = paths();
  /** One program per distinct set of options; the first (most projects) emits its projects' files. */
  const groups = new Map();
  for (const p of list) {
    const options = { ...p.options };
    delete options.configFilePath;
    const k = JSON.stringify(options, Object.keys(options).sort());
    const g = groups.get(k) ?? { options: p.options, files: [] };
    g.files.push(...p.files);
    groups.set(k, g);
  }
  const ordered = [...groups.values()].sort((a, b) => b.files.length - a.files.length);
  /** Parsed files shared by the programs (their options differ only in what emit does). */
  const parsed = new Map();
  const diagnostics = [];
  for (const { options: own, files } of ordered) {
    const options = {
      ...own,
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      declarationMap: false,
      sourceMap: false,
      outDir: out,
      rootDir: root,
      baseUrl: root,
      paths: mapping,
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, lang, onError) => {
      let sf = parsed.get(file);
      if (!sf) {
        sf = getSourceFile(file, lang, onError);
        if (sf) parsed.set(file, sf);
      }
      return sf;
    };
    const t0 = performance.now();
    const program = ts.createProgram({ rootNames: files, options, host });
    const t1 = performance.now();
    for (const f of files) {
      // A declaration file among the sources (a generated module's types) is its own emit.
      if (/\.d\.(c|m)?ts$/.test(f)) {
        const to = join(out, relative(root, f));
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(f, to);
        continue;
      }
      const sf = program.getSourceFile(f);
      if (!sf) throw new Error(`declarations: ${relative(root, f)} is not in its program`);
      // Declarations only, without type-checking the file first (forceDtsEmit): the workspace's
      // typecheck does that (scripts/typecheck-workspace.mjs); an error that stops a declaration
      // being written (an inferred type that cannot be named) is still reported. Half the CPU of
      // a checked emit here (21 against 47 s of CPU), the same declarations but for the order of
      // some unions' members.
      const r = program.emit(sf, undefined, undefined, true, undefined, true);
      diagnostics.push(...r.diagnostics);
    }
    const ms = (t) => `${(t / 1000).toFixed(1)} s`;
    process.stderr.write(
      `declarations: ${files.length} files in one program (${ms(t1 - t0)} to build it, ${ms(performance.now() - t1)} to emit)\n`,
    );
  }
  if (diagnostics.length)
    throw new Error(`declarations: TypeScript could not emit declarations:\n${format(diagnostics)}`);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Whether the process that wrote a lock is still running (its PID and start time, /proc/<pid>/stat field 22). */
function lockHolderAlive(lock) {
  let owner;
  try {
    owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8'));
  } catch {
    // Being written, or its writer died between mkdir and write: judged by the lock's age.
    try {
      return Date.now() - statSync(lock).mtimeMs < 30_000;
    } catch {
      return false; // removed meanwhile: its holder is done
    }
  }
  return startTime(owner.pid) === owner.start;
}

function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * The directory holding every project's declarations for the sources as they are now, emitting
 * them first when no earlier build did. Safe to call from builds running side by side: one emits
 * (under a lock directory naming its PID and start time), the others wait for it.
 */
export function workspaceDeclarations() {
  const list = projects();
  const dir = join(cacheRoot, key(list));
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    if (existsSync(join(dir, '.done'))) return dir;
    try {
      mkdirSync(lock);
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      if (Date.now() > deadline) throw new Error(`declarations: ${lock} still held after 10 minutes`);
      if (!lockHolderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else sleep(100);
      continue;
    }
    try {
      writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: process.pid, start: startTime(process.pid) }));
      if (existsSync(join(dir, '.done'))) return dir;
      const tmp = `${dir}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      emit(list, tmp);
      writeFileSync(join(tmp, '.done'), '');
      rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
      // Earlier emits (other sources) are of no further use.
      for (const old of readdirSync(cacheRoot)) {
        if (/^[0-9a-f]{16}$/.test(old) && join(cacheRoot, old) !== dir)
          rmSync(join(cacheRoot, old), { recursive: true, force: true });
      }
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** The emitted declaration file of a project's source entry (`src/index.ts` of `packages/ovsdb`). */
function declarationOf(dir, projectDir, entry) {
  return join(dir, relative(root, resolve(projectDir, entry))).replace(
    /\.(c|m)?tsx?$/,
    (_m, c) => `.d.${c ?? ''}ts`,
  );
}

/**
 * Writes a package's declaration bundles: for each entry (name -> source file, as tsup's `entry`)
 * `<outDir>/<name>.d.ts` for ESM and `<name>.d.cts` for CommonJS, with the declarations the entries
 * share in chunks (`<module>-<hash>.d.ts`), as tsup's `dts` option writes them. Every import that
 * is not relative (node: modules, dependencies, the other workspace packages) stays an import.
 */
export async function bundleDeclarations(projectDir, entry, outDir = 'dist') {
  const t0 = Date.now();
  const emitted = workspaceDeclarations();
  const input = Object.fromEntries(
    Object.entries(entry).map(([name, file]) => [name, declarationOf(emitted, projectDir, file)]),
  );
  const { rollup } = await import('rollup');
  const { dts } = await import('rollup-plugin-dts');
  const bundle = await rollup({
    input,
    plugins: [
      dts({
        compilerOptions: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
      }),
    ],
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    onwarn(warning, warn) {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  const written = [];
  try {
    for (const ext of ['d.ts', 'd.cts']) {
      const { output } = await bundle.write({
        dir: resolve(projectDir, outDir),
        format: 'es',
        entryFileNames: `[name].${ext}`,
        // A chunk is named for its first module, whose file name ends in .d.ts.
        chunkFileNames: (chunk) => `${chunk.name.replace(/\.d$/, '')}-[hash].${ext}`,
      });
      written.push(...output.map((o) => o.fileName));
    }
  } finally {
    await bundle.close();
  }
  process.stdout.write(`DTS ${written.map((f) => join(outDir, f)).join(', ')} in ${Date.now() - t0} ms\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  const dir = workspaceDeclarations();
  process.stdout.write(
    `declarations: ${relative(root, dir)} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}
