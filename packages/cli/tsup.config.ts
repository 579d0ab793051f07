import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

// The binary serves as yardctl and as kubectl-yardctl.
export default defineConfig([library({ index: 'src/index.ts' }), executable({ bin: 'src/bin.ts' })]);
