// The controller as a list of parts: which parts the options turn on and in what order, the
// informers built from the parts' declarations, the contract every part keeps (runtime's kit), and
// a failed start stopping what it reached. Without a network: the Kubernetes API here serves no
// resource (every request answers 404, which informers take for an empty, unserved resource).
import { KubeRequestError, type KubeClient } from '@switchyard/kube';
import { PartError, type Part } from '@switchyard/runtime';
import { checkPartContract } from '@switchyard/runtime/testing';
import { Controller } from '../src/controller';
import type { ControllerOptions } from '../src/options';
import { createPki, type ControllerPki } from '../src/pki';
import { POLICY_INPUTS } from '../src/resources';

const noResources: KubeClient = {
  request: (method, path) => Promise.reject(new KubeRequestError(method, path, 404, { message: 'the server could not find the requested resource' })),
  watch: (path) => Promise.reject(new KubeRequestError('GET', path, 404, { message: 'the server could not find the requested resource' })),
};

/** Every part that starts without writing to the API. */
const offlineFeatures: Partial<ControllerOptions> = { stretchedNetworkPolicy: true, nodeIPAM: { clusterCIDRs: ['10.10.0.0/16'] }, ipPools: true, serviceExternalIP: true, egress: true };
const everyFeature: Partial<ControllerOptions> = { ...offlineFeatures, ipsecCSRSigner: { autoApprove: true, selfSignedCA: true } };

let pki: ControllerPki;
beforeAll(async () => {
  pki = await createPki(['localhost', '127.0.0.1']);
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

const controller = (o: Partial<ControllerOptions> = {}): Controller => new Controller({ kube: noResources, pki, host: '127.0.0.1', port: 0, ...o });

describe('the part list', () => {
  test('by default: certificates, policy, informers, ExternalNode, Traceflow, admission, server, registrations, heartbeat', () => {
    expect(controller().parts.names()).toEqual(['pki', 'policy', 'informers', 'externalNode', 'traceflow', 'admission', 'server', 'apiService', 'webhookConfiguration', 'controllerInfo']);
  });

  test('every feature on: each part in its place, the allocators after the informers', () => {
    expect(controller(everyFeature).parts.names()).toEqual(['pki', 'policy', 'labelIdentities', 'informers', 'externalNode', 'nodeIpam', 'ipPools', 'serviceExternalIP', 'egress', 'egressGroups', 'traceflow', 'ipsecSigner', 'admission', 'server', 'apiService', 'webhookConfiguration', 'controllerInfo']);
  });

  test('registerWebhooks follows registerAPIService unless it is set', () => {
    const has = (o: Partial<ControllerOptions>): string[] => controller(o).parts.names().filter((n) => n === 'apiService' || n === 'webhookConfiguration');
    expect(has({ registerAPIService: false })).toEqual([]);
    expect(has({ registerAPIService: false, registerWebhooks: true })).toEqual(['webhookConfiguration']);
    expect(has({ registerWebhooks: false })).toEqual(['apiService']);
  });

  test('a part the options leave off is not there to ask for', () => {
    const c = controller({ externalNode: false });
    expect(c.parts.names()).not.toContain('externalNode');
    expect(() => c.part('externalNode')).toThrow(PartError);
    expect(c.parts.get('ipPools')).toBeUndefined();
  });

  test('one informer per resource the parts declare, in part order', () => {
    const plurals = (c: Controller): string[] => c.informers.map((i) => `${i.spec.plural}.${i.spec.group}`);
    const inputs = POLICY_INPUTS.map((r) => `${r.plural}.${r.group}`);
    const traceflow = ['traceflows.crd.antrea.io', 'antreaagentinfos.crd.antrea.io'];
    expect(plurals(controller())).toEqual([...inputs, 'externalnodes.crd.antrea.io', ...traceflow, 'externalippools.crd.antrea.io']);
    expect(plurals(controller(everyFeature))).toEqual([...inputs, 'labelidentities.multicluster.crd.antrea.io', 'externalnodes.crd.antrea.io', 'ippools.crd.antrea.io', 'statefulsets.apps', 'externalippools.crd.antrea.io', 'egresses.crd.antrea.io', ...traceflow]);
  });
});

describe('each part keeps the part contract', () => {
  const made: Controller[] = [];
  afterEach(async () => {
    for (const c of made.splice(0)) await c.stop();
  });

  /** Part `name` of a fresh controller, with the parts before it started and synced. */
  async function partAlone(name: string): Promise<Part> {
    const c = controller({ ...offlineFeatures, registerAPIService: false });
    made.push(c);
    for (const p of c.parts.list) {
      if (p.name === name) return p;
      await p.start();
      await p.sync?.();
    }
    throw new Error(`no part ${name}`);
  }

  // The others write to the API at start (the IPsec CA) or sync (registrations, heartbeat): their
  // contract runs against the kube-api stand-in, in test-integration/parts.test.ts.
  test.each(['pki', 'policy', 'labelIdentities', 'informers', 'externalNode', 'nodeIpam', 'ipPools', 'serviceExternalIP', 'egress', 'egressGroups', 'traceflow', 'admission', 'server'])('%s', async (name) => {
    const report = await checkPartContract(() => partAlone(name));
    expect(report.name).toBe(name);
    expect(report.health.running.ok).toBe(true);
  });
});

describe('lifecycle', () => {
  test('a failed start stops the parts it reached, in reverse, and leaves the rest unstarted', async () => {
    // No CA in the Secret and making one is off: the IPsec signer's start fails.
    const c = controller({ ipsecCSRSigner: { autoApprove: true, selfSignedCA: false }, registerAPIService: false });
    await expect(c.start()).rejects.toMatchObject({ code: 'PKI_FAILED' });
    const detail = Object.fromEntries(c.health().parts.map((p) => [p.name, p.detail]));
    expect(detail).toMatchObject({ pki: 'stopped', policy: 'stopped', informers: 'stopped', externalNode: 'stopped', ipsecSigner: 'stopped', server: 'not listening', controllerInfo: 'not started' });
    expect(c.health().ok).toBe(false);
    await c.stop();
  });

  test('started, the parts report their health in start order; the heartbeat its failed write', async () => {
    const c = controller({ registerAPIService: false });
    const port = await c.start();
    try {
      expect(port).toBeGreaterThan(0);
      expect(c.port).toBe(port);
      expect(c.hub.synced).toBe(true);
      // The API serves no AntreaControllerInfo: the first write fails.
      await eventuallyTrue(() => c.health().parts.some((p) => p.name === 'controllerInfo' && p.detail.startsWith('last write failed: POST')));
      const health = c.health();
      expect(health.parts.map((p) => p.name)).toEqual(c.parts.names());
      expect(health.parts.filter((p) => !p.ok).map((p) => p.name)).toEqual(['controllerInfo']);
      expect(health.ok).toBe(false);
    } finally {
      await c.stop();
    }
    expect(c.health().parts.find((p) => p.name === 'server')?.detail).toBe('stopped');
  });
});
