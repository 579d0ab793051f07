import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

export default defineConfig([
  library({ index: 'src/index.ts' }),
  // The agent binary; dependencies stay external.
  executable({ 'agent-cli': 'src/cli.ts' }),
  // The kubeconfig resolver the agent runs as a short-lived child (client-node stays out of the agent).
  executable({ 'kube-config-resolve': 'src/kube-config-resolve.ts' }),
  // The CNI plugin is exec'd once per pod operation: one self-contained file, node: builtins only.
  executable({ 'switchyard-cni': 'src/cni/plugin/main.ts' }, { sourcemap: false, noExternal: [/.*/] }),
]);
