import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
  },
  {
    // The CLI uses top-level await: ESM only.
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
  },
]);
