// The npm consumer check's steps (issue 17) on a tarball project (lib/tarball-project.mjs) holding
// every publishable package, typescript and @types/node: consumers.mjs runs it alone,
// package-shape.mjs beside the package-shape check on one pack and install. What each step checks
// is listed in consumers.mjs.
import { execFile as execFileCb } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { extractTsBlocks, importedSpecifiers, packageOf, toCommonJs } from './blocks.mjs';
import { checkDeclarationDeps, checkLicense, checkReadmeLinks, checkRepository } from './manifest-checks.mjs';
import { bundleProblems, declarationProblems } from './purity.mjs';
import { runPool } from './run-pool.mjs';
import { startRuntimeEnv } from './runtime-env.mjs';
import { exportSpecifiers } from './shape.mjs';
import { tsc } from './tsc.mjs';

const execFile = promisify(execFileCb);
/** The repository URL every package.json `repository` names (see the create-package template). */
const REPO_URL = 'https://github.com/switchyard-net/switchyard';
/** The consumer's toolchain, at the versions the workspace builds with. */
export const TOOLCHAIN = ['typescript', '@types/node'];
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
/** README programs run at once (the CI machine has 2 cores). */
const RUN_WIDTH = 2;
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
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

/** The version of `name` in the workspace's node_modules, if it has one. */
export function workspaceVersion(root, name) {
  const p = join(root, 'node_modules', name, 'package.json');
  return existsSync(p) ? readJson(p).version : undefined;
}

/**
 * The servers a README program reaches, through the variables its README documents: OVS through
 * OVS_RUNDIR, the API server through KUBECONFIG (client-node reads it; so may any program handing
 * on process.env). Programs sharing a server run one after another, in README order (the ovsdb
 * examples build on each other's ports).
 */
