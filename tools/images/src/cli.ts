/** CLI of tools/images: `build` (npm run images) and `manifest` (switchyard.yml). */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildImages, gitSource, type BuildResult } from './build';
import { renderManifest, type ManifestOptions } from './manifest';
import { REPO_ROOT } from './components';
import { run } from './layers';
import { compareBuilds, listingDifferences, sizeTable } from './report';

const USAGE = `Usage:
  npm run images [-- --out DIR] [--repository REPO] [--verify] [--skip-package-build] [--no-install]
      Builds switchyard-agent and switchyard-controller as OCI archives in DIR (default dist/images),
      prints a size table per layer and writes DIR/report.json. --verify builds a second time into
      DIR/second and compares the digests. Installs its Debian prerequisites
      (tools/images/apt-packages.txt) unless --no-install. Builds the packages it packs first
      (nx) unless --skip-package-build or SWITCHYARD_PREBUILT=1 (npm test sets it after its build).
  npm run manifest -w @switchyard/images -- [--traffic-encap-mode encap|noEncap|hybrid] [--tunnel-type geneve|vxlan|gre]
      [--encryption none|ipsec|wireGuard] [--network-policy-only] [--multicluster] [--repository REPO] [--tag TAG] [-o FILE]
      Prints switchyard.yml (or writes FILE); the images it names are the ones npm run images builds.
`;

interface Flags {
  out: string;
  repository?: string;
  verify: boolean;
  skipPackageBuild: boolean;
  install: boolean;
}

function parseBuildFlags(argv: readonly string[]): Flags {
  // npm test sets SWITCHYARD_PREBUILT=1 after its build stage: the packages are built, and a second
  // nx process beside the CI lanes is not wanted.
  const f: Flags = { out: join(REPO_ROOT, 'dist/images'), verify: false, skipPackageBuild: process.env.SWITCHYARD_PREBUILT === '1', install: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--out') f.out = resolve(value());
    else if (a === '--repository') f.repository = value();
    else if (a === '--verify') f.verify = true;
    else if (a === '--skip-package-build') f.skipPackageBuild = true;
    else if (a === '--no-install') f.install = false;
    else throw new Error(`unknown flag ${JSON.stringify(a)}\n${USAGE}`);
  }
  return f;
}

function build(argv: readonly string[]): number {
  const f = parseBuildFlags(argv);
  if (f.install) execFileSync('bash', [join(REPO_ROOT, 'scripts/ensure-system.sh'), join(REPO_ROOT, 'tools/images/apt-packages.txt')], { stdio: 'inherit' });
  // One reading of the commit for both builds of --verify: a commit landing in between would change the date and labels, not the build.
  const opts = { ...(f.repository ? { repository: f.repository } : {}), skipPackageBuild: f.skipPackageBuild, source: gitSource() };
  const first = buildImages({ out: f.out, ...opts });
  print(first);
  if (!f.verify) return 0;
  const second = buildImages({ out: join(f.out, 'second'), ...opts, skipPackageBuild: true });
  print(second);
  const diffs = compareBuilds(first, second);
  const verdict = { identical: diffs.length === 0, differences: diffs, first: first.images.map((i) => [i.reference, i.manifestDigest]), second: second.images.map((i) => [i.reference, i.manifestDigest]) };
  writeFileSync(join(f.out, 'verify.json'), `${JSON.stringify(verdict, null, 2)}\n`);
  if (diffs.length === 0) {
    process.stdout.write('verify: both builds gave the same manifest digests\n');
    return 0;
  }
  process.stdout.write('verify: the builds differ:\n');
  for (const d of diffs) {
    process.stdout.write(`  ${d.image}: ${d.what}\n`);
    if (!d.tars) continue;
    // Same names, sizes and times but other bytes shows as no line here: then the contents differ.
    const [a, b] = d.tars.map((t) => run('tar', ['-tvf', t]).split('\n').filter((l) => l !== ''));
    const lines = listingDifferences(a!, b!);
    process.stdout.write(lines.length > 0 ? `${lines.map((l) => `      ${l}`).join('\n')}\n` : '      (same entries, names, sizes and times: file contents differ)\n');
  }
  return 1;
}

function print(r: BuildResult): void {
  process.stdout.write(`${sizeTable(r.images)}\n`);
  for (const i of r.images) process.stdout.write(`${i.reference} ${i.manifestDigest} ${i.archive}\n`);
  for (const st of r.steps) process.stdout.write(`  ${st.step}: ${st.seconds.toFixed(1)} s (CPU ${st.cpuSeconds.toFixed(1)} s)\n`);
  process.stdout.write(`revision ${r.revision}, SOURCE_DATE_EPOCH ${r.sourceDateEpoch}, ${r.seconds.toFixed(0)} s (CPU ${r.cpuSeconds.toFixed(0)} s), load average ${r.loadAverage.start.map((x) => x.toFixed(1)).join(' ')} -> ${r.loadAverage.end.map((x) => x.toFixed(1)).join(' ')}\n`);
}

/** Flags of `manifest`, kubectl-style long names of the ManifestOptions fields. */
export function parseManifestFlags(argv: readonly string[]): { options: Partial<ManifestOptions>; out?: string } {
  const options: Partial<ManifestOptions> = {};
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--traffic-encap-mode') options.trafficEncapMode = value() as ManifestOptions['trafficEncapMode'];
    else if (flag === '--tunnel-type') options.tunnelType = value() as ManifestOptions['tunnelType'];
    else if (flag === '--encryption') options.encryption = value() as ManifestOptions['encryption'];
    else if (flag === '--network-policy-only') options.networkPolicyOnly = true;
    else if (flag === '--multicluster') options.multicluster = true;
    else if (flag === '--repository') options.repository = value();
    else if (flag === '--tag') options.tag = value();
    else if (flag === '-o' || flag === '--output') out = resolve(value());
    else throw new Error(`unknown flag ${JSON.stringify(flag)}\n${USAGE}`);
  }
  return { options, ...(out ? { out } : {}) };
}

function manifest(argv: readonly string[]): number {
  const { options, out } = parseManifestFlags(argv);
  const text = renderManifest(options);
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  return 0;
}

function main(argv: readonly string[]): number {
  const [cmd, ...rest] = argv;
  if (cmd === 'build') return build(rest);
  if (cmd === 'manifest') return manifest(rest);
  if (cmd === '--help' || cmd === '-h' || cmd === undefined) {
    process.stdout.write(USAGE);
    return cmd === undefined ? 1 : 0;
  }
  throw new Error(`unknown command ${JSON.stringify(cmd)}\n${USAGE}`);
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`images: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
