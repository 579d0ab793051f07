#!/usr/bin/env node
// The npm consumer check (issue 17): packs every publishable package, installs the tarballs into a
// scratch project outside the workspace, and uses them as a new user would.
// With only the tarballs and the toolchain installed:
// - every entry's declarations type-check under tsc --strict --exactOptionalPropertyTypes,
//   module/moduleResolution nodenext and skipLibCheck false, as ESM and as CommonJS;
// - every entry's types resolve under moduleResolution node10 (typesVersions);
// - an export shared by two entries of a package is one object, in CJS and in ESM;
// - each tarball has LICENSE, package.json has repository.directory, README links work on the
//   registry page, and the .d.ts files import only declared dependencies;
// - pure entries bundle for a neutral (browser-like) platform with no Node built-in, and the pure
//   packages' bundles and declarations reach none of apis' ajv/protobufjs/long (only pure entries).
// Then, with what the README examples import also installed (e.g. yaml, @kubernetes/client-node):
// - every ```ts block of every README is a program, type-checked as ESM (.mts) and CommonJS (.cts)
//   with the same settings, then run with node; OVS and Kubernetes examples run against a real
//   isolated ovsdb-server/ovs-vswitchd and the embedded API server, found through the variables
//   their READMEs document (OVS_RUNDIR, KUBECONFIG).
// Usage: node tools/pack-check/consumers.mjs [--keep] [--reuse <scratch dir>] [--only pkg,...] [--print]
//   --keep: leave the scratch project; --reuse: skip pack+install and use a kept one (for README
//   edits; its node_modules already has the example dependencies); --only: check these packages
//   (all are packed); --print: show each program's output.
import { execFile as execFileCb, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { extractTsBlocks, importedSpecifiers, packageOf, toCommonJs } from './lib/blocks.mjs';
import { checkDeclarationDeps, checkLicense, checkReadmeLinks, checkRepository } from './lib/manifest-checks.mjs';
import { bundleProblems, declarationProblems } from './lib/purity.mjs';
import { startRuntimeEnv } from './lib/runtime-env.mjs';

const execFile = promisify(execFileCb);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    only: { type: 'string' },
    print: { type: 'boolean', default: false },
  },
});

/** The repository URL every package.json `repository` names (see the create-package template). */
const REPO_URL = 'https://github.com/switchyard-net/switchyard';
/** The consumer's toolchain, at the versions the workspace builds with. */
const TOOLCHAIN = ['typescript', '@types/node'];
/**
 * Type packages a user must add next to a library a README example imports. client-node's types
 * import `ws`, which ships none; without @types/ws a skipLibCheck:false build fails (TS7016).
 */
const TYPE_COMPANIONS = { '@kubernetes/client-node': { '@types/ws': '8.18.2' } };
/** Subpath entries documented as pure (no I/O), besides the root entries of `purity:pure` packages. */
const PURE_SUBPATHS = ['@switchyard/apis/types', '@switchyard/ipam/cidr', '@switchyard/openflow/codec', '@switchyard/runtime/testing'];
/** apis' heavy runtime dependencies: only the root entry of the package that declares them may reach them. */
const HEAVY = ['ajv', 'protobufjs', 'long', '@sinclair/typebox'];
const RUN_TIMEOUT_MS = 30_000;
/** What a strict consumer compiles with; `module`/`moduleResolution` nodenext pick ESM or CJS by extension. */
const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'es2022',
  lib: ['es2023'],
  types: ['node'],
  skipLibCheck: false,
};

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const step = (what) => console.log(`::: [${elapsed()}] ${what}`);
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const workspaceVersion = (name) => {
  const p = join(root, 'node_modules', name, 'package.json');
  return existsSync(p) ? readJson(p).version : undefined;
};

/** Problems by package name (or '*' for the whole check); any problem fails the check. */
const problems = new Map();
const fail = (pkg, msg) => problems.set(pkg, [...(problems.get(pkg) ?? []), msg]);