export function sharedServers(code) {
  const servers = [];
  if (/OVS_RUNDIR/.test(code)) servers.push('ovs');
  const rest = code.replace(/process\.env(\.OVS_RUNDIR|\[['"]OVS_RUNDIR['"]\])/g, '');
  if (/process\.env|KUBECONFIG|KubeConfig|loadFromDefault|@kubernetes\/client-node/.test(rest)) servers.push('kube');
  return servers;
}

export class ConsumerCheck {
  /**
   * @param {{ root: string, workspaces: { name: string, location: string, dir: string, pkg: object, private: boolean }[],
   *   only?: Set<string>, print?: boolean, log?: (line: string) => void }} options
   */
  constructor({ root, workspaces, only, print = false, log = console.log }) {
    this.root = root;
    this.print = print;
    this.log = log;
    this.t0 = Date.now();
    /** Problems by package name (or '*' for the whole check); any problem fails the check. */
    this.problems = new Map();
    this.packages = workspaces
      .filter((w) => !w.private && w.location.startsWith('packages/'))
      .map((w) => this.describe(w))
      .sort((a, b) => a.name.localeCompare(b.name));
    this.checked = this.packages.filter((p) => !only || only.has(p.name));
    if (this.packages.length === 0) this.fail('*', 'no publishable workspace package found');
  }

  /** A publishable package with its README programs and entries. */
  describe({ location, dir, pkg }) {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    let blocks = [];
    try {
      blocks = extractTsBlocks(readme);
    } catch (e) {
      this.fail(pkg.name, `README.md: ${e.message}`);
    }
    return { name: pkg.name, short: location.split('/').pop(), location, dir, pkg, readme, blocks, entries: exportSpecifiers(pkg) };
  }

  fail(pkg, msg) {
    this.problems.set(pkg, [...(this.problems.get(pkg) ?? []), msg]);
  }

  elapsed() {
    return `${((Date.now() - this.t0) / 1000).toFixed(1)} s`;
  }

  step(what) {
    this.log(`::: [${this.elapsed()}] ${what}`);
  }

  /** What the tarball project installs besides the tarballs, and its overrides. */
  toolchain() {
    const dependencies = Object.fromEntries(TOOLCHAIN.map((name) => [name, workspaceVersion(this.root, name)]));
    return { dependencies, overrides: { '@types/node': dependencies['@types/node'] } };
  }

  /** The checks that need only the tarballs and the toolchain. Records problems; never rejects. */
  async checkInstalled(project) {
    this.scratch = project.dir;
    try {
      for (const p of this.packages) p.files = project.files[p.name];
      this.step('tarball contents: LICENSE, repository, README links, declared type dependencies');
      this.checkManifests();
      this.step('types of every entry, as ESM and CommonJS (tsc --strict, nodenext, skipLibCheck false), with only the tarballs installed');
      await this.checkEntryTypes();
      this.step('moduleResolution node10: types of every entry resolve (typesVersions)');
      await this.checkNode10();
      this.step('entries of a package share one copy of each export (require and import)');
      await this.checkOneCopy();
      this.step('pure entries: bundle for platform neutral without node: built-ins; declarations import only pure entries');
      await this.checkPurity();
    } catch (e) {
      this.fail('*', e.stack ?? String(e));
    }
  }

  /**
   * README programs: installs what they import (unless `installExamples` is false: a kept project
   * has it), compiles and runs them. Records problems; never rejects. Stops OVS and the API server.
   */
  async checkReadmePrograms(project, { installExamples = true } = {}) {
    this.scratch = project.dir;
    let runtime;
    try {
      if (installExamples) {
        this.step('npm install what the README examples import');
        await this.installExampleDependencies(project);
      }
      // OVS and the API server start while the programs compile.
      const runnable = this.checked.some((p) => p.blocks.some((b) => b.mode === 'run'));
      runtime = runnable ? startRuntimeEnv(this.scratch) : undefined;
      runtime?.catch(() => {}); // awaited below; a failure to start is reported there
      this.step('README programs: type-check as ESM and CommonJS (tsc --strict, nodenext, skipLibCheck false)');
      const programs = await this.compilePrograms();
      this.step(`README programs: run with node, ${RUN_WIDTH} at a time (ESM, then CommonJS; those sharing OVS or the API server one after another)`);
      await this.runPrograms(programs, runtime);
    } catch (e) {
      this.fail('*', e.stack ?? String(e));
    } finally {
      const env = await runtime?.catch(() => undefined);
      await env?.stop().catch((e) => this.fail('*', `stopping OVS / the API server: ${e.message}`));
    }
  }

  /** Adds the non-Switchyard packages README programs import, at the workspace's versions. */
  async installExampleDependencies(project) {
    const names = new Set();
    for (const p of this.packages) for (const b of p.blocks) for (const s of importedSpecifiers(b.code)) names.add(packageOf(s));
    const specs = [];
    for (const name of [...names].filter((n) => n && !n.startsWith('@switchyard/')).sort()) {
      const v = workspaceVersion(this.root, name);
      if (!v) this.fail('*', `a README imports ${name}, which the workspace does not have: add it to a package or drop it`);
      else specs.push(`${name}@${v}`);
      for (const [companion, cv] of Object.entries(TYPE_COMPANIONS[name] ?? {})) specs.push(`${companion}@${cv}`);
    }
    if (specs.length > 0) await project.install(...specs);
  }

  checkManifests() {
    const rootLicense = readFileSync(join(this.root, 'LICENSE'), 'utf8');
    for (const p of this.checked) {
      const dir = join(this.scratch, 'node_modules', p.name);
      const pkg = readJson(join(dir, 'package.json'));
      for (const msg of [
        ...checkLicense({ files: p.files, unpackedDir: dir, rootLicense }),
        ...checkRepository({ pkg, dir: p.location, repoUrl: REPO_URL }),
        ...checkReadmeLinks({ readme: p.readme, files: p.files }),
        ...checkDeclarationDeps({ pkg, unpackedDir: dir }),
      ]) {
        this.fail(p.name, msg);
      }
    }
  }

  async checkEntryTypes() {
    const dir = join(this.scratch, 'entries');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // `import type * as entryN from '<entry>'` for every entry: loads each entry's declarations.
    for (const p of this.checked) {
      const lines = p.entries.map((e, i) => `import type * as entry${i} from '${e}';`);
      const text = `${lines.join('\n')}\nexport type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];\n`;
      writeFileSync(join(dir, `${p.short}.mts`), text);
      writeFileSync(join(dir, `${p.short}.cts`), text);
    }
    writeFileSync(join(this.scratch, 'tsconfig.entries.json'), JSON.stringify({ compilerOptions: { ...STRICT, noEmit: true }, include: ['entries'] }));
    for (const d of await tsc(this.scratch, 'tsconfig.entries.json')) {
      // Charged to every package whose entries reach the file (its own declarations or a dependency's).
      const owners = this.checked.filter((x) => d.roots.some((r) => r === `entries/${x.short}.mts` || r === `entries/${x.short}.cts`));
      for (const owner of owners.length ? owners : [{ name: '*' }]) this.fail(owner.name, `types: ${d.file}:${d.line}: ${d.code} ${d.text}`);
    }
  }

  async checkNode10() {
    const dir = join(this.scratch, 'node10');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'src'), { recursive: true });
    for (const p of this.checked) {
      const lines = p.entries.map((e, i) => `import * as entry${i} from '${e}';`);
      lines.push(`export type Entries = [${p.entries.map((_, i) => `typeof entry${i}`).join(', ')}];`);
      writeFileSync(join(dir, 'src', `${p.short}.ts`), `${lines.join('\n')}\n`);
    }
    const compilerOptions = { strict: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', lib: ['es2023'], types: ['node'], noEmit: true, skipLibCheck: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, typeRoots: ['../node_modules/@types'] }, include: ['src'] }));
    for (const d of await tsc(dir, 'tsconfig.json', join(this.scratch, 'node_modules/.bin/tsc'))) {
      const owner = this.checked.find((x) => d.file === `src/${x.short}.ts`);
      this.fail(owner?.name ?? '*', `node10: ${d.file}:${d.line}: ${d.code} ${d.text}`);
    }
  }

  async checkOneCopy() {
    for (const p of this.checked.filter((x) => x.entries.length > 1)) {
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
          const { stdout } = await execFile('node', args, { cwd: this.scratch, encoding: 'utf8', maxBuffer: 64 << 20 });
          for (const msg of JSON.parse(stdout.trim().split('\n').pop())) this.fail(p.name, `${flavour}: ${msg} (two copies: instanceof fails across entries)`);
        } catch (e) {
          this.fail(p.name, `${flavour}: loading the entries failed: ${e.stderr ?? e.message}`);
        }
      }
    }
  }

  async checkPurity() {
    const esbuild = await import('esbuild');
    const ownerOf = (entry) => this.packages.find((p) => entry === p.name || entry.startsWith(`${p.name}/`));
    const pureRoots = this.packages.filter((p) => (p.pkg.nx?.tags ?? []).includes('purity:pure')).map((p) => p.name);
    // Light: what a pure package may import. apis' root is pure (no I/O) but carries ajv/protobufjs.
    const light = [...PURE_SUBPATHS, ...pureRoots.filter((r) => !HEAVY.some((h) => h in (ownerOf(r).pkg.dependencies ?? {})))];
    for (const entry of [...pureRoots, ...PURE_SUBPATHS]) {
      const owner = ownerOf(entry);
      if (!this.checked.includes(owner)) continue;
      const forbidden = light.includes(entry) ? HEAVY : [];
      for (const msg of await bundleProblems({ esbuild, scratch: this.scratch, entry, forbidden })) this.fail(owner.name, msg);
      if (light.includes(entry)) {
        for (const msg of declarationProblems({ scratch: this.scratch, entry, pureEntries: light, forbidden: HEAVY })) this.fail(owner.name, msg);
      }
    }
  }

  /** Writes each README block as src/<pkg>/block-N.mts and .cts and type-checks them in one tsc run. */
  async compilePrograms() {
    for (const d of ['src', 'out', 'tmp']) rmSync(join(this.scratch, d), { recursive: true, force: true });
    const programs = [];
    for (const p of this.checked) {
      const dir = join(this.scratch, 'src', p.short);
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
    writeFileSync(join(this.scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...STRICT, rootDir: 'src', outDir: 'out', noEmitOnError: false }, include: ['src'] }));
    for (const d of await tsc(this.scratch, 'tsconfig.json')) {
      const m = /^src\/([^/]+)\/block-(\d+)\.(mts|cts)$/.exec(d.file);
      const b = m && this.checked.find((x) => x.short === m[1])?.blocks.find((x) => x.index === Number(m[2]));
      if (!b) {
        this.fail(this.checked.find((x) => d.file.includes(`node_modules/${x.name}/`))?.name ?? '*', `type error in ${d.file}:${d.line}: ${d.code} ${d.text}`);
        continue;
      }
      b.result.compiled = false;
      // .mts lines are README lines; .cts lines are of the generated file (kept with --keep).
      const where = m[3] === 'mts' ? `README.md:${b.line + d.line}` : `${d.file}:${d.line}`;
      b.result.errors.push(`${m[3] === 'mts' ? 'ESM' : 'CJS'} ${where}: ${d.code} ${d.text}`);
    }
    return programs;
  }

  /**
   * Runs every compiled `run` block, its ESM program before its CJS one, RUN_WIDTH at a time with
   * OVS and the API server up (`runtime`: a promise of startRuntimeEnv's result).
   */
  async runPrograms(programs, runtime) {
    const runnable = programs.filter(({ b }) => b.mode === 'run' && b.result.compiled);
    if (runnable.length === 0) return;
    const env = { ...process.env, ...(await runtime).env };
    const tasks = runnable.flatMap(({ p, b }) =>
      ['esm', 'cjs'].map((flavour) => ({
        locks: [`${p.name} block ${b.index}`, ...sharedServers(b.code)],
        run: () => this.runProgram({ p, b, flavour, env }),
      })),
    );
    await runPool(tasks, RUN_WIDTH);
  }

  async runProgram({ p, b, flavour, env }) {
    const file = join('out', p.short, `block-${b.index}.${flavour === 'esm' ? 'mjs' : 'cjs'}`);
    const t = Date.now();
    try {
      // The examples make temporary directories as a user's program would and leave them;
      // TMPDIR inside the scratch directory puts them where this run removes them.
      const tmp = join(this.scratch, 'tmp', `${p.short}-${b.index}-${flavour}`);
      mkdirSync(tmp, { recursive: true });
      const { stdout } = await execFile('node', [file], { cwd: this.scratch, env: { ...env, TMPDIR: tmp }, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 << 20 });
      b.result[flavour] = true;
      if (this.print && flavour === 'esm') this.log(`--- ${p.name} block ${b.index} (${Date.now() - t} ms)\n${stdout.trimEnd()}`);
    } catch (e) {
      b.result[flavour] = false;
      const why = e.killed ? `killed after ${RUN_TIMEOUT_MS} ms` : `exit ${e.code}`;
      const tail = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim().split('\n').slice(-15).join('\n    ');
      b.result.errors.push(`${flavour.toUpperCase()} run (${why}, ${Date.now() - t} ms):\n    ${tail}`);
    }
  }

  /** Prints the table per package and every problem; returns the names of the failing packages ('*': the check itself). */
  report() {
    const frac = (n, d) => (d === 0 ? '-' : `${n}/${d}`);
    const rows = [['package', 'blocks', 'compiled', 'ran ESM', 'ran CJS', 'compile-only', 'no-check', 'problems']];
    for (const p of this.checked) {
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
        String((this.problems.get(p.name)?.length ?? 0) + p.blocks.filter((b) => b.result?.errors.length).length),
      ]);
    }
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    this.log('');
    for (const r of rows) this.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
    const failed = new Set();
    for (const p of this.checked) {
      for (const b of p.blocks.filter((x) => x.result?.errors.length)) {
        failed.add(p.name);
        this.log(`\n${p.name} README block ${b.index} (README.md:${b.line}):`);
        for (const e of b.result.errors) this.log(`  ${e}`);
      }
      // A block never reached (an earlier step threw) has no result: that is a failure too.
      if (p.blocks.some((b) => b.mode !== 'no-check' && !b.result)) failed.add(p.name);
    }
    for (const [name, msgs] of this.problems) {
      failed.add(name);
      this.log(`\n${name === '*' ? 'check' : name}:`);
      for (const m of msgs) this.log(`  ${m}`);
    }
    const names = [...failed].map((n) => (n === '*' ? 'the check itself' : n));
    this.log(`\nnpm consumers: ${failed.size ? `FAILED (${names.join(', ')})` : 'ok'} in ${this.elapsed()}`);
    return [...failed];
  }
}
