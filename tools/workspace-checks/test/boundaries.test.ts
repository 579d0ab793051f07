// The architecture is executable: lint rejects imports that cross the package boundaries.
// Probe files are laid out like the workspace in a scratch directory and linted in one run of the
// real eslint CLI with the root config (with -c, eslint 9 resolves `files` globs against the cwd).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '../../..');

interface LintResult {
  filePath: string;
  messages: Array<{ ruleId: string | null; message: string }>;
}

const probes: Record<string, string> = {};
const probe = (pkg: string, name: string, code: string): string => {
  const path = `packages/${pkg}/src/${name}.ts`;
  probes[path] = code;
  return path;
};

const ioModules = ['node:fs', 'fs', 'node:net', 'node:child_process', 'netlink', '@kubernetes/client-node', '@grpc/grpc-js'];
const pureIo = ioModules.map((m, i) => [m, probe('policy-compiler', `io${i}`, `import * as m from '${m}';\nexport { m };\n`)]);
const wholeIpam = probe('openflow-pipeline', 'ipam', `export * from '@switchyard/ipam';\n`);
const cidr = probe('openflow-pipeline', 'cidr', `export * from '@switchyard/ipam/cidr';\n`);
const codec = probe('openflow-pipeline', 'codec', `export * from '@switchyard/openflow/codec';\n`);
const composers = ['@switchyard/agent', '@switchyard/controller', '@switchyard/cli'].map((m, i) => [
  m,
  probe('ovsdb', `composer${i}`, `export * from '${m}';\n`),
]);
const ioLib = probe('ovsdb', 'net', `import * as net from 'node:net';\nexport { net };\n`);
const composerUsesLib = probe('agent', 'lib', `export * from '@switchyard/ovsdb';\n`);

let results: Map<string, string[]>;

beforeAll(async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'boundaries-'));
  try {
    for (const [path, code] of Object.entries(probes)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), code);
    }
    const stdout = await new Promise<string>((resolve) => {
      execFile(
        join(root, 'node_modules/.bin/eslint'),
        ['-c', join(root, 'eslint.config.mjs'), '--format', 'json', 'packages'],
        // Without NX_TASK_TARGET_PROJECT: the nx tag rule needs a project graph the scratch dir lacks.
        { cwd: scratch, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NX_TASK_TARGET_PROJECT: '' } },
        (_err, out) => resolve(out), // eslint exits 1 when it finds problems: that is the point
      );
    });
    const parsed = JSON.parse(stdout) as LintResult[];
    results = new Map(
      parsed.map((r) => [
        r.filePath.slice(scratch.length + 1),
        r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message),
      ]),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  // One ESLint process over the probes: about 3 s on a quiet machine, past jest's 5 s default under load.
}, 60_000);

const found = (path: string): string[] => {
  const r = results.get(path);
  if (!r) throw new Error(`eslint did not lint ${path}`);
  return r;
};

describe('module boundaries', () => {
  it.each(pureIo)('forbids %s in the source of a pure package', (_mod, path) => {
    expect(found(path as string).join('\n')).toContain('pure packages do no I/O');
  });

  it('sends pure packages to the pure subpaths of ipam and openflow', () => {
    expect(found(wholeIpam)).toEqual([expect.stringContaining('@switchyard/ipam/cidr')]);
    expect(found(cidr)).toEqual([]);
    expect(found(codec)).toEqual([]);
  });

  it.each(composers)('forbids a library from importing the composer %s', (_mod, path) => {
    expect(found(path as string).join('\n')).toContain('a library never imports a composer');
  });

  it('lets an I/O library use node built-ins and a composer use libraries', () => {
    expect(found(ioLib)).toEqual([]);
    expect(found(composerUsesLib)).toEqual([]);
  });
});
