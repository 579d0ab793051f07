// The import-cycle check (scripts/import-cycles.mjs, run by `npm run lint` and the CI's lint
// stage) finds cycles through type-only imports and re-exports, and passes a tree without one.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '../../..');
const script = join(root, 'scripts/import-cycles.mjs');

function run(dir: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, dir], (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }));
  });
}

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), text);
  }
  return dir;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('import cycles', () => {
  it('finds a cycle made only of type imports and re-exports, naming every file in it', async () => {
    const dir = tree({
      'options.ts': `import type { Part } from './parts/part';\nexport interface Options { part?: Part }\n`,
      'parts/part.ts': `export type { Ctx } from '../context';\nexport interface Part { name: string }\n`,
      'context.ts': `import type { Options } from './options.js';\nexport interface Ctx { o: Options }\n`,
      'leaf.ts': `import type { Ctx } from './context';\nexport type L = Ctx;\n`,
    });
    dirs.push(dir);
    const r = await run(dir);
    expect(r.code).toBe(1);
    const line = r.stdout.split('\n').find((l) => l.startsWith('cycle: '));
    expect(line?.split(' <-> ').map((p) => p.replace(/^cycle: /, '').slice(-20))).toEqual([
      expect.stringMatching(/src\/context\.ts$/),
      expect.stringMatching(/src\/options\.ts$/),
      expect.stringMatching(/src\/parts\/part\.ts$/),
    ]);
    expect(r.stdout).not.toContain('leaf.ts');
  });

  it('passes a tree whose imports only point one way, dynamic imports and index files included', async () => {
    const dir = tree({
      'index.ts': `export * from './a';\nexport const later = () => import('./b');\n`,
      'a/index.ts': `import { b } from '../b';\nexport const a = b;\n`,
      'b.ts': `export const b = 1;\n`,
    });
    dirs.push(dir);
    expect(await run(dir)).toEqual({ code: 0, stdout: 'no import cycles (type-only imports included)\n' });
  });

  it('finds a cycle through a dynamic import and an index file', async () => {
    const dir = tree({ 'a/index.ts': `export const a = () => import('../b');\n`, 'b.ts': `export { a } from './a';\n` });
    dirs.push(dir);
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('1 import cycle(s)');
  });
});
