import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binNodeFlags } from '../src/node-flags';
import { REPO_ROOT } from '../src/lab';

test("the agent's bin entry: the lab starts the agent with its shebang's node flags", () => {
  const flags = binNodeFlags(join(REPO_ROOT, 'packages/agent/bin/switchyard-agent.js'));
  expect(flags).toContain('--heap-growing-percent=50');
  expect(flags.some((f) => f.startsWith('--max-semi-space-size='))).toBe(true);
  expect(flags.every((f) => f.startsWith('--'))).toBe(true);
});

test('a bin without node flags, without a shebang, or missing: none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-flags-'));
  try {
    writeFileSync(join(dir, 'plain'), '#!/usr/bin/env node\nimport "./x.js";\n');
    writeFileSync(join(dir, 'noshebang'), '// --not-a-flag\n');
    writeFileSync(join(dir, 'flags'), '#!/usr/bin/env -S node --a=1  --b\n// --c\n');
    expect(binNodeFlags(join(dir, 'plain'))).toEqual([]);
    expect(binNodeFlags(join(dir, 'noshebang'))).toEqual([]);
    expect(binNodeFlags(join(dir, 'flags'))).toEqual(['--a=1', '--b']);
    expect(binNodeFlags(join(dir, 'missing'))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
