import { defineConfig } from 'tsup';
import { bundling, executable, library } from '../../tsup.shared';

// The controller carries its own @kubernetes/client-node (see `bundling`).
export default defineConfig([library({ index: 'src/index.ts' }), executable({ cli: 'src/cli.ts' }, bundling(['@kubernetes/client-node']))]);
