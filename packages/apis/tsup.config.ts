import { defineConfig } from 'tsup';

export default defineConfig({
  // `types`: the pure entry (types + IP helpers) for pure packages; see src/types.ts.
  entry: { index: 'src/index.ts', types: 'src/types.ts' },
  format: ['esm', 'cjs'],
  // Entries share chunks in both formats, so a class exported by two entries is one class.
  splitting: true,
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
});
