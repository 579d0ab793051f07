// The committed generated types are what scripts/gen-types.ts produces from the committed schema copy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vswitchSchemaJson, bundledVswitchSchema } from '../src/index';

test('src/gen is up to date with the generator (run `npm run generate` after changing it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ovsdb-gen-'));
  try {
    const schemaPath = join(dir, 'vswitch.ovsschema');
    writeFileSync(schemaPath, JSON.stringify(vswitchSchemaJson));
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/gen-types.ts', schemaPath, dir, 'vswitch'], {
      cwd: join(__dirname, '..'),
    });
    expect(readFileSync(join(dir, 'vswitch.ts'), 'utf8')).toBe(
      readFileSync(join(__dirname, '../src/gen/vswitch.ts'), 'utf8'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundled schema parses with the implicit columns and the constraints the helpers rely on', () => {
  const s = bundledVswitchSchema();
  expect(s.name).toBe('Open_vSwitch');
  expect(s.tables.Bridge!.columns._uuid!.type.key.type).toBe('uuid');
  expect(s.tables.Interface!.columns.ofport_request!.type).toEqual({
    key: { type: 'integer', minInteger: 1, maxInteger: 65279 },
    min: 0,
    max: 1,
  });
  expect(s.tables.Bridge!.columns.fail_mode!.type.key.enum).toEqual(['standalone', 'secure']);
  expect(s.tables.Open_vSwitch!.isRoot).toBe(true);
});
