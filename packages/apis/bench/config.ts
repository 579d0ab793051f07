// Benchmark: antrea-agent.conf parsing with the package's TypeBox + ajv schemas against the zod 4
// candidate (bench/config-zod.ts): parse rate, the bytes each adds to apis' root entry (esbuild,
// minified, every dependency bundled), and the errors each gives for the same mistakes.
// Writes bench/config.results.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { parseAgentConfig } from '../src/index';
import { parseAgentConfigZod } from './config-zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const conf = parse(fs.readFileSync(path.join(here, '..', 'test', 'fixtures', 'seeds', 'multicluster-01-agent-configmap.yaml'), 'utf8')).data['antrea-agent.conf'];
const agentConf = parse(conf) as unknown;

function rate(fn: () => void, n = 20_000): number {
  for (let i = 0; i < 500; i++) fn();
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return Math.round(n / best);
}

async function bundleBytes(entry: string): Promise<number> {
  const r = await build({ stdin: { contents: entry, resolveDir: here, loader: 'ts' }, bundle: true, minify: true, write: false, platform: 'neutral', format: 'esm', mainFields: ['module', 'main'], logLevel: 'silent' });
  return r.outputFiles[0]?.contents.length ?? 0;
}

const mistakes: [string, unknown][] = [
  ['wrong type', { multicluster: { wireGuard: { port: 'x' } } }],
  ['out of enum', { trafficEncapMode: 'tunnel' }],
  ['out of range', { tunnelPort: 70000 }],
  ['missing port of a tcp bypass rule', { policyBypassRules: [{ direction: 'ingress', protocol: 'tcp', cidr: '1.1.1.1/32' }] }],
  ['unknown keys', { ovsBrige: 'br-x', multicluster: { wireGuard: { prot: 1 } } }],
];
const outcome = (f: (x: unknown) => { warnings: { path: string }[] }, input: unknown): string => {
  try {
    const w = f(input).warnings;
    return `warnings: ${w.map((x) => x.path).join(', ')}`;
  } catch (e) {
    const c = e as { code: string; path: string; message: string; value: unknown };
    return `${c.code} ${c.message} (value ${JSON.stringify(c.value)})`;
  }
};

async function main(): Promise<void> {
  // First parse in this process: ajv compiles the schema to a function then; zod builds nothing ahead.
  const first = (f: () => void): number => {
    const t0 = performance.now();
    f();
    return Math.round((performance.now() - t0) * 10) / 10;
  };
  const firstParseMs = { typeboxAjv: first(() => parseAgentConfig(agentConf)), zod: first(() => parseAgentConfigZod(agentConf)) };
  const base = await bundleBytes(`export * from '../src/index';`);
  const withZod = await bundleBytes(`export * from '../src/index'; export { parseAgentConfigZod } from './config-zod';`);
  const withoutConfig = await bundleBytes(`export * from '../src/controlplane-codec'; export * from '../src/validation'; export * from '../src/framing'; export * from '../src/crd-loader'; export * from '../src/convert'; export * from '../src/manifest';`);
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    parsesPerSec: { typeboxAjv: rate(() => parseAgentConfig(agentConf)), zod: rate(() => parseAgentConfigZod(agentConf)) },
    firstParseMs,
    rootEntryBytes: { withoutConfig, typeboxAjv: base, typeboxAjvPlusZod: withZod },
    errors: mistakes.map(([what, input]) => ({ what, typeboxAjv: outcome(parseAgentConfig, input), zod: outcome(parseAgentConfigZod, input) })),
  };
  console.log(JSON.stringify(results, null, 2));
  fs.writeFileSync(path.join(here, 'config.results.json'), JSON.stringify(results, null, 2) + '\n');
}

void main();
