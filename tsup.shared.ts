// The build every package shares, so a package's tsup.config.ts says only what is its own
// (entries, binaries, bundling exceptions) and a change of target or format is made once.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Options } from 'tsup';
// @ts-expect-error: a plain ES module of the workspace's scripts, without declarations of its own
import { bundleDeclarations } from './scripts/declarations.mjs';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const common = { sourcemap: true, target: 'node20', tsconfig: 'tsconfig.build.json' } satisfies Options;

/**
 * A library: ESM + CJS + .d.ts of each entry. With more than one entry the entries share chunks
 * in both formats, so a class exported by two entries is one class
 * (`require(pkg).X === require(pkg/subpath).X`; instanceof works across entry points).
 * The .d.ts bundles are written after the JavaScript (onSuccess) from the workspace's declarations,
 * emitted for every package at once by scripts/declarations.mjs (one TypeScript program, cached by a
 * hash of the sources) and bundled with rollup-plugin-dts: tsup's own `dts` option runs the same
 * bundler over a TypeScript program per package, which was 70 % of the build's CPU.
 */
export function library(entry: Record<string, string>): Options {
  const onSuccess = async (): Promise<void> => bundleDeclarations(process.cwd(), entry);
  return { ...common, entry, format: ['esm', 'cjs'], dts: false, onSuccess, clean: true, ...(Object.keys(entry).length > 1 ? { splitting: true } : {}) };
}

/**
 * An executable next to the library: ESM only, started with a shebang; it does not clean dist/
 * (the library build owns that). `extra` adds what one binary needs (bundled dependencies, ...).
 */
export function executable(entry: Record<string, string>, extra: Options = {}): Options {
  return { ...common, entry, format: ['esm'], dts: false, clean: false, banner: { js: '#!/usr/bin/env node' }, ...extra };
}

/**
 * Options of an executable that carries its own copy of `packages` (and what they import from
 * node_modules): one file to load instead of thousands of modules. @kubernetes/client-node is the
 * case: 2,556 ESM modules that take 1.3 s of CPU to load on Node 20, 0.2 s bundled and tree-shaken
 * (measured on the 2-core CI machine). The bundled CommonJS code gets a real `require`, and the
 * licences of every bundled third-party package go to `dist/<entry>.THIRD-PARTY-NOTICES.txt`.
 */
export function bundling(packages: (string | RegExp)[]): Options {
  return {
    noExternal: packages,
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);" },
    esbuildOptions(o) {
      o.metafile = true;
    },
    esbuildPlugins: [thirdPartyNotices()],
  };
}

/** An esbuild plugin writing, per entry point, the name, version, licence and licence text of each bundled node_modules package. */
function thirdPartyNotices(): Plugin {
  return {
    name: 'third-party-notices',
    setup(build) {
      build.onEnd((result) => {
        const meta = result.metafile;
        if (!meta) return;
        for (const [outFile, out] of Object.entries(meta.outputs)) {
          if (!out.entryPoint || !outFile.endsWith('.js')) continue;
          // The entry's own inputs and those of the chunks it imports (code splitting).
          const inputs = new Set<string>();
          const seen = new Set<string>();
          const visit = (file: string): void => {
            const o = meta.outputs[file];
            if (!o || seen.has(file)) return;
            seen.add(file);
            for (const i of Object.keys(o.inputs)) inputs.add(i);
            for (const imp of o.imports) visit(imp.path);
          };
          visit(outFile);
          const roots = new Set<string>();
          for (const input of inputs) {
            const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
            if (m && !m[1]!.includes('node_modules/@switchyard/')) roots.add(m[1]!);
          }
          const notice = join(dirname(outFile), `${basename(outFile, '.js')}.THIRD-PARTY-NOTICES.txt`);
          if (roots.size === 0) {
            rmSync(notice, { force: true });
            continue;
          }
          const parts = [...roots].sort().map((root) => {
            const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
            const file = readdirSync(root).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
            const text = file ? readFileSync(join(root, file), 'utf8').trim() : `(no licence file in the package; package.json says ${pkg.license ?? 'nothing'})`;
            return `${pkg.name} ${pkg.version} (${pkg.license ?? 'licence not stated'})\n\n${text}\n`;
          });
          mkdirSync(dirname(notice), { recursive: true });
          writeFileSync(notice, `${basename(outFile)} bundles these packages; their licences follow.\n\n${parts.join(`\n${'-'.repeat(72)}\n\n`)}`);
        }
      });
    },
  };
}
