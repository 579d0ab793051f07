import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', codec: 'src/codec.ts' },
  format: ['esm', 'cjs'],
  // Entries share chunks in both formats, so a class exported by two entries is one class
  // (`require(pkg).X === require(pkg/subpath).X`; instanceof works across entry points).
  splitting: true,
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
});
