import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

export default defineConfig([library({ index: 'src/index.ts' }), executable({ cli: 'src/cli.ts' })]);
