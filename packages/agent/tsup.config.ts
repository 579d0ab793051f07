import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

export default defineConfig([
  library({ index: 'src/index.ts' }),
  // The agent binary; dependencies stay external.
  executable({ 'agent-cli': 'src/cli.ts' }),
  // The CNI plugin is exec'd once per pod operation: one self-contained file, node: builtins only.
  executable({ 'switchyard-cni': 'src/cni/plugin/main.ts' }, { sourcemap: false, noExternal: [/.*/] }),
]);
