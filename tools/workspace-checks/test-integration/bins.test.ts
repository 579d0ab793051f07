// After `npm ci` at the root, every program of the workspace runs through npx: npm links a
// package's bins at install time, before anything is built, so a bin must be a committed file
// (bin/*.js, which loads dist/), never a dist/ path that does not exist yet.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../../..');

interface Manifest { name: string; bin?: Record<string, string>; files?: string[] }
const manifests = ['packages', 'tools'].flatMap((top) =>
  readdirSync(join(root, top))
    .map((d) => join(root, top, d))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest })),
);
const bins = manifests.flatMap(({ dir, pkg }) => Object.entries(pkg.bin ?? {}).map(([name, target]) => ({ name, target, dir, pkg })));

function run(file: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

it('finds the programs the README names', () => {
  expect(bins.map((b) => b.name)).toEqual(expect.arrayContaining(['yardctl', 'switchyard-agent', 'switchyard-cni', 'switchyard-controller', 'switchyard-lab']));
});

describe.each(bins.map((b) => [b.name, b] as const))('%s', (name, b) => {
  it('is a committed file outside dist/, shipped in the package', () => {
    expect(b.target).not.toMatch(/(^|\/)dist\//);
    expect(existsSync(join(b.dir, b.target))).toBe(true);
    const top = relative(b.dir, join(b.dir, b.target)).split('/')[0]!;
    if (b.pkg.files) expect(b.pkg.files).toContain(top);
  });

  it('is linked into node_modules/.bin by npm ci', () => {
    expect(realpathSync(join(root, 'node_modules/.bin', name))).toBe(realpathSync(join(b.dir, b.target)));
  });

  it('runs: `npx <bin> --help` exits 0 and prints its usage', async () => {
    // switchyard-cni is exec'd by a container runtime with CNI_COMMAND; VERSION is its --help.
    const r = name === 'switchyard-cni'
      ? await new Promise<{ code: number; out: string }>((resolve) => {
          const c = execFile(join(root, 'node_modules/.bin', name), [], { env: { ...process.env, CNI_COMMAND: 'VERSION' }, encoding: 'utf8' }, (err, stdout) => resolve({ code: err ? 1 : 0, out: stdout }));
          c.stdin?.end('{"cniVersion":"1.0.0"}');
        })
      : await run(join(root, 'node_modules/.bin', name), ['--help']);
    expect(r).toMatchObject({ code: 0 });
    expect(r.out).toMatch(name === 'switchyard-cni' ? /"supportedVersions"/ : /Usage:/);
  });
});
