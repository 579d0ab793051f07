// Pure entries (no I/O, usable in a browser bundle) as a user installs them: their code must
// bundle for a neutral platform without a Node built-in, and their declarations must reach only
// other pure entries (a type import of `@switchyard/apis` pulls protobufjs' and long's types).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { packageOf } from './blocks.mjs';

const builtins = new Set(builtinModules);
const isBuiltin = (spec) => spec.startsWith('node:') || builtins.has(spec.split('/')[0]);

/**
 * Bundles `entry` (ESM, `import` condition) from the scratch project's node_modules for
 * platform `neutral`; returns problems: Node built-ins reached (with the importing file) and
 * modules of `forbidden` packages in the bundle.
 */
export async function bundleProblems({ esbuild, scratch, entry, forbidden }) {
  const problems = [];
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
              if (!isBuiltin(a.path)) return undefined;
              nodeImports.push(`${a.path} (imported by ${a.importer.replace(`${scratch}/`, '')})`);
              return { path: a.path, external: true };
            });
          },
        },
      ],
    });
    for (const n of nodeImports) problems.push(`${entry} bundles a Node built-in: ${n}`);
    const inputs = Object.keys(result.metafile.inputs);
    for (const name of forbidden) {
      const hit = inputs.find((i) => i.includes(`node_modules/${name}/`));
      if (hit) problems.push(`${entry} bundles ${name} (${hit})`);
    }
  } catch (e) {
    problems.push(`${entry}: bundling for platform neutral failed: ${e.message}`);
  }
  return problems;
}

/** The `import` types file of an export entry, resolved in node_modules. */
function typesOf(scratch, entry) {
  const name = packageOf(entry);
  const dir = join(scratch, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const key = entry === name ? '.' : `./${entry.slice(name.length + 1)}`;
  const target = pkg.exports?.[key]?.import?.types ?? (key === '.' ? pkg.types : undefined);
  return target ? resolve(dir, target) : undefined;
}

const specifiers = (text) => [
  ...[...text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]),
  ...[...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
];

/**
 * Bare modules the declarations of `entry` import, following its relative imports (shared
 * chunks); each with the declaration file that imports it.
 */
export function declarationImports(scratch, entry) {
  const start = typesOf(scratch, entry);
  if (!start) return [{ spec: '(no types)', from: entry }];
  const seen = new Set();
  const out = [];
  const todo = [start];
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts')));
      else out.push({ spec, from: file.replace(`${scratch}/node_modules/`, '') });
    }
  }
  return out;
}

/** A pure entry's declarations import only pure entries, no Node built-in and no forbidden package. */
export function declarationProblems({ scratch, entry, pureEntries, forbidden }) {
  const problems = [];
  for (const { spec, from } of declarationImports(scratch, entry)) {
    const name = packageOf(spec);
    if (isBuiltin(spec)) problems.push(`${entry}: ${from} imports the Node built-in ${spec}`);
    else if (name?.startsWith('@switchyard/') && !pureEntries.includes(spec)) {
      problems.push(`${entry}: ${from} imports ${spec}, which is not a pure entry (its types pull ${forbidden.join('/')} or I/O)`);
    } else if (forbidden.includes(name)) problems.push(`${entry}: ${from} imports ${spec}`);
  }
  return problems;
}
