import { defineConfig } from 'tsup';
import { bundling, executable, library } from '../../tsup.shared';

/**
 * The lab's programs, built for runs that built every package first (`SWITCHYARD_PREBUILT=1`, as
 * npm test sets): bin/switchyard-lab runs dist/cli.js, which starts dist/supervisor.js, and the
 * probers in the pods' netns run dist/prober.js; otherwise all three run from source through tsx.
 * Measured on the 2-core CI machine: `switchyard-lab --help` 6.0 s of CPU through tsx, 0.4 s from
 * here (@kubernetes/client-node bundled, see `bundling`).
 */
const programs = executable({ cli: 'src/cli.ts', supervisor: 'src/supervisor.ts', prober: 'src/prober.ts' }, { ...bundling(['@kubernetes/client-node']), sourcemap: false });

export default defineConfig([library({ index: 'src/index.ts' }), programs]);