// --- the publishable packages and their README programs -------------------------------------------
const workspaces = JSON.parse(execFileSync('npm', ['query', '.workspace'], { cwd: root, encoding: 'utf8' }));
const only = opts.only ? new Set(opts.only.split(',').map((s) => (s.startsWith('@') ? s : `@switchyard/${s}`))) : undefined;
const packages = workspaces
  .filter((w) => !w.private && w.location.startsWith('packages/'))
  .map((w) => {
    const dir = join(root, w.location);
    const pkg = readJson(join(dir, 'package.json'));
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    let blocks = [];
    try {
      blocks = extractTsBlocks(readme);
    } catch (e) {
      fail(pkg.name, `README.md: ${e.message}`);
    }
    const entries = Object.keys(pkg.exports ?? { '.': null })
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
    return { name: pkg.name, short: basename(w.location), location: w.location, dir, pkg, readme, blocks, entries };
  })
  .sort((a, b) => a.name.localeCompare(b.name));
const checked = packages.filter((p) => !only || only.has(p.name));
if (packages.length === 0) fail('*', 'no publishable workspace package found');

const scratch = opts.reuse ? resolve(opts.reuse) : mkdtempSync(join(tmpdir(), 'switchyard-consumers-'));
const sh = (cmd, args, cwd = scratch) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
const npmInstall = (...args) => sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...args]);
let runtime;
try {
  if (!opts.reuse) installTarballs();
  const files = readJson(join(scratch, 'files.json'));
  for (const p of packages) p.files = files[p.name];

  step('tarball contents: LICENSE, repository, README links, declared type dependencies');
  checkManifests();
  step('types of every entry, as ESM and CommonJS (tsc --strict, nodenext, skipLibCheck false), with only the tarballs installed');
  await checkEntryTypes();
  step('moduleResolution node10: types of every entry resolve (typesVersions)');
  await checkNode10();
  step('entries of a package share one copy of each export (require and import)');
  checkOneCopy();
  step('pure entries: bundle for platform neutral without node: built-ins; declarations import only pure entries');
  await checkPurity();

  if (!opts.reuse) {
    step('npm install what the README examples import');
    installExampleDependencies();
  }
  step('README programs: type-check as ESM and CommonJS (tsc --strict, nodenext, skipLibCheck false)');
  const programs = await compilePrograms();
  step('README programs: run with node (ESM, then CommonJS)');
  await runPrograms(programs);
} catch (e) {
  fail('*', e.stack ?? String(e));
} finally {
  await runtime?.stop().catch((e) => fail('*', `stopping OVS / the API server: ${e.message}`));
  if (!opts.keep && !opts.reuse) rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = report() ? 0 : 1;

// --- steps -----------------------------------------------------------------------------------------

/** npm pack every publishable package; a scratch project with the tarballs and the toolchain only. */
function installTarballs() {
  step(`npm pack ${packages.length} packages into ${scratch}`);
  const tarDir = join(scratch, 'tarballs');
  mkdirSync(tarDir);
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarDir, ...packages.flatMap((p) => ['-w', p.location])], root));
  const deps = {};
  for (const out of packed) {
    const p = packages.find((x) => x.name === out.name);
    p.files = out.files.map((f) => f.path);
    deps[out.name] = `file:./tarballs/${out.filename}`;
  }
  for (const name of TOOLCHAIN) deps[name] = workspaceVersion(name);
  const manifest = { name: 'switchyard-consumer', private: true, version: '0.0.0', dependencies: deps, overrides: { '@types/node': deps['@types/node'] } };
  writeFileSync(join(scratch, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(scratch, 'files.json'), JSON.stringify(Object.fromEntries(packages.map((p) => [p.name, p.files]))));
  step('npm install (tarballs, typescript, @types/node)');
  npmInstall();
}

/** Adds the non-Switchyard packages README programs import, at the workspace's versions. */
function installExampleDependencies() {
  const names = new Set();
  for (const p of packages) for (const b of p.blocks) for (const s of importedSpecifiers(b.code)) names.add(packageOf(s));
  const specs = [];
  for (const name of [...names].filter((n) => n && !n.startsWith('@switchyard/')).sort()) {
    const v = workspaceVersion(name);
    if (!v) fail('*', `a README imports ${name}, which the workspace does not have: add it to a package or drop it`);
    else specs.push(`${name}@${v}`);
    for (const [companion, cv] of Object.entries(TYPE_COMPANIONS[name] ?? {})) specs.push(`${companion}@${cv}`);
  }
  if (specs.length > 0) npmInstall('--save-exact', ...specs);
}

