// README fences become programs: which blocks, in which mode, and a CommonJS form that behaves as
// the ES module does (top-level await, a rejection exits 1, an unsettled await exits 13).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { extractTsBlocks, importedSpecifiers, packageOf, toCommonJs } from '../lib/blocks.mjs';

const readme = [
  '# pkg',
  '```sh',
  'npm install pkg',
  '```',
  '```ts',
  "import { a } from 'pkg';",
  'console.log(a);',
  '```',
  '- a list item with a nested block:',
  '  ```ts compile-only',
  "  import { b } from 'pkg/sub';",
  '  await b();',
  '  ```',
  '```typescript no-check',
  'signature(x: number): void;',
  '```',
].join('\n');

describe('extractTsBlocks', () => {
  it('numbers ts and typescript fences in order with their line and mode, and skips other languages', () => {
    const blocks = extractTsBlocks(readme);
    expect(blocks.map((b) => [b.index, b.line, b.mode])).toEqual([
      [1, 5, 'run'],
      [2, 10, 'compile-only'],
      [3, 14, 'no-check'],
    ]);
    expect(blocks[0]?.code).toBe("import { a } from 'pkg';\nconsole.log(a);\n");
    // The fence's indentation is removed from an indented block.
    expect(blocks[1]?.code).toBe("import { b } from 'pkg/sub';\nawait b();\n");
  });

  it('refuses an unknown fence flag, naming the line', () => {
    expect(() => extractTsBlocks('x\n```ts skip\nfoo\n```\n')).toThrow('line 2: unknown fence flag "skip"');
  });
});

describe('imports', () => {
  it('lists the module specifiers and maps them to package names, leaving built-ins out', () => {
    const code = "import { x } from '@scope/pkg/sub';\nimport type { Y } from 'yaml';\nimport fs from 'node:fs';\nimport path from 'path';\nimport q = require('./local');\n";
    expect(importedSpecifiers(code)).toEqual(['@scope/pkg/sub', 'yaml', 'node:fs', 'path', './local']);
    expect(importedSpecifiers(code).map(packageOf)).toEqual(['@scope/pkg', 'yaml', undefined, undefined, undefined]);
  });
});

describe('toCommonJs', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pack-check-cjs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Transpiles the CommonJS form as tsc does for a .cts file and runs it with node. */
  const runCjs = (program: string) => {
    const cjs = toCommonJs(program);
    const js = ts.transpileModule(cjs, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = join(dir, `p${Math.random().toString(36).slice(2)}.cjs`);
    writeFileSync(file, js);
    return { cjs, ...spawnSync(process.execPath, [file], { encoding: 'utf8' }) };
  };

  it('keeps imports on top and runs the rest, top-level await included, in order', () => {
    const r = runCjs("// a comment\nimport { setTimeout as sleep } from 'node:timers/promises';\n\nconsole.log('a');\nawait sleep(5);\nconst t = `x\n  y`;\nconsole.log(t);\n");
    expect(r.cjs.startsWith("// a comment\nimport { setTimeout as sleep } from 'node:timers/promises';\n")).toBe(true);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('a\nx\n  y\n');
  });

  it('exits 1 with the error when the program throws, as an ES module does', () => {
    const r = runCjs("await Promise.resolve();\nthrow new Error('boom');\n");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('boom');
  });

  it('exits 13 when the event loop drains while the program still awaits, as an ES module does', () => {
    const r = runCjs('await new Promise(() => {});\nconsole.log("never");\n');
    expect(r.status).toBe(13);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unsettled top-level await');
  });

  it('refuses a program that exports', () => {
    expect(() => toCommonJs('export const x = 1;\n')).toThrow('exports nothing');
  });
});
