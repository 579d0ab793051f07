import type { CliError } from '../src/errors';
import { parseJoinConfig, parseTokenSecretFile, renderJoinConfig } from '../src/mc-join-config';
import { clusterSetTable } from '../src/mc-views';

const config = { clusterSetID: 'test-clusterset', leaderClusterID: 'test-cluster-north', leaderNamespace: 'antrea-multicluster', leaderAPIServer: 'https://172.18.0.1:6443' };
const token = { apiVersion: 'v1' as const, kind: 'Secret' as const, metadata: { name: 'default-member-token' }, type: 'Opaque' as const, data: { token: 'dG9rZW4=', 'ca.crt': 'Y2E=' } };

describe('join config', () => {
  test('renders antctl’s layout and parses back to the same config and token', () => {
    const text = renderJoinConfig(config, token);
    expect(text.startsWith('---\napiVersion: multicluster.antrea.io/v1alpha1\nkind: ClusterSetJoinConfig\nclusterSetID: test-clusterset\n')).toBe(true);
    expect(text).toContain('#clusterID: ""\n#namespace: ""\n# Use the pre-created token Secret.\n#tokenSecretName: ""');
    expect(text).toContain('# Manifest to create a Secret for an Antrea Multi-cluster member token.\n---\napiVersion: v1\nkind: Secret\n');
    expect(parseJoinConfig(text, 'join.yml')).toEqual({ config, token });
  });

  test('a config without a Secret parses with no token; filled optional fields are not commented out', () => {
    const text = renderJoinConfig({ ...config, clusterID: 'east', tokenSecretName: 'member-east-token' });
    expect(text).not.toContain('#clusterID');
    expect(parseJoinConfig(text, 'j')).toEqual({ config: { ...config, clusterID: 'east', tokenSecretName: 'member-east-token' } });
  });

  test('bad files are refused naming the file, field and value', () => {
    const err = (f: () => unknown): CliError => {
      try {
        f();
      } catch (e) {
        return e as CliError;
      }
      throw new Error('no error');
    };
    expect(err(() => parseJoinConfig('kind: Secret\n', 'j.yml')).message).toBe('invalid join config j.yml: no document of kind ClusterSetJoinConfig');
    const v = err(() => parseJoinConfig('apiVersion: v9\nkind: ClusterSetJoinConfig\n', 'j.yml'));
    expect(v).toMatchObject({ code: 'USAGE', field: 'j.yml: apiVersion', value: 'v9' });
    const n = err(() => parseJoinConfig('apiVersion: multicluster.antrea.io/v1alpha1\nkind: ClusterSetJoinConfig\nclusterID: 7\n', 'j.yml'));
    expect(n).toMatchObject({ field: 'j.yml: clusterID', value: 7, message: 'invalid join config j.yml: clusterID must be a string, got 7' });
    expect(err(() => parseJoinConfig('a: [', 'j.yml')).message).toMatch(/^invalid join config j.yml: /);
    expect(err(() => parseTokenSecretFile('kind: Secret\nmetadata: {name: t}\n', 's.yml'))).toMatchObject({ field: 's.yml: data.token' });
    expect(err(() => parseTokenSecretFile('kind: Secret\n', 's.yml'))).toMatchObject({ field: 's.yml: metadata.name', value: undefined });
  });
});

describe('mc views', () => {
  test('a ClusterSet without statuses yet is one row with its own cluster ID', () => {
    expect(clusterSetTable([{ metadata: { name: 'cs', namespace: 'kube-system' }, spec: { clusterID: 'east', leaders: [{ clusterID: 'north', server: 'https://n' }] } }]).rows).toEqual([['east', 'kube-system', 'cs', 'member', '', '', '']]);
  });
});
