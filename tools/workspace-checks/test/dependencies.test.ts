// Dependencies are declared where they are used, and only those: lint rejects an import that the
// importing file's package.json does not allow for the file's scope (scripts/dependency-scopes.mjs)
// and an import cycle inside a package's src/; scripts/check-dependencies.mjs, which every
// package's `lint` runs after eslint, rejects a declared dependency that nothing imports.
// Probe packages are written to a scratch directory whose node_modules is the workspace's, so their
// imports resolve as they would inside the workspace, and checked with the real eslint CLI and the
// real check script.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '../../..');
const checkScript = join(root, 'scripts/check-dependencies.mjs');

interface LintResult {
  filePath: string;
  messages: Array<{ ruleId: string | null; message: string }>;
}
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const files: Record<string, string> = {};
const write = (path: string, text: string): string => {
  files[path] = text;
  return path;
};
const manifest = (name: string, deps: Record<string, string> = {}, devDeps: Record<string, string> = {}): string =>
  JSON.stringify({ name, version: '0.0.0', type: 'module', dependencies: deps, devDependencies: devDeps });

// Lint probes: one package with ip-address in dependencies and yaml in devDependencies.
write('packages/probe/package.json', manifest('@probe/probe', { 'ip-address': '10.7.6' }, { yaml: '2.8.1' }));
const declared = write('packages/probe/src/declared.ts', `import { Address4 } from 'ip-address';\nexport const a = Address4;\n`);
const undeclared = write('packages/probe/src/undeclared.ts', `import { Command } from 'commander';\nexport const c = Command;\n`);
const devInSrc = write('packages/probe/src/dev-only.ts', `import { parse } from 'yaml';\nexport const p = parse;\n`);
const typeInSrc = write('packages/probe/src/type-only.ts', `import type { Document } from 'yaml';\nexport type D = Document;\n`);
const workspaceInSrc = write('packages/probe/src/workspace.ts', `import type { NetworkPolicy } from '@switchyard/apis';\nexport type N = NetworkPolicy;\n`);
const devInTest = write('packages/probe/test/dev.test.ts', `import { parse } from 'yaml';\nexport const p = parse;\n`);
const rootDevInTest = write('packages/probe/test/root-dev.test.ts', `import fc from 'fast-check';\nexport const f = fc;\n`);
const rootDevInBench = write('packages/probe/bench/run.ts', `import fc from 'fast-check';\nexport const f = fc;\n`);
const rootDevInConfig = write('packages/probe/tsup.config.ts', `import { defineConfig } from 'tsup';\nexport default defineConfig({});\n`);
const cycleA = write('packages/probe/src/cycle/a.ts', `import { b } from './b.js';\nexport const a = (): unknown => b;\n`);
const cycleB = write('packages/probe/src/cycle/b.ts', `import { a } from './a';\nexport const b = (): unknown => a;\n`);
const cycleC = write('packages/probe/src/cycle/index.ts', `export { c } from './c';\n`);
const cycleD = write('packages/probe/src/cycle/c.ts', `import { a } from '.';\nexport const c = (): unknown => a;\n`);
const typeCycleA = write('packages/probe/src/types/a.ts', `import { b } from './b';\nexport interface A { n: number }\nexport const a = b;\n`);
const typeCycleB = write('packages/probe/src/types/b.ts', `import type { A } from './a';\nexport const b = (x: A): number => x.n;\n`);

// Check-script probes: each package is checked on its own.
write('packages/unused/package.json', manifest('@probe/unused', { 'ip-address': '10.7.6', commander: '14.0.3', yaml: '2.8.1' }, { 'fast-check': '4.10.2' }));
write('packages/unused/src/index.ts', `import { Address4 } from 'ip-address';\nexport const a = Address4;\n`);
write('packages/unused/src/gen/types.d.ts', `import Long = require('long');\nexport type L = Long;\n`);
write('packages/unused/test/x.test.ts', `import { parse } from 'yaml';\nexport const p = parse;\n`);
write('packages/clean/package.json', manifest('@probe/clean', { 'ip-address': '10.7.6' }, { yaml: '2.8.1' }));
write('packages/clean/src/index.ts', `import type { Address4 } from 'ip-address';\nimport { readFileSync } from 'node:fs';\nimport path from 'path';\nexport type A = Address4;\nexport const r = [readFileSync, path];\n`);
write('packages/clean/test/x.test.ts', `import { parse } from 'yaml';\nimport { a } from '@probe/clean';\nexport const p = [parse, a];\n`);
write('packages/clean/jest.config.cjs', `module.exports = require('tsup') && {};\n`);