function checkManifests() {
  const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');
  for (const p of checked) {
    const dir = join(scratch, 'node_modules', p.name);
    const pkg = readJson(join(dir, 'package.json'));
    for (const msg of [
      ...checkLicense({ files: p.files, unpackedDir: dir, rootLicense }),
      ...checkRepository({ pkg, dir: p.location, repoUrl: REPO_URL }),
      ...checkReadmeLinks({ readme: p.readme, files: p.files }),
      ...checkDeclarationDeps({ pkg, unpackedDir: dir }),
    ]) {
      fail(p.name, msg);
    }
  }
}

/** `import type * as entryN from '<entry>'` for every entry: loads each entry's declarations. */
function entryImports(p) {
  const lines = p.entries.map((e, i) => `import type * as entry${i} from '${e}';`);
  return `${lines.join('\n')}\nexport type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];\n`;
}

async function checkEntryTypes() {
  const dir = join(scratch, 'entries');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const p of checked) {
    writeFileSync(join(dir, `${p.short}.mts`), entryImports(p));
    writeFileSync(join(dir, `${p.short}.cts`), entryImports(p));
  }
  writeFileSync(join(scratch, 'tsconfig.entries.json'), JSON.stringify({ compilerOptions: { ...STRICT, noEmit: true }, include: ['entries'] }));
  for (const d of await tsc(scratch, 'tsconfig.entries.json')) {
    // Charged to every package whose entries reach the file (its own declarations or a dependency's).
    const owners = checked.filter((x) => d.roots.some((r) => r === `entries/${x.short}.mts` || r === `entries/${x.short}.cts`));
    for (const owner of owners.length ? owners : [{ name: '*' }]) fail(owner.name, `types: ${d.file}:${d.line}: ${d.code} ${d.text}`);
  }
}

