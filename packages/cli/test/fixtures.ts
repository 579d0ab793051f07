// Read API answers shaped as the controller serves them, for unit tests with a fake ReadApi.
import type { ReadApi } from '../src/client';
import type { CliIo } from '../src/program';

export const POLICIES = {
  kind: 'NetworkPolicyList',
  apiVersion: 'controlplane.switchyard.io/v1beta2',
  metadata: { resourceVersion: '7' },
  items: [
    { uid: 'u-1', name: 'u-1', namespace: 'x', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'x', name: 'web-from-client', uid: 'k-1' }, rules: [{ direction: 'In', from: { addressGroups: ['ag-1'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 0, enableLogging: false }], appliedToGroups: ['atg-1'], generation: 1, span: ['node-a'] },
    { uid: 'u-2', name: 'u-2', namespace: '', sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'acnp-web', uid: 'a-1' }, rules: [], appliedToGroups: ['atg-1', 'atg-2', 'atg-3', 'atg-4'], tierPriority: 250, priority: 5, generation: 2, span: ['node-a', 'node-b'] },
  ],
};

export const ADDRESS_GROUPS = {
  kind: 'AddressGroupList',
  items: [
    { name: 'ag-1', groupMembers: [{ pod: { namespace: 'y', name: 'a' }, ips: ['10.0.0.1'] }, { pod: { namespace: 'y', name: 'b' }, ips: ['10.0.0.2'] }, { pod: { namespace: 'y', name: 'c' }, ips: ['10.0.0.3'] }, { pod: { namespace: 'y', name: 'd' }, ips: ['10.0.0.4'] }], span: ['node-a'] },
  ],
};

export const EXPLANATION = {
  kind: 'Explanation',
  allowed: false,
  action: 'Drop',
  egress: { direction: 'Egress', allowed: true, action: 'Allow', reason: 'default-allow' },
  ingress: { direction: 'Ingress', allowed: false, action: 'Drop', reason: 'rule', policy: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'acnp-web', uid: 'a-1' }, rule: { index: 0, name: 'drop-other' }, tierPriority: 250 },
};

/** A ReadApi answering from a path -> body map; records the requests it got. */
export function fakeApi(answers: Record<string, unknown>, calls: { path: string; query: Record<string, string | undefined> }[] = []): ReadApi {
  return {
    get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
      calls.push({ path, query });
      if (!(path in answers)) return Promise.reject(new Error(`unexpected path ${path}`));
      return Promise.resolve(answers[path] as T);
    },
  };
}

/** Capture stdout/stderr of one run. */
export function captureIo(api: ReadApi, isTTY = false): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY, env: {}, connect: () => api },
    out: () => out,
    err: () => err,
  };
}
