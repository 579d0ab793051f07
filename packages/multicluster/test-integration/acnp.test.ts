// ClusterNetworkPolicy replication across three embedded API servers: a ResourceExport of kind
// AntreaClusterNetworkPolicy in the leader becomes antrea-mc-<name> in every member whose Tier exists;
// a member without the Tier creates nothing and reports ACNPImportFailed in the leader.
import type { ClusterNetworkPolicy } from '@switchyard/apis';
import { IMPORTED_ANNOTATION, type LeaderController, type MemberController } from '../src';
import { LEADER_NS, eventually, eventuallyPasses, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv } from './support';

let env: ClusterSetEnv;
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

const tier = { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier', metadata: { name: 'securityops' }, spec: { priority: 50, description: '[READ-ONLY]: System generated SecurityOps Tier' } };
// The seed guide's ResourceExport, as written there.
const acnpExport = {
  apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
  kind: 'ResourceExport',
  metadata: { name: 'strict-namespace-isolation-for-test-clusterset', namespace: LEADER_NS },
  spec: {
    kind: 'AntreaClusterNetworkPolicy',
    name: 'strict-namespace-isolation',
    clusterNetworkPolicy: {
      priority: 1,
      tier: 'securityops',
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [
        { action: 'Pass', from: [{ namespaces: { match: 'Self' } }, { podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }] },
        { action: 'Drop', from: [{ namespaceSelector: {} }] },
      ],
    },
  },
};

beforeAll(async () => {
  ({ env, leader, west, east } = await startJoinedClusterSet({ objects: { west: [tier] } }));
});

afterAll(() => stopClusterSet({ env, leader, west, east }));

const acnp = (c: ClusterSetEnv['west']) => c.kubectl.maybe<ClusterNetworkPolicy>(['get', 'clusternetworkpolicy', 'antrea-mc-strict-namespace-isolation']);

it('replicates the ACNP where the Tier exists and reports ACNPImportFailed where it does not', async () => {
  await env.leader.kubectl.apply(acnpExport);
  const policy = await eventually(() => acnp(env.west));
  expect(policy.metadata.annotations?.[IMPORTED_ANNOTATION]).toBe('true');
  expect(policy.spec).toMatchObject({ priority: 1, tier: 'securityops', appliedTo: [{ namespaceSelector: {} }] });
  expect(policy.spec.ingress?.map((r) => r.action)).toEqual(['Pass', 'Drop']);
  const events = await eventually(async () => {
    const list = await env.leader.kubectl.json<{ items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[] }>(['-n', LEADER_NS, 'get', 'events']);
    const failed = list.items.filter((e) => e.reason === 'ACNPImportFailed');
    expect(failed).toHaveLength(1);
    return failed;
  });
  expect(events[0]).toMatchObject({ type: 'Warning', message: 'ACNP Tier securityops does not exist in the importing cluster test-cluster-east', involvedObject: { kind: 'ResourceImport', name: 'strict-namespace-isolation-antreaclusternetworkpolicy' } });
  expect(await acnp(env.east)).toBeUndefined();
});

it('imports the ACNP once the Tier is created in the member', async () => {
  await env.east.kubectl.apply(tier);
  await eventuallyPasses(async () => expect(await acnp(env.east)).toBeDefined());
});

it('removes the replicated ACNPs when the export is deleted', async () => {
  await env.leader.kubectl.ok(['-n', LEADER_NS, 'delete', 'resourceexport', acnpExport.metadata.name]);
  await eventuallyPasses(async () => {
    expect(await acnp(env.west)).toBeUndefined();
    expect(await acnp(env.east)).toBeUndefined();
  });
});
