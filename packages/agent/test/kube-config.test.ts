// The agent's kubeconfig as resolved out of process: request options as the resolver gave them,
// asked for again once they may be stale, and the resolver's failures surfaced.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@switchyard/runtime/testing';
import { ResolvedKubeConfig, type KubeConfigResolver } from '../src/kube-config';
import type { KubeConfigResolution } from '../src/kube-config-resolution';

const answer = (token: string, refreshMs: number | null): KubeConfigResolution => ({
  server: 'https://10.0.0.1:6443',
  tls: { ca: `base64:${Buffer.from('CA PEM').toString('base64')}`, servername: 'kubernetes' },
  headers: { Authorization: `Bearer ${token}` },
  refreshMs,
});

/** A resolver answering from a list, counting its calls. */
function scripted(answers: KubeConfigResolution[]): KubeConfigResolver & { calls: (string | undefined)[] } {
  const calls: (string | undefined)[] = [];
  const fn = (path: string | undefined): Promise<KubeConfigResolution> => {
    calls.push(path);
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return Promise.resolve(a);
  };
  return Object.assign(fn, { calls });
}

it('puts the resolved server, CA, SNI name and token on each request', async () => {
  const resolver = scripted([answer('t1', null)]);
  const kc = (await ResolvedKubeConfig.load({ path: '/etc/kubeconfig', resolver }))!;
  expect(kc.getCurrentCluster()).toEqual({ server: 'https://10.0.0.1:6443' });
  const opts: https.RequestOptions = { headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  expect(opts.headers).toEqual({ accept: 'application/json', Authorization: 'Bearer t1' });
  expect(opts.ca).toEqual(Buffer.from('CA PEM'));
  expect(opts.servername).toBe('kubernetes');
  expect(opts.agent).toBeInstanceOf(https.Agent);
  expect(resolver.calls).toEqual(['/etc/kubeconfig']);
});

it('asks the resolver again once a token may have changed, once for requests that wait together', async () => {
  const clock = new ManualClock(0);
  const resolver = scripted([answer('t1', 60_000), answer('t2', 60_000)]);
  const kc = (await ResolvedKubeConfig.load({ resolver, clock }))!;
  const headersOf = async (): Promise<unknown> => {
    const o: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(o);
    return o.headers;
  };
  clock.advance(59_999);
  expect(await headersOf()).toEqual({ Authorization: 'Bearer t1' });
  clock.advance(1);
  expect(await Promise.all([headersOf(), headersOf()])).toEqual([{ Authorization: 'Bearer t2' }, { Authorization: 'Bearer t2' }]);
  expect(resolver.calls).toEqual([undefined, undefined]);
});

it('never asks again for static credentials', async () => {
  const clock = new ManualClock(0);
  const resolver = scripted([answer('static', null)]);
  const kc = (await ResolvedKubeConfig.load({ resolver, clock }))!;
  clock.advance(365 * 24 * 3600_000);
  await kc.applyToHTTPSOptions({});
  expect(resolver.calls).toHaveLength(1);
});

it('fails each request as client-node would when it refused to make request options', async () => {
  const resolver = scripted([{ server: 'http://localhost:8080', tls: {}, headers: {}, refreshMs: null, requestError: 'HTTP protocol is not allowed when skipTLSVerify is not set or false' }]);
  const kc = (await ResolvedKubeConfig.load({ resolver }))!;
  expect(kc.getCurrentCluster()).toEqual({ server: 'http://localhost:8080' });
  await expect(kc.applyToHTTPSOptions({})).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('skipTLSVerify') });
});

it('hands a configuration that cannot leave client-node back to the caller, with the reason', async () => {
  const reasons: string[] = [];
  const kc = await ResolvedKubeConfig.load({ resolver: scripted([{ unsupported: 'cluster c goes through proxy socks5://p:1080' }]), onUnsupported: (r) => reasons.push(r) });
  expect(kc).toBeUndefined();
  expect(reasons).toEqual(['cluster c goes through proxy socks5://p:1080']);
});

it('resolves again when the token file changes (as kubelet rotates it), not before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-kc-token-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'one');
    const resolver = scripted([{ ...answer('one', null), tokenFile }, { ...answer('two', null), tokenFile }]);
    const kc = (await ResolvedKubeConfig.load({ resolver }))!;
    await kc.applyToHTTPSOptions({});
    expect(resolver.calls).toHaveLength(1);
    // A new file in place of the old one (a different inode), as a symlink swap or rename does.
    writeFileSync(join(dir, 'token.new'), 'two!');
    renameSync(join(dir, 'token.new'), tokenFile);
    const o: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(o);
    expect(o.headers).toEqual({ Authorization: 'Bearer two' });
    await kc.applyToHTTPSOptions({});
    expect(resolver.calls).toHaveLength(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
