/** Delegated authentication: tokens via TokenReview, front-proxy headers, verified client certificates. */
import { ManualClock } from '@switchyard/runtime/testing';
import { KubeDelegatedAuth, type AuthRequest, type KubeClient, type WatchStream } from '../src/index';

function fakeKube(users: Record<string, { username: string; groups: string[] }>, allowed: (spec: Record<string, unknown>) => boolean) {
  const calls: string[] = [];
  const kube: KubeClient = {
    async request<T>(_m: string, path: string, body?: unknown): Promise<T> {
      calls.push(path);
      const spec = (body as { spec: Record<string, unknown> }).spec;
      if (path.endsWith('/tokenreviews')) {
        const u = users[spec.token as string];
        return { status: u ? { authenticated: true, user: u } : { authenticated: false } } as T;
      }
      return { status: { allowed: allowed(spec) } } as T;
    },
    watch: (): Promise<WatchStream> => Promise.reject(new Error('no watch')),
  };
  return { kube, calls };
}

const req = (headers: Record<string, string>, cert?: { CN: string; O?: string | string[] }): AuthRequest => ({
  headers,
  socket: cert ? { authorized: true, getPeerCertificate: () => ({ subject: cert }) } : { authorized: false },
});

describe('KubeDelegatedAuth', () => {
  it('authenticates a bearer token through TokenReview and caches the answer until the TTL passes', async () => {
    const clock = new ManualClock();
    const { kube, calls } = fakeKube({ t1: { username: 'alice', groups: ['dev'] } }, () => true);
    const auth = new KubeDelegatedAuth(kube, { clock, cacheTtlMs: 1000 });
    expect(await auth.authenticate(req({ authorization: 'Bearer t1' }))).toEqual({ username: 'alice', groups: ['dev'] });
    await auth.authenticate(req({ authorization: 'Bearer t1' }));
    expect(calls.filter((c) => c.endsWith('tokenreviews'))).toHaveLength(1);
    clock.advance(1001);
    await auth.authenticate(req({ authorization: 'Bearer t1' }));
    expect(calls.filter((c) => c.endsWith('tokenreviews'))).toHaveLength(2);
    expect(await auth.authenticate(req({ authorization: 'Bearer nope' }))).toBeUndefined();
    expect(await auth.authenticate(req({}))).toBeUndefined();
  });

  it('takes the caller from X-Remote-* only on a verified front-proxy certificate', async () => {
    const { kube } = fakeKube({}, () => true);
    const auth = new KubeDelegatedAuth(kube);
    const headers = { 'x-remote-user': 'bob', 'x-remote-group': 'ops,system:authenticated' };
    expect(await auth.authenticate(req(headers, { CN: 'front-proxy-client' }))).toEqual({ username: 'bob', groups: ['ops', 'system:authenticated'], extra: {} });
    expect(await auth.authenticate(req(headers))).toBeUndefined();
    expect(await auth.authenticate(req(headers, { CN: 'mallory' }))).toBeUndefined();
  });

  it('with clientCertificates, a verified certificate is its CN with its O groups', async () => {
    const { kube } = fakeKube({}, () => true);
    const auth = new KubeDelegatedAuth(kube, { clientCertificates: true });
    expect(await auth.authenticate(req({}, { CN: 'kube-apiserver-kubelet-client', O: 'system:masters' }))).toEqual({ username: 'kube-apiserver-kubelet-client', groups: ['system:masters', 'system:authenticated'] });
    // A front-proxy certificate without headers names nobody.
    expect(await auth.authenticate(req({}, { CN: 'front-proxy-client' }))).toBeUndefined();
  });

  it('authorizes through SubjectAccessReview with non-resource attributes for paths', async () => {
    const specs: Record<string, unknown>[] = [];
    const { kube } = fakeKube({}, (spec) => {
      specs.push(spec);
      return spec.user === 'alice';
    });
    const auth = new KubeDelegatedAuth(kube);
    expect(await auth.authorize({ username: 'alice', groups: ['dev'] }, { verb: 'get', path: '/podinterfaces' })).toBe(true);
    expect(await auth.authorize({ username: 'eve', groups: [] }, { verb: 'get', path: '/podinterfaces' })).toBe(false);
    expect(specs[0]).toEqual({ user: 'alice', groups: ['dev'], nonResourceAttributes: { path: '/podinterfaces', verb: 'get' } });
  });
});
