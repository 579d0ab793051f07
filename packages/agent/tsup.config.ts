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
    // The agent binary: ESM only, with a shebang; dependencies stay external.
    entry: { 'agent-cli': 'src/cli.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    clean: false,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The CNI plugin is exec'd once per pod operation: one self-contained file, node: builtins only.
    entry: { 'switchyard-cni': 'src/cni/plugin/main.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    noExternal: [/.*/],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
