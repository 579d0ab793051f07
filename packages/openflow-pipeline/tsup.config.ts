import { defineConfig } from 'tsup';
import { library } from '../../tsup.shared';

export default defineConfig(library({ index: 'src/index.ts', testing: 'src/testing.ts' }));