async function checkNode10() {
  const dir = join(scratch, 'node10');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (const p of checked) {
    const lines = p.entries.map((e, i) => `import * as entry${i} from '${e}';`);
    lines.push(`export type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];`);
    writeFileSync(join(dir, 'src', `${p.short}.ts`), `${lines.join('\n')}\n`);
  }
  const compilerOptions = { strict: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', lib: ['es2023'], types: ['node'], noEmit: true, skipLibCheck: true };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, typeRoots: ['../node_modules/@types'] }, include: ['src'] }));
  for (const d of await tsc(dir, 'tsconfig.json', join(scratch, 'node_modules/.bin/tsc'))) {
    const owner = checked.find((x) => d.file === `src/${x.short}.ts`);
    fail(owner?.name ?? '*', `node10: ${d.file}:${d.line}: ${d.code} ${d.text}`);
  }
}

function checkOneCopy() {
  for (const p of checked.filter((x) => x.entries.length > 1)) {
    for (const flavour of ['cjs', 'esm']) {
      const load = flavour === 'cjs' ? (e) => `require(${JSON.stringify(e)})` : (e) => `await import(${JSON.stringify(e)})`;
      const script = `
        const entries = [${p.entries.map((e) => `[${JSON.stringify(e)}, ${load(e)}]`).join(', ')}];
        const out = [];
        for (let i = 0; i < entries.length; i++) for (let j = i + 1; j < entries.length; j++) {
          const [an, a] = entries[i], [bn, b] = entries[j];
          for (const k of Object.keys(a)) if (k !== 'default' && k in b && a[k] !== b[k]) out.push(an + '.' + k + ' !== ' + bn + '.' + k);
        }
        console.log(JSON.stringify(out));`;
      const args = flavour === 'cjs' ? ['-e', script] : ['--input-type=module', '-e', script];
      try {
        for (const msg of JSON.parse(sh('node', args).trim().split('\n').pop())) fail(p.name, `${flavour}: ${msg} (two copies: instanceof fails across entries)`);
      } catch (e) {
        fail(p.name, `${flavour}: loading the entries failed: ${e.stderr ?? e.message}`);
      }
    }
  }
}

async function checkPurity() {
  const esbuild = await import('esbuild');
  const ownerOf = (entry) => packages.find((p) => entry === p.name || entry.startsWith(`${p.name}/`));
  const pureRoots = packages.filter((p) => (p.pkg.nx?.tags ?? []).includes('purity:pure')).map((p) => p.name);
  // Light: what a pure package may import. apis' root is pure (no I/O) but carries ajv/protobufjs.
  const light = [...PURE_SUBPATHS, ...pureRoots.filter((r) => !HEAVY.some((h) => h in (ownerOf(r).pkg.dependencies ?? {})))];
  for (const entry of [...pureRoots, ...PURE_SUBPATHS]) {
    const owner = ownerOf(entry);
    if (!checked.includes(owner)) continue;
    const forbidden = light.includes(entry) ? HEAVY : [];
    for (const msg of await bundleProblems({ esbuild, scratch, entry, forbidden })) fail(owner.name, msg);
    if (light.includes(entry)) {
      for (const msg of declarationProblems({ scratch, entry, pureEntries: light, forbidden: HEAVY })) fail(owner.name, msg);
    }
  }
}

/** Writes each README block as src/<pkg>/block-N.mts and .cts and type-checks them in one tsc run. */
async function compilePrograms() {
  rmSync(join(scratch, 'src'), { recursive: true, force: true });
  rmSync(join(scratch, 'out'), { recursive: true, force: true });
  rmSync(join(scratch, 'tmp'), { recursive: true, force: true });
  const programs = [];
  for (const p of checked) {
    const dir = join(scratch, 'src', p.short);
    mkdirSync(dir, { recursive: true });
    for (const b of p.blocks) {
      b.result = { compiled: b.mode === 'no-check' ? undefined : true, esm: undefined, cjs: undefined, errors: [] };
      if (b.mode === 'no-check') continue;
      writeFileSync(join(dir, `block-${b.index}.mts`), b.code);
      try {
        writeFileSync(join(dir, `block-${b.index}.cts`), toCommonJs(b.code));
      } catch (e) {
        b.result.compiled = false;
        b.result.errors.push(`cannot make a CommonJS program: ${e.message}`);
      }
      programs.push({ p, b });
    }
  }
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...STRICT, rootDir: 'src', outDir: 'out', noEmitOnError: false }, include: ['src'] }));
  for (const d of await tsc(scratch, 'tsconfig.json')) {
    const m = /^src\/([^/]+)\/block-(\d+)\.(mts|cts)$/.exec(d.file);
    const b = m && checked.find((x) => x.short === m[1])?.blocks.find((x) => x.index === Number(m[2]));
    if (!b) {
      fail(checked.find((x) => d.file.includes(`node_modules/${x.name}/`))?.name ?? '*', `type error in ${d.file}:${d.line}: ${d.code} ${d.text}`);
      continue;
    }
    b.result.compiled = false;
    // .mts lines are README lines; .cts lines are of the generated file (kept with --keep).
    const where = m[3] === 'mts' ? `README.md:${b.line + d.line}` : `${d.file}:${d.line}`;
    b.result.errors.push(`${m[3] === 'mts' ? 'ESM' : 'CJS'} ${where}: ${d.code} ${d.text}`);
  }
  return programs;
}

