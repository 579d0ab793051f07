// The build every package shares, so a package's tsup.config.ts says only what is its own
// (entries, binaries, bundling exceptions) and a change of target or format is made once.
import type { Options } from 'tsup';

const common = { sourcemap: true, target: 'node20', tsconfig: 'tsconfig.build.json' } satisfies Options;

/**
 * A library: ESM + CJS + .d.ts of each entry. With more than one entry the entries share chunks
 * in both formats, so a class exported by two entries is one class
 * (`require(pkg).X === require(pkg/subpath).X`; instanceof works across entry points).
 */
export function library(entry: Record<string, string>): Options {
  return { ...common, entry, format: ['esm', 'cjs'], dts: true, clean: true, ...(Object.keys(entry).length > 1 ? { splitting: true } : {}) };
}

/**
 * An executable next to the library: ESM only, started with a shebang; it does not clean dist/
 * (the library build owns that). `extra` adds what one binary needs (bundled dependencies, ...).
 */
export function executable(entry: Record<string, string>, extra: Options = {}): Options {
  return { ...common, entry, format: ['esm'], dts: false, clean: false, banner: { js: '#!/usr/bin/env node' }, ...extra };
}
