import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every module reachable from src/codec.ts, by following relative imports. */
function reachable(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/from '(\.[^']+)'/g)) visit(join(file, '..', `${m[1]!.replace(/\.js$/, '')}.ts`));
  };
  visit(entry);
  return seen;
}

/** Packages the codec may import: apis' dependency-free entry (the shared IPv6 formatter). */
const pureImports = new Set(['@switchyard/apis/types']);

it('the codec subpath reaches no Node I/O module and no Buffer', () => {
  const files = reachable(join(__dirname, '../src/codec.ts'));
  expect([...files.keys()].map((f) => f.split('/').pop())).not.toContain('connection.ts');
  for (const [file, text] of files) {
    const imports = [...text.matchAll(/from '([^.'][^']*)'/g)].map((m) => m[1]!);
    expect({ file, imports: imports.filter((i) => !pureImports.has(i)) }).toEqual({ file, imports: [] });
    expect({ file, buffer: /\bBuffer\./.test(text) }).toEqual({ file, buffer: false });
  }
});
