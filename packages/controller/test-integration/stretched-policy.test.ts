// Stretched NetworkPolicy on the controller side, against the embedded API server: with the option
// on, the controller watches the ClusterSet's LabelIdentities (as the multi-cluster controller
// imports them into a member) and an ACNP ingress peer with `scope: ClusterSet` reaches the agent
// with the ids of the labels it selects, following LabelIdentities as they come and go.
import type { Controller } from '../src/controller';
import { ControlplaneClient } from '@switchyard/controlplane-client';
import { createPod, NODE_TOKENS, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller;
let agent: ControlplaneClient;

const labelIdentity = (name: string, label: string, id: number): Record<string, unknown> => ({
  apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'LabelIdentity', metadata: { name }, spec: { label, id },
});
/** The label identity ids of the first ingress rule of the policy `name` that node-a received. */
const idsOf = (name: string): number[] | undefined => agent.view.snapshot().policies.find((p) => p.sourceRef.name === name)?.rules[0]?.from.labelIdentities;

beforeAll(async () => {
  c = await startCluster();
  await c.kubectl.ok(['create', 'namespace', 'x']);
  await createPod(c, 'x', 'web', 'node-a', '10.0.1.10', { app: 'web' });
  await c.kubectl.apply(
    labelIdentity('li-x-client', 'ns:kubernetes.io/metadata.name=x&pod:app=client', 7),
    labelIdentity('li-y-db', 'ns:kubernetes.io/metadata.name=y&pod:app=db', 8),
  );
  controller = await c.startController({ stretchedNetworkPolicy: true });
  agent = new ControlplaneClient({ url: `https://127.0.0.1:${c.controllerPort}`, caPem: controller.pki.caPem, nodeName: 'node-a', token: NODE_TOKENS['node-a']! });
  await agent.open();
  await agent.waitFor(() => agent.view.synced, 10_000, 'initial sync');
});

afterAll(async () => {
  agent?.close();
  await controller?.stop();
  await c?.api.stop();
});

describe('stretched NetworkPolicy: scope ClusterSet peers', () => {
  test('an ingress peer with scope ClusterSet carries the ids of the LabelIdentities its selectors match', async () => {
    await c.kubectl.apply({
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'web-from-clusterset-clients' },
      spec: {
        priority: 1, tier: 'application', appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
        ingress: [{ action: 'Drop', from: [{ scope: 'ClusterSet', podSelector: { matchLabels: { app: 'client' } } }] }],
      },
    });
    await agent.waitFor(() => idsOf('web-from-clusterset-clients') !== undefined, 10_000, 'policy with label identities');
    expect(idsOf('web-from-clusterset-clients')).toEqual([7]);
  });

  test('a LabelIdentity the peer selects joins the rule; a deleted one leaves it', async () => {
    await c.kubectl.apply(labelIdentity('li-z-client', 'ns:kubernetes.io/metadata.name=z&pod:app=client', 9));
    await agent.waitFor(() => idsOf('web-from-clusterset-clients')?.join() === '7,9', 10_000, 'id 9 added');
    await c.kubectl.ok(['delete', 'labelidentity', 'li-x-client']);
    await agent.waitFor(() => idsOf('web-from-clusterset-clients')?.join() === '9', 10_000, 'id 7 removed');
    // A label the selector does not match never joins.
    expect(idsOf('web-from-clusterset-clients')).not.toContain(8);
  });
});
