// Micro-benchmark (not run in CI): time to make the controller's CA + serving certificate, in
// process with @peculiar/x509 (createPki now) against the five openssl CLI children createPki ran
// before, and the agent's self-signed certificate (one `openssl req -x509` child before).
// `npx tsx bench/pki.ts` from packages/controller; writes bench/pki.results.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate } from '@switchyard/pki';
import { createPki, defaultSans } from '../src/pki';

const N = Number(process.env.BENCH_N ?? 20);
const sans = defaultSans('kube-system', 'switchyard');

/** The openssl steps createPki ran before this package used @peculiar/x509. */
function opensslPki(): { caPem: string; certPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pki-'));
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  try {
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    run('req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '3650', '-subj', '/CN=switchyard-controller-ca', '-out', 'ca.crt');
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tls.key');
    run('req', '-new', '-key', 'tls.key', '-subj', '/CN=switchyard-controller', '-out', 'tls.csr');
    const alt = sans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',');
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${alt}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n`);
    run('x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '365', '-sha256', '-extfile', 'ext.cnf', '-out', 'tls.crt');
    return { caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'), certPem: readFileSync(join(dir, 'tls.crt'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function opensslSelfSigned(): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pki-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '365', '-sha256', '-subj', '/CN=n1@switchyard-agent',
      '-addext', 'subjectAltName=IP:10.0.0.1,IP:127.0.0.1,DNS:localhost,DNS:n1', '-addext', 'extendedKeyUsage=serverAuth', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: ['ignore', 'ignore', 'pipe'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timeIt(f: () => unknown): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b);
}
const p = (xs: number[], q: number): number => Math.round(xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]! * 10) / 10;

async function main(): Promise<void> {
  // First use in a fresh process loads @peculiar/x509, its ASN.1 stack and reflect-metadata.
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', `const { createPki } = await import(${JSON.stringify(new URL('../src/pki.ts', import.meta.url).pathname)}); const t0 = performance.now(); await createPki(['127.0.0.1']); console.log(performance.now() - t0);`], { encoding: 'utf8' });
  const coldMs = Math.round(Number(child.stdout.trim()) * 10) / 10;
  const rows = [
    { case: 'CA + serving cert, openssl CLI (5 children, before)', ms: await timeIt(opensslPki) },
    { case: 'CA + serving cert, createPki in process (now)', ms: await timeIt(() => createPki(sans)) },
    { case: 'serving cert from an existing CA, createPki (now, every restart)', ms: await (async () => {
      const ca = await createPki(sans);
      return timeIt(() => createPki(sans, { caPem: ca.caPem, caKeyPem: ca.caKeyPem }));
    })() },
    { case: 'agent self-signed cert, openssl req -x509 (before)', ms: await timeIt(opensslSelfSigned) },
    { case: 'agent self-signed cert, issueCertificate (now)', ms: await timeIt(() => issueCertificate({ commonName: 'n1@switchyard-agent', sans: ['10.0.0.1', '127.0.0.1', 'localhost', 'n1'], validityDays: 365, ca: true, extendedKeyUsage: ['serverAuth'], keyFormat: 'pkcs8' })) },
  ].map((r) => ({ case: r.case, n: r.ms.length, p50ms: p(r.ms, 0.5), p90ms: p(r.ms, 0.9) }));
  console.log('| case | n | p50 ms | p90 ms |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.case} | ${r.n} | ${r.p50ms} | ${r.p90ms} |`);
  console.log(`first createPki in a fresh process (module loading included): ${coldMs} ms`);
  const load = loadavg().map((x) => Math.round(x * 100) / 100);
  console.log(`load average at the end: ${load.join(' ')}`);
  writeFileSync(new URL('./pki.results.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, peculiarX509: '2.2.0', loadavg: load, rows, firstCreatePkiInFreshProcessMs: coldMs }, null, 2)}\n`);
}

void main();
