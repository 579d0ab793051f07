// ESM and CJS consumers can load the built package (built here if dist/ is missing).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(__dirname, '..', 'dist');

beforeAll(() => {
  // Build once if this checkout has no dist yet (CI may run tests before `npm run build`).
  if (!existsSync(join(dist, 'index.cjs')) || !existsSync(join(dist, 'index.js'))) {
    execFileSync('npm', ['run', 'build'], { cwd: join(__dirname, '..'), stdio: 'ignore' });
  }
}, 120_000);

test('dist/index.cjs can be required and dist/index.js imported, exposing the same API', () => {
  expect(existsSync(join(dist, 'index.cjs'))).toBe(true);
  const cjs = execFileSync(
    process.execPath,
    [
      '-e',
      `const m = require(${JSON.stringify(join(dist, 'index.cjs'))}); console.log(JSON.stringify([typeof m.OvsdbClient, typeof m.Replica, typeof m.VSwitch, m.ops.commit(true)]))`,
    ],
    { encoding: 'utf8' },
  );
  const esm = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(join(dist, 'index.js'))}); console.log(JSON.stringify([typeof m.OvsdbClient, typeof m.Replica, typeof m.VSwitch, m.ops.commit(true)]))`,
    ],
    { encoding: 'utf8' },
  );
  expect(JSON.parse(cjs)).toEqual(['function', 'function', 'function', { op: 'commit', durable: true }]);
  expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
});

test('the built CJS client talks to a real ovsdb-server', async () => {
  const { Testbed } = await import('@switchyard/testbed');
  const tb = await Testbed.create();
  try {
    const ovs = await tb.startOvs({ vswitchd: false });
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `const { OvsdbClient } = require(${JSON.stringify(join(dist, 'index.cjs'))});
         OvsdbClient.connect('unix:${ovs.dbSocket}').then(async (c) => { console.log(JSON.stringify(await c.listDbs())); c.close(); });`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toContain('Open_vSwitch');
  } finally {
    await tb.cleanup();
  }
});
