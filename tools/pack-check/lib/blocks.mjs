// README code blocks as consumer programs: extraction of ```ts fences, the packages they import,
// and the CommonJS form of an ES module program (imports first, the rest in an async IIFE).
import { builtinModules } from 'node:module';
import ts from 'typescript';

/**
 * Fence info strings, after `ts` / `typescript`:
 * - (none): a complete program, type-checked as ESM and CommonJS and run with node;
 * - `compile-only`: a complete program that needs a real cluster (an agent, a controller),
 *   type-checked both ways but not run;
 * - `no-check`: a fragment (a signature, a test-runner line), neither checked nor run. Keep rare.
 */
export const FENCE_MODES = ['run', 'compile-only', 'no-check'];

/**
 * Every ```ts / ```typescript fence of a Markdown text, in order, with its 1-based number among
 * them, its line and mode.
 * @returns {{ index: number, line: number, mode: 'run' | 'compile-only' | 'no-check', code: string }[]}
 */
export function extractTsBlocks(markdown) {
  const out = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+|~~~+)\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, info] = open;
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) j++;
    if (lang === 'ts' || lang === 'typescript') {
      const flag = info.trim();
      if (flag !== '' && !FENCE_MODES.includes(flag)) {
        throw new Error(`line ${i + 1}: unknown fence flag "${flag}" (use ${FENCE_MODES.slice(1).join(' or ')})`);
      }
      const code = lines
        .slice(i + 1, j)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n');
      out.push({ index: out.length + 1, line: i + 1, mode: flag === '' ? 'run' : flag, code: `${code}\n` });
    }
    i = j;
  }
  return out;
}

const builtins = new Set(builtinModules);

/** Package name of a bare module specifier (`@a/b/c` -> `@a/b`, `x/y` -> `x`); undefined for relative and node built-ins. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? undefined : name;
}

/** Module specifiers of a program's import declarations (static and `import x = require()`). */
export function importedSpecifiers(code) {
  const sf = ts.createSourceFile('block.mts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) out.push(st.moduleSpecifier.text);
    if (ts.isImportEqualsDeclaration(st) && ts.isExternalModuleReference(st.moduleReference)) {
      const e = st.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    }
  }
  return out;
}

const exported = (st) => ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/**
 * The CommonJS form of an ES module program, for a `.cts` file: the import declarations stay at
 * the top (TypeScript turns them into require() calls), everything else runs inside an async
 * function so that top-level await keeps working; a rejection exits 1 like an uncaught top-level
 * error does in ESM, and a program whose event loop drains before it settles exits 13 as ESM does.
 */
export function toCommonJs(code) {
  const sf = ts.createSourceFile('block.mts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const head = [];
  const body = [];
  for (const st of sf.statements) {
    const text = code.slice(st.getFullStart(), st.getEnd());
    if (ts.isImportDeclaration(st) || ts.isImportEqualsDeclaration(st)) head.push(text.replace(/^\n+/, ''));
    else if (ts.isExportDeclaration(st) || ts.isExportAssignment(st) || exported(st)) throw new Error('a README program exports nothing');
    else body.push(text);
  }
  const trailing = code.slice(sf.statements.length ? sf.statements[sf.statements.length - 1].getEnd() : 0);
  // Not re-indented: that would change multi-line template literals.
  const inner = `${body.join('')}${trailing}`.replace(/^\n+/, '').replace(/\s+$/, '');
  // ESM exits with 13 when the event loop drains while top-level await is pending; do the same.
  return [
    head.join('\n'),
    '',
    'let readmeProgramSettled = false;',
    "process.on('exit', () => {",
    '  if (readmeProgramSettled) return;',
    "  console.error('Warning: Detected unsettled top-level await (the program ended while still waiting)');",
    '  process.exitCode = 13;',
    '});',
    'void (async () => {',
    inner,
    '})().then(',
    '  () => {',
    '    readmeProgramSettled = true;',
    '  },',
    '  (err: unknown) => {',
    '    readmeProgramSettled = true;',
    '    console.error(err);',
    '    process.exit(1);',
    '  },',
    ');',
    '',
  ].join('\n');
}