/** Runs every compiled `run` block, ESM then CJS, with OVS and the API server up. */
async function runPrograms(programs) {
  const runnable = programs.filter(({ b }) => b.mode === 'run' && b.result.compiled);
  if (runnable.length === 0) return;
  runtime = await startRuntimeEnv(scratch);
  for (const { p, b } of runnable) {
    for (const [flavour, ext] of [
      ['esm', 'mjs'],
      ['cjs', 'cjs'],
    ]) {
      const file = join('out', p.short, `block-${b.index}.${ext}`);
      const t = Date.now();
      try {
        // The examples make temporary directories as a user's program would and leave them;
        // TMPDIR inside the scratch directory puts them where this run removes them.
        const tmp = join(scratch, 'tmp', `${p.short}-${b.index}-${flavour}`);
        mkdirSync(tmp, { recursive: true });
        const env = { ...process.env, ...runtime.env, TMPDIR: tmp };
        const { stdout } = await execFile('node', [file], { cwd: scratch, env, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 << 20 });
        b.result[flavour] = true;
        if (opts.print && flavour === 'esm') console.log(`--- ${p.name} block ${b.index} (${Date.now() - t} ms)\n${stdout.trimEnd()}`);
      } catch (e) {
        b.result[flavour] = false;
        const why = e.killed ? `killed after ${RUN_TIMEOUT_MS} ms` : `exit ${e.code}`;
        const tail = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim().split('\n').slice(-15).join('\n    ');
        b.result.errors.push(`${flavour.toUpperCase()} run (${why}, ${Date.now() - t} ms):\n    ${tail}`);
      }
    }
  }
  await runtime.stop();
  runtime = undefined;
}

/**
 * Runs tsc -p on a project; returns its diagnostics (file relative to the project), each with the
 * root files whose imports reached its file (from --explainFiles), so an error in a dependency's
 * declarations is charged to the package that brought it in.
 */
async function tsc(cwd, project, bin = join(cwd, 'node_modules/.bin/tsc')) {
  let out = '';
  try {
    ({ stdout: out } = await execFile(bin, ['-p', project, '--pretty', 'false', '--explainFiles'], { cwd, maxBuffer: 256 << 20 }));
  } catch (e) {
    out = `${e.stdout ?? ''}`;
    if (!out.trim()) throw new Error(`tsc failed to start in ${cwd}: ${e.stderr ?? e.message}`);
  }
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
  for (const d of diags) {
    const roots = new Set();
    const seen = new Set();
    const todo = [d.file];
    while (todo.length) {
      const f = todo.pop();
      if (seen.has(f)) continue;
      seen.add(f);
      const up = importers.get(f) ?? [];
      if (up.length === 0) roots.add(f);
      todo.push(...up);
    }
    d.roots = [...roots];
  }
  return diags;
}

/** Prints the table per package and every problem; true when there is none. */
function report() {
  const frac = (n, d) => (d === 0 ? '-' : `${n}/${d}`);
  const rows = [['package', 'blocks', 'compiled', 'ran ESM', 'ran CJS', 'compile-only', 'no-check', 'problems']];
  for (const p of checked) {
    const checkedBlocks = p.blocks.filter((b) => b.mode !== 'no-check');
    const run = p.blocks.filter((b) => b.mode === 'run');
    const count = (xs, f) => xs.filter((b) => b.result?.[f] === true).length;
    rows.push([
      p.name,
      String(p.blocks.length),
      frac(count(checkedBlocks, 'compiled'), checkedBlocks.length),
      frac(count(run, 'esm'), run.length),
      frac(count(run, 'cjs'), run.length),
      String(p.blocks.filter((b) => b.mode === 'compile-only').length),
      String(p.blocks.filter((b) => b.mode === 'no-check').length),
      String((problems.get(p.name)?.length ?? 0) + p.blocks.filter((b) => b.result?.errors.length).length),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log();
  for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  let ok = true;
  for (const p of checked) {
    for (const b of p.blocks.filter((x) => x.result?.errors.length)) {
      ok = false;
      console.log(`\n${p.name} README block ${b.index} (README.md:${b.line}):`);
      for (const e of b.result.errors) console.log(`  ${e}`);
    }
    // A block never reached (an earlier step threw) has no result: that is a failure too.
    if (p.blocks.some((b) => b.mode !== 'no-check' && !b.result)) ok = false;
  }
  for (const [name, msgs] of problems) {
    ok = false;
    console.log(`\n${name === '*' ? 'check' : name}:`);
    for (const m of msgs) console.log(`  ${m}`);
  }
  if (opts.keep) console.log(`\nscratch project kept: ${scratch}`);
  console.log(`\nnpm consumers: ${ok ? 'ok' : 'FAILED'} in ${elapsed()}`);
  return ok;
}
