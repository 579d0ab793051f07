import { defineConfig } from 'tsup';
import { executable, library } from '../../tsup.shared';

/**
 * The lab's programs, built for runs that built every package first (`SWITCHYARD_PREBUILT=1`, as
 * npm test sets): bin/switchyard-lab runs dist/cli.js, which starts dist/supervisor.js, and the
 * probers in the pods' netns run dist/prober.js; otherwise all three run from source through tsx.
 * Measured on the 2-core CI machine: `switchyard-lab --help` 6.0 s of CPU through tsx, 0.4 s from
 * here. @kubernetes/client-node is bundled (tree-shaken: 1.3 s of CPU to load its 2,556 modules,
 * 0.2 s as one file); what it requires from CommonJS gets a real `require`.
 */
const programs = executable(
  { cli: 'src/cli.ts', supervisor: 'src/supervisor.ts', prober: 'src/prober.ts' },
  {
    noExternal: ['@kubernetes/client-node'],
    banner: { js: "import { createRequire as __labCreateRequire } from 'node:module';\nconst require = __labCreateRequire(import.meta.url);" },
    sourcemap: false,
  },
);

export default defineConfig([library({ index: 'src/index.ts' }), programs]);
