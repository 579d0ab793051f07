import { defineConfig } from 'tsup';
import { library } from '../../tsup.shared';

// `types`: the pure entry (types + IP helpers) for pure packages; see src/types.ts.
export default defineConfig(library({ index: 'src/index.ts', types: 'src/types.ts' }));