const run = (file: string, args: string[], cwd: string): Promise<Run> =>
  new Promise((resolve) => {
    // Without NX_TASK_TARGET_PROJECT: the nx tag rule needs a project graph the scratch dir lacks.
    execFile(file, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NX_TASK_TARGET_PROJECT: '' } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

let lint: Map<string, string[]>;
let checks: Record<'unused' | 'clean', Run>;

beforeAll(async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'dependencies-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const [eslint, unused, clean] = await Promise.all([
      run(join(root, 'node_modules/.bin/eslint'), ['-c', join(root, 'eslint.config.mjs'), '--format', 'json', 'packages/probe'], scratch),
      run(process.execPath, [checkScript, 'packages/unused'], scratch),
      run(process.execPath, [checkScript, 'packages/clean'], scratch),
    ]);
    checks = { unused, clean };
    const parsed = JSON.parse(eslint.stdout) as LintResult[];
    lint = new Map(
      parsed.map((r) => [
        r.filePath.slice(scratch.length + 1),
        r.messages.filter((m) => m.ruleId?.startsWith('import-x/')).map((m) => `${m.ruleId}: ${m.message}`),
      ]),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}, 120_000);

const found = (path: string): string[] => {
  const r = lint.get(path);
  if (!r) throw new Error(`eslint did not lint ${path}`);
  return r;
};

describe('lint: undeclared dependencies', () => {
  it('lets shipped code import what dependencies declare', () => {
    expect(found(declared)).toEqual([]);
  });

  it('rejects an import of a package the package.json does not declare', () => {
    expect(found(undeclared)).toEqual([expect.stringMatching(/^import-x\/no-extraneous-dependencies: 'commander' should be listed in the project's dependencies/)]);
  });

  it('rejects a workspace package that is not declared', () => {
    expect(found(workspaceInSrc)).toEqual([expect.stringContaining(`'@switchyard/apis' should be listed in the project's dependencies`)]);
  });

  it('rejects a devDependency in shipped code, type-only imports included', () => {
    for (const path of [devInSrc, typeInSrc]) {
      expect(found(path)).toEqual([expect.stringContaining(`'yaml' should be listed in the project's dependencies, not devDependencies`)]);
    }
  });

  it('lets tests use the devDependencies of their own package, not those of the root', () => {
    expect(found(devInTest)).toEqual([]);
    expect(found(rootDevInTest)).toEqual([expect.stringContaining(`'fast-check' should be listed in the project's dependencies`)]);
    expect(found(rootDevInBench)).toEqual([expect.stringContaining(`'fast-check' should be listed in the project's dependencies`)]);
  });

  it("lets build configuration use the root's devDependencies", () => {
    expect(found(rootDevInConfig)).toEqual([]);
  });
});

describe('lint: import cycles', () => {
  it('rejects a cycle inside src/, by file and through an index', () => {
    for (const path of [cycleA, cycleB, cycleC, cycleD]) {
      expect(found(path)).toEqual([expect.stringMatching(/^import-x\/no-cycle: Dependency cycle/)]);
    }
  });

  it('follows only imports that run: a type-only import back is no cycle', () => {
    expect(found(typeCycleA)).toEqual([]);
    expect(found(typeCycleB)).toEqual([]);
  });
});

describe('check-dependencies', () => {
  it('fails on declared dependencies that shipped code does not import, and on undeclared imports lint skips', () => {
    expect(checks.unused.code).toBe(1);
    const lines = checks.unused.stderr.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `packages/unused/package.json: 'commander' is in dependencies but nothing imports it: remove it`,
        `packages/unused/package.json: 'yaml' is in dependencies but only test/x.test.ts (not shipped) imports it: move it to devDependencies`,
        `packages/unused/package.json: 'fast-check' is in devDependencies but nothing imports it: remove it`,
        `packages/unused/package.json: src/gen/types.d.ts imports 'long', which is not in dependencies or peerDependencies`,
      ]),
    );
    expect(lines.filter((l) => l.includes('ip-address'))).toEqual([]);
    expect(lines).toHaveLength(5); // the four above and the count
  });

  it('passes a package whose declarations match its imports (built-ins and its own name need none)', () => {
    expect(checks.clean).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('the workspace', () => {
  const packages = ['packages', 'tools'].flatMap((top) =>
    readdirSync(join(root, top))
      .map((d) => join(top, d))
      .filter((dir) => existsSync(join(root, dir, 'package.json')))
      .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> } })),
  );

  it.each(packages.filter((p) => p.pkg.scripts?.lint).map((p) => [p.dir, p.pkg] as const))(
    '%s lints every file and checks its dependencies',
    (_dir, pkg) => {
      expect(pkg.scripts?.lint).toBe('eslint . && node ../../scripts/check-dependencies.mjs .');
    },
  );

  it.each(packages.filter((p) => p.pkg.scripts?.bench).map((p) => [p.dir, p.pkg.scripts?.bench] as const))(
    '%s has the benchmark its bench script runs',
    (dir, bench) => {
      const entry = /\S+\.[cm]?[jt]s\b/.exec(bench ?? '')?.[0];
      expect(entry).toBeDefined();
      expect(existsSync(join(root, dir, entry as string))).toBe(true);
    },
  );
});
