#!/usr/bin/env node
// The npm consumer check (issue 17): packs every publishable package, installs the tarballs into a
// scratch project outside the workspace, and uses them as a new user would:
// - every ```ts block of every README is a program, type-checked as ESM (.mts) and CommonJS (.cts)
//   with tsc --strict --exactOptionalPropertyTypes, module/moduleResolution nodenext and
//   skipLibCheck false, then run with node (OVS and Kubernetes examples against a real isolated
//   ovsdb-server/ovs-vswitchd and the embedded API server, found through OVS_RUNDIR / KUBECONFIG);
// - every export entry's types resolve under moduleResolution node10 (typesVersions);
// - an export shared by two entries of a package is one object, in CJS and in ESM;
// - each tarball has LICENSE, package.json has repository.directory, README links work on the
//   registry page, and the .d.ts files import only declared dependencies;
// - pure entries bundle for a neutral (browser-like) platform with no Node built-in, and the pure
//   packages' bundles carry none of apis' ajv/protobufjs/long.
// Usage: node tools/pack-check/consumers.mjs [--keep] [--reuse <scratch dir>] [--only pkg,...] [--print]
//   --keep: leave the scratch project; --reuse: skip pack+install, use a kept one (README edits);
//   --only: check these packages (all are packed); --print: show each program's output.
import { execFile as execFileCb, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { extractTsBlocks, importedSpecifiers, packageOf, toCommonJs } from './lib/blocks.mjs';
import { checkDeclarationDeps, checkLicense, checkReadmeLinks, checkRepository } from './lib/manifest-checks.mjs';
import { startRuntimeEnv } from './lib/runtime-env.mjs';

const execFile = promisify(execFileCb);
const root = resolve(new URL('../..', import.meta.url).pathname);
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
/** Versions of the consumer's toolchain: what the workspace itself builds with. */
const TOOLCHAIN = ['typescript', '@types/node'];
/**
 * Type packages a user must add next to a library a README example imports. client-node's types
 * import `ws`, which ships none; without @types/ws a skipLibCheck:false build fails (TS7016).
 */
const TYPE_COMPANIONS = { '@kubernetes/client-node': { '@types/ws': '8.18.2' } };
/** Subpath entries documented as pure (no I/O), besides the root entries of `purity:pure` packages. */
const PURE_SUBPATHS = ['@switchyard/apis/types', '@switchyard/ipam/cidr', '@switchyard/openflow/codec'];
/** apis' Node-side dependencies: only `@switchyard/apis` itself may bundle them. */
const HEAVY = ['ajv', 'protobufjs', 'long'];
const RUN_TIMEOUT_MS = 30_000;

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

// --- the publishable packages and their README programs ----------------------------------------
const all = JSON.parse(execFileSync('npm', ['query', '.workspace'], { cwd: root, encoding: 'utf8' }));
const only = opts.only ? new Set(opts.only.split(',').map((s) => (s.startsWith('@') ? s : `@switchyard/${s}`))) : undefined;
const packages = all
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

const scratch = opts.reuse ? resolve(opts.reuse) : mkdtempSync(join(tmpdir(), 'switchyard-consumers-'));
const sh = (cmd, args, cwd = scratch) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
let runtime;
try {
  if (!opts.reuse) {
    // --- pack and install ----------------------------------------------------------------------
    step(`npm pack ${packages.length} packages into ${scratch}`);
    const tarDir = join(scratch, 'tarballs');
    mkdirSync(tarDir);
    const packed = JSON.parse(
      sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarDir, ...packages.flatMap((p) => ['-w', p.location])], root),
    );
    const deps = {};
    for (const out of packed) {
      const p = packages.find((x) => x.name === out.name);
      p.files = out.files.map((f) => f.path);
      deps[out.name] = `file:./tarballs/${out.filename}`;
    }
    for (const name of TOOLCHAIN) deps[name] = workspaceVersion(name);
    const extras = new Set();
    for (const p of packages) for (const b of p.blocks) for (const s of importedSpecifiers(b.code)) extras.add(packageOf(s));
    for (const name of [...extras].filter((n) => n && !n.startsWith('@switchyard/'))) {
      const v = workspaceVersion(name);
      if (!v) fail('*', `a README imports ${name}, which the workspace does not have: add it to a package or drop it`);
      else deps[name] = v;
      Object.assign(deps, TYPE_COMPANIONS[name] ?? {});
    }
    writeFileSync(
      join(scratch, 'package.json'),
      `${JSON.stringify({ name: 'switchyard-consumer', private: true, version: '0.0.0', dependencies: deps, overrides: { '@types/node': deps['@types/node'] } }, null, 2)}\n`,
    );
    step('npm install (tarballs, typescript, @types/node, example dependencies)');
    sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
    writeFileSync(join(scratch, 'files.json'), JSON.stringify(Object.fromEntries(packages.map((p) => [p.name, p.files]))));
  }
  const files = readJson(join(scratch, 'files.json'));
  for (const p of packages) p.files = files[p.name];
  const installed = (p) => join(scratch, 'node_modules', p.name);

  // --- manifest checks -------------------------------------------------------------------------
  step('tarball contents: LICENSE, repository, README links, declared type dependencies');
  const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');
  for (const p of checked) {
    const pkg = readJson(join(installed(p), 'package.json'));
    for (const msg of [
      ...checkLicense({ files: p.files, unpackedDir: installed(p), rootLicense }),
      ...checkRepository({ pkg, dir: p.location, repoUrl: REPO_URL }),
      ...checkReadmeLinks({ readme: p.readme, files: p.files }),
      ...checkDeclarationDeps({ pkg, unpackedDir: installed(p) }),
    ]) {
      fail(p.name, msg);
    }
  }

  // --- README programs: write, type-check (one tsc run), run -----------------------------------
  step('README programs: type-check as ESM and CommonJS (tsc --strict, nodenext, skipLibCheck false)');
  rmSync(join(scratch, 'src'), { recursive: true, force: true });
  rmSync(join(scratch, 'out'), { recursive: true, force: true });
  const programs = [];
  for (const p of checked) {
    const dir = join(scratch, 'src', p.short);
    mkdirSync(dir, { recursive: true });
    // Every entry's declarations are checked, whether or not an example imports it.
    const entryImports = p.entries.map((e, i) => `import type * as entry${i} from '${e}';`).join('\n');
    const uses = `export type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];\n`;
    writeFileSync(join(dir, 'entries.mts'), `${entryImports}\n${uses}`);
    writeFileSync(join(dir, 'entries.cts'), `${entryImports}\n${uses}`);
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
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023'],
        types: ['node'],
        skipLibCheck: false,
        rootDir: 'src',
        outDir: 'out',
        noEmitOnError: false,
      },
      include: ['src'],
    }),
  );
  const diagnostics = await tsc(scratch, 'tsconfig.json');
  for (const d of diagnostics) {
    const m = /^src\/([^/]+)\/(block-(\d+)|entries)\.(mts|cts)$/.exec(d.file);
    const p = m && checked.find((x) => x.short === m[1]);
    if (p && m[3]) {
      const b = p.blocks.find((x) => x.index === Number(m[3]));
      b.result.compiled = false;
      // .mts lines are README lines; .cts lines are of the generated file (kept with --keep).
      const where = m[4] === 'mts' ? `README.md:${b.line + d.line}` : `${d.file}:${d.line}`;
      b.result.errors.push(`${m[4] === 'mts' ? 'ESM' : 'CJS'} ${where}: ${d.code} ${d.text}`);
    } else {
      const owner = p ?? checked.find((x) => d.file.includes(`node_modules/${x.name}/`));
      fail(owner?.name ?? '*', `type error in ${d.file}:${d.line}: ${d.code} ${d.text}`);
    }
  }

  step('README programs: run with node (ESM, then CommonJS)');
  const runnable = programs.filter(({ b }) => b.mode === 'run' && b.result.compiled);
  if (runnable.length > 0) runtime = await startRuntimeEnv(scratch);
  for (const { p, b } of runnable) {
    for (const [flavour, ext] of [
      ['esm', 'mjs'],
      ['cjs', 'cjs'],
    ]) {
      const file = join('out', p.short, `block-${b.index}.${ext}`);
      const t = Date.now();
      try {
        const { stdout } = await execFile('node', [file], { cwd: scratch, env: { ...process.env, ...runtime.env }, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 << 20 });
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
  await runtime?.stop();
  runtime = undefined;

  // --- node10 resolution of every entry's types ------------------------------------------------
  step('moduleResolution node10: types of every entry resolve (typesVersions)');
  const n10 = join(scratch, 'node10');
  rmSync(n10, { recursive: true, force: true });
  mkdirSync(join(n10, 'src'), { recursive: true });
  for (const p of checked) {
    const lines = p.entries.map((e, i) => `import * as entry${i} from '${e}';`);
    lines.push(`export type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];`);
    writeFileSync(join(n10, 'src', `${p.short}.ts`), `${lines.join('\n')}\n`);
  }
  writeFileSync(
    join(n10, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', lib: ['es2023'], types: ['node'], noEmit: true, skipLibCheck: true, typeRoots: ['../node_modules/@types'] },
      include: ['src'],
    }),
  );
  for (const d of await tsc(n10, 'tsconfig.json', join(scratch, 'node_modules/.bin/tsc'))) {
    const owner = checked.find((x) => d.file === `src/${x.short}.ts`);
    fail(owner?.name ?? '*', `node10: ${d.file}:${d.line}: ${d.code} ${d.text}`);
  }

  // --- one copy of each export across a package's entries --------------------------------------
  step('entries of a package share one copy of each export (require and import)');
  for (const p of checked.filter((x) => x.entries.length > 1)) {
    for (const flavour of ['cjs', 'esm']) {
      const load = flavour === 'cjs' ? (e) => `require(${JSON.stringify(e)})` : (e) => `await import(${JSON.stringify(e)})`;
      const script = `
        const entries = [${p.entries.map((e) => `[${JSON.stringify(e)}, ${load(e)}]`).join(', ')}];
        const out = [];
        for (let i = 0; i < entries.length; i++) for (let j = i + 1; j < entries.length; j++) {
          const [an, a] = entries[i], [bn, b] = entries[j];
          for (const k of Object.keys(a)) if (k in b && typeof a[k] !== 'undefined' && a[k] !== b[k] && k !== 'default') out.push(an + '.' + k + ' !== ' + bn + '.' + k);
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

  // --- pure entries bundle without Node ---------------------------------------------------------
  step('pure entries bundle for platform neutral without node: built-ins');
  const esbuild = await import('esbuild');
  const pureEntries = [
    ...packages.filter((p) => (p.pkg.nx?.tags ?? []).includes('purity:pure')).map((p) => p.name),
    ...PURE_SUBPATHS,
  ].filter((e) => checked.some((p) => e === p.name || e.startsWith(`${p.name}/`)));
  const builtins = new Set(builtinModules);
  for (const entry of pureEntries) {
    const owner = checked.find((p) => entry === p.name || entry.startsWith(`${p.name}/`));
    const nodeImports = [];
    const stub = join(scratch, `bundle-${entry.replace(/\W+/g, '_')}.mjs`);
    writeFileSync(stub, `export * from '${entry}';\n`);
    try {
      const result = await esbuild.build({
        entryPoints: [stub],
        absWorkingDir: scratch,
        bundle: true,
        platform: 'neutral',
        format: 'esm',
        mainFields: ['module', 'main'],
        conditions: ['import'],
        write: false,
        metafile: true,
        logLevel: 'silent',
        plugins: [
          {
            name: 'no-node-builtins',
            setup(build) {
              build.onResolve({ filter: /.*/ }, (a) => {
                const bare = a.path.replace(/^node:/, '').split('/')[0];
                if (a.path.startsWith('node:') || builtins.has(bare)) {
                  nodeImports.push(`${a.path} (imported by ${a.importer.replace(`${scratch}/`, '')})`);
                  return { path: a.path, external: true };
                }
                return undefined;
              });
            },
          },
        ],
      });
      for (const n of nodeImports) fail(owner.name, `${entry} bundles a Node built-in: ${n}`);
      if (entry !== '@switchyard/apis') {
        const inputs = Object.keys(result.metafile.inputs);
        for (const heavy of HEAVY) {
          const hit = inputs.find((i) => i.includes(`node_modules/${heavy}/`));
          if (hit) fail(owner.name, `${entry} bundles ${heavy} (${hit}): import the pure entry (@switchyard/apis/types) instead`);
        }
      }
    } catch (e) {
      fail(owner.name, `${entry}: bundling for platform neutral failed: ${e.message}`);
    }
  }
} catch (e) {
  fail('*', e.stack ?? String(e));
} finally {
  await runtime?.stop().catch((e) => fail('*', `stopping OVS / the API server: ${e.message}`));
  if (!opts.keep && !opts.reuse) rmSync(scratch, { recursive: true, force: true });
}

// --- report ------------------------------------------------------------------------------------
const frac = (n, d) => (d === 0 ? '-' : `${n}/${d}`);
const rows = [['package', 'blocks', 'compiled', 'ran ESM', 'ran CJS', 'compile-only', 'no-check', 'problems']];
for (const p of checked) {
  const checkedBlocks = p.blocks.filter((b) => b.mode !== 'no-check');
  const run = p.blocks.filter((b) => b.mode === 'run');
  const count = (xs, f) => xs.filter((b) => b.result?.[f] === true).length;
  const blockErrors = p.blocks.filter((b) => b.result?.errors.length).length;
  rows.push([
    p.name,
    String(p.blocks.length),
    frac(count(checkedBlocks, 'compiled'), checkedBlocks.length),
    frac(count(run, 'esm'), run.length),
    frac(count(run, 'cjs'), run.length),
    String(p.blocks.filter((b) => b.mode === 'compile-only').length),
    String(p.blocks.filter((b) => b.mode === 'no-check').length),
    String((problems.get(p.name)?.length ?? 0) + blockErrors),
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
console.log();
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
let failed = false;
for (const p of checked) {
  for (const b of p.blocks.filter((x) => x.result?.errors.length)) {
    failed = true;
    console.log(`\n${p.name} README block ${b.index} (README.md:${b.line}):`);
    for (const e of b.result.errors) console.log(`  ${e}`);
  }
}
for (const [name, msgs] of problems) {
  failed = true;
  console.log(`\n${name === '*' ? 'check' : name}:`);
  for (const m of msgs) console.log(`  ${m}`);
}
if (opts.keep) console.log(`\nscratch project kept: ${scratch}`);
console.log(`\nnpm consumers: ${failed ? 'FAILED' : 'ok'} in ${elapsed()}`);
process.exitCode = failed ? 1 : 0;

/** Runs tsc -p on a project; returns its diagnostics (file relative to the project). */
async function tsc(cwd, project, bin = join(cwd, 'node_modules/.bin/tsc')) {
  let out = '';
  try {
    await execFile(bin, ['-p', project, '--pretty', 'false'], { cwd, maxBuffer: 64 << 20 });
  } catch (e) {
    out = `${e.stdout ?? ''}`;
    if (!out.trim()) throw new Error(`tsc failed to start in ${cwd}: ${e.stderr ?? e.message}`);
  }
  const diags = [];
  for (const line of out.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (m) diags.push({ file: m[1].replace(/^node10\//, ''), line: Number(m[2]), code: m[4], text: m[5] });
    else if (line.trim() && diags.length) diags[diags.length - 1].text += ` ${line.trim()}`;
  }
  return diags;
}
