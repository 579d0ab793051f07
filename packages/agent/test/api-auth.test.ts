/** The agent API on TCP: HTTPS, and with a RequestAuth, callers authenticated and authorized per path. */
import { request } from 'node:https';
import type { RequestAuth, UserInfo } from '@switchyard/kube';
import { LocalApi, type AgentIntrospection } from '../src/features/api/api';
import { selfSignedCert } from '../src/features/api/tls';

const intro: AgentIntrospection = {
  nodeName: 'n1', podCIDR: '10.1.0.0/24', bridge: 'br-int', round: 1, startTime: new Date(0),
  podInterfaces: () => [], installedFlows: async () => [], tableName: () => undefined, tableId: () => undefined,
  ovsVersion: async () => '3.1.0', policyCounts: () => ({ policies: 0, addressGroups: 0, appliedToGroups: 0 }), controllerConnected: () => undefined,
};

function get(port: number, path: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let t = '';
      res.on('data', (d: Buffer) => (t += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(t) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('agent API over HTTPS with delegated auth', () => {
  const decisions: string[] = [];
  const auth: RequestAuth = {
    async authenticate(req) {
      const h = req.headers.authorization;
      if (h === 'Bearer broken') throw new Error('TokenReview: connection refused');
      return h === 'Bearer alice' ? { username: 'alice', groups: [] } : h === 'Bearer eve' ? { username: 'eve', groups: [] } : undefined;
    },
    async authorize(user: UserInfo, attrs) {
      decisions.push(`${user.username} ${attrs.verb} ${attrs.path ?? ''}`);
      return user.username === 'alice';
    },
  };
  let api: LocalApi;
  beforeAll(async () => {
    api = await LocalApi.listenTcp('127.0.0.1', 0, intro, { tls: await selfSignedCert('n1@switchyard-agent', ['127.0.0.1', 'n1']), auth });
  });
  afterAll(() => api.close());

  it('answers health checks without credentials', async () => {
    expect(await get(api.port!, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });
  it('is 401 without a caller it can authenticate, 403 for one not allowed the path, 200 otherwise', async () => {
    expect((await get(api.port!, '/agentinfo')).status).toBe(401);
    const denied = await get(api.port!, '/podinterfaces', 'eve');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('forbidden: User "eve" cannot get path "/podinterfaces"');
    const ok = await get(api.port!, '/agentinfo', 'alice');
    expect(ok.status).toBe(200);
    expect(ok.body.nodeRef).toEqual({ kind: 'Node', name: 'n1' });
    expect(decisions).toEqual(['eve get /podinterfaces', 'alice get /agentinfo']);
  });
  it('fails closed with 503 when the API server cannot be asked', async () => {
    const r = await get(api.port!, '/agentinfo', 'broken');
    expect(r.status).toBe(503);
    expect(String(r.body.message)).toContain('connection refused');
  });
  it('lists the health of each part at /healthz?verbose to an allowed caller, still 200 when one is not ok', async () => {
    const health = { ok: false, controllers: [{ name: 'node', ok: true, detail: 'round 3' }, { name: 'policies', ok: false, detail: 'controlplane stream down' }] };
    const withHealth = await LocalApi.listenTcp('127.0.0.1', 0, { ...intro, health: () => health }, { tls: await selfSignedCert('n1@switchyard-agent', ['127.0.0.1']), auth });
    try {
      expect((await get(withHealth.port!, '/healthz?verbose')).status).toBe(401);
      expect(await get(withHealth.port!, '/healthz?verbose', 'alice')).toEqual({ status: 200, body: { status: 'degraded', controllers: health.controllers } });
      expect(await get(withHealth.port!, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      await withHealth.close();
    }
  });
});
