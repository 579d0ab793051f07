// The controller's parts against the kube-api stand-in: those that write to the API (the IPsec
// CA, the registrations, the heartbeat) keep the part contract, and a running controller answers
// each part's health at /healthz?verbose.
import https from 'node:https';
import type { Part } from '@switchyard/runtime';
import { checkPartContract } from '@switchyard/runtime/testing';
import { Controller } from '../src/controller';
import { eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c?.api.stop();
});

describe('each part that writes to the API keeps the part contract', () => {
  let current: Controller | undefined;
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });

  /** Part `name` of a fresh controller on the cluster's controller port, with the parts before it started and synced. */
  async function partAlone(name: string): Promise<Part> {
    // The kit is done with the previous part (it made and stopped it): free the port.
    await current?.stop();
    current = new Controller({ kube: c.kube, host: '127.0.0.1', port: c.controllerPort, requestHeaderCaPem: c.api.caPem, informer: { initialBackoffMs: 50, maxBackoffMs: 500 }, ipsecCSRSigner: { autoApprove: true, selfSignedCA: true } });
    for (const p of current.parts.list) {
      if (p.name === name) return p;
      await p.start();
      await p.sync?.();
    }
    throw new Error(`no part ${name}`);
  }

  test.each(['ipsecSigner', 'apiService', 'webhookConfiguration', 'controllerInfo'])('%s', async (name) => {
    const report = await checkPartContract(() => partAlone(name));
    expect(report.health.running.ok).toBe(true);
    expect(report.health.stopped.ok).toBe(false);
  });
});

const get = (path: string, ca: string, token?: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    https.get({ hostname: '127.0.0.1', port: c.controllerPort, path, ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

test('a running controller answers each part\'s health at /healthz?verbose, only with credentials', async () => {
  const controller = await c.startController({ ipPools: true });
  try {
    await eventuallyPasses(() => expect(controller.health().ok).toBe(true));
    const ca = controller.pki.caPem;
    const verbose = await get('/healthz?verbose', ca, c.api.adminToken);
    expect(verbose.status).toBe(200);
    const body = JSON.parse(verbose.body) as { status: string; parts: { name: string; ok: boolean; detail: string }[] };
    expect(body.status).toBe('ok');
    expect(body.parts.map((p) => p.name)).toEqual(controller.parts.names());
    expect(body.parts.find((p) => p.name === 'server')?.detail).toMatch(new RegExp(`^listening on port ${controller.port}`));
    expect((await get('/healthz?verbose', ca)).status).toBe(401);
    expect(await get('/healthz', ca)).toEqual({ status: 200, body: 'ok' });
  } finally {
    await controller.stop();
  }
});
