import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

// The CLI uses top-level await (so ESM only) and carries its own shebang.
export default defineConfig([library({ index: 'src/index.ts', testing: 'src/testing.ts' }), executable({ cli: 'src/cli.ts' }, { banner: {} })]);
