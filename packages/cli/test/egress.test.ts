/** `yardctl get egress`: every Egress with the IP in use, its egress node and conditions, from the API server. */
import type { KubeHttp, KubeResponse } from '../src/client';
import { egressTable, type EgressItem } from '../src/agent-views';
import { runYardctl } from '../src/program';
import { captureIo, fakeApi } from './fixtures';

const EG_A: EgressItem = {
  metadata: { name: 'eg-a' },
  spec: { egressIP: '192.168.77.220', externalIPPool: 'pool', appliedTo: { podSelector: { matchLabels: { app: 'a' } } } },
  status: { egressNode: 'node2', egressIP: '192.168.77.220', conditions: [{ type: 'IPAllocated', status: 'True', reason: 'Allocated' }, { type: 'IPAssigned', status: 'True', reason: 'Assigned' }] },
};
const EG_BAD: EgressItem = {
  metadata: { name: 'eg-bad' },
  spec: { egressIP: '10.0.0.300', externalIPPool: 'pool' },
  status: { conditions: [{ type: 'IPAllocated', status: 'False', reason: 'InvalidEgress' }] },
};

/** A KubeHttp answering from a path -> [status, body] map. */
function fakeKube(answers: Record<string, [number, unknown]>): KubeHttp {
  return {
    origin: 'https://api.test:6443',
    request: (path: string): Promise<KubeResponse> => {
      const a = answers[path];
      return Promise.resolve(a ? { status: a[0], body: JSON.stringify(a[1]), contentType: 'application/json' } : { status: 404, body: JSON.stringify({ kind: 'Status', reason: 'NotFound', message: `${path} not found` }), contentType: 'application/json' });
    },
  };
}

async function run(argv: string[], answers: Record<string, [number, unknown]>) {
  const c = captureIo(fakeApi({}));
  const code = await runYardctl(argv, { ...c.io, connectKube: () => fakeKube(answers) });
  return { code, out: c.out(), err: c.err() };
}

test('the table: the IP in use, the egress node, the conditions with the reason of a False one, sorted by name', () => {
  expect(egressTable([EG_BAD, EG_A], false)).toEqual({
    columns: ['NAME', 'EGRESS-IP', 'EGRESS-NODE', 'IP-ALLOCATED', 'IP-ASSIGNED'],
    rows: [['eg-a', '192.168.77.220', 'node2', 'True', 'True'], ['eg-bad', '10.0.0.300', '', 'False (InvalidEgress)', '']],
  });
  expect(egressTable([EG_A], true).rows[0]!.slice(5)).toEqual(['pool', '{"podSelector":{"matchLabels":{"app":"a"}}}']);
  // An Egress without a pool (manual mode): the node holding the IP, no condition, no pool.
  const manual: EgressItem = { metadata: { name: 'eg-m' }, spec: { egressIP: '192.168.77.240', appliedTo: { podSelector: {} } }, status: { egressNode: 'node1', egressIP: '192.168.77.240' } };
  expect(egressTable([manual], true).rows[0]).toEqual(['eg-m', '192.168.77.240', 'node1', '', '', '(none: by hand)', '{"podSelector":{}}']);
});

test('get egress lists every Egress from the API server; get eg <name> one; a missing one is NotFound', async () => {
  const answers: Record<string, [number, unknown]> = {
    '/apis/crd.antrea.io/v1beta1/egresses': [200, { kind: 'EgressList', items: [EG_A, EG_BAD] }],
    '/apis/crd.antrea.io/v1beta1/egresses/eg-a': [200, EG_A],
  };
  const all = await run(['get', 'egress'], answers);
  expect(all.code).toBe(0);
  expect(all.out.split('\n')[0]).toMatch(/^NAME\s+EGRESS-IP\s+EGRESS-NODE\s+IP-ALLOCATED\s+IP-ASSIGNED$/);
  expect(all.out).toMatch(/eg-a\s+192\.168\.77\.220\s+node2\s+True\s+True/);
  const one = await run(['get', 'eg', 'eg-a', '-o', 'json'], answers);
  expect(JSON.parse(one.out)).toEqual(EG_A);
  const missing = await run(['get', 'eg', 'nope'], answers);
  expect(missing.code).not.toBe(0);
  expect(missing.err).toContain('egresses "nope" not found');
});
