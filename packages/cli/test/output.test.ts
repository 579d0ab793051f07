import YAML from 'yaml';
import { abbreviate, parseOutputFormat, renderData, renderTable, styleFor } from '../src/output';
import { addressGroupTable, explanationTable, networkPolicyTable, tierText, type GroupItem, type NetworkPolicyItem } from '../src/views';
import { ADDRESS_GROUPS, EXPLANATION, POLICIES } from './fixtures';
import type { Explanation } from '@switchyard/policy-compiler';

describe('tables', () => {
  test('aligns columns with three spaces like kubectl and shows empty cells as <none>', () => {
    const text = renderTable({ columns: ['NAME', 'RULES'], rows: [['a-long-name', '1'], ['b', '']] });
    expect(text).toBe('NAME          RULES\na-long-name   1\nb             <none>\n');
  });

  test('--no-headers drops the header line only', () => {
    expect(renderTable({ columns: ['NAME'], rows: [['x']] }, { noHeaders: true })).toBe('x\n');
  });

  test('networkpolicy has antctl columns; cluster-scoped policies have no namespace; wide adds tier and nodes', () => {
    const t = networkPolicyTable(POLICIES.items as unknown as NetworkPolicyItem[], false);
    expect(t.columns).toEqual(['NAMESPACE', 'NAME', 'APPLIED-TO', 'RULES']);
    expect(t.rows).toEqual([
      ['x', 'web-from-client', 'atg-1', '1'],
      ['', 'acnp-web', 'atg-1,atg-2,atg-3 + 1 more...', '0'],
    ]);
    const w = networkPolicyTable(POLICIES.items as unknown as NetworkPolicyItem[], true);
    expect(w.columns).toEqual(['NAMESPACE', 'NAME', 'APPLIED-TO', 'RULES', 'TYPE', 'TIER', 'PRIORITY', 'NODES', 'UID']);
    expect(w.rows[1]?.slice(4)).toEqual(['ACNP', 'application (250)', '5', 'node-a,node-b', 'u-2']);
  });

  test('addressgroup lists member IPs, abbreviated after three', () => {
    const t = addressGroupTable(ADDRESS_GROUPS.items as GroupItem[], false);
    expect(t).toEqual({ columns: ['NAME', 'POD-IPS'], rows: [['ag-1', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']] });
  });

  test('explain rows name the deciding tier, policy and rule per direction', () => {
    const t = explanationTable(EXPLANATION as unknown as Explanation);
    expect(t.rows[0]).toEqual(['Egress', 'Allowed', 'Allow', 'default-allow', '', '', '', '']);
    expect(t.rows[1]).toEqual(['Ingress', 'Denied', 'Drop', 'rule', 'application (250)', 'ACNP:acnp-web', 'drop-other (#0)', '']);
  });

  test('tier names for static tiers and the ANP/BANP pseudo tiers, numbers otherwise', () => {
    expect(tierText(50)).toBe('emergency (50)');
    expect(tierText(251)).toBe('adminnetworkpolicy (251)');
    expect(tierText(77)).toBe('77');
    expect(tierText(undefined)).toBe('');
  });

  test('abbreviate keeps short lists whole', () => {
    expect(abbreviate(['a', 'b'])).toBe('a,b');
    expect(abbreviate([])).toBe('');
  });
});

describe('data formats', () => {
  test('json and yaml round-trip the data unchanged', () => {
    expect(JSON.parse(renderData(POLICIES, 'json'))).toEqual(POLICIES);
    expect(YAML.parse(renderData(POLICIES, 'yaml'))).toEqual(POLICIES);
  });

  test('unknown -o values are usage errors listing the allowed formats', () => {
    expect(() => parseOutputFormat('xml')).toThrow(expect.objectContaining({ code: 'USAGE', exitCode: 2, value: 'xml', field: '--output' }));
    expect(parseOutputFormat('wide')).toBe('wide');
  });
});

describe('color', () => {
  test('only on a terminal, only for tables, never with NO_COLOR', () => {
    expect(styleFor(true, 'table', {}).red('x')).toBe('\u001b[31mx\u001b[0m');
    expect(styleFor(false, 'table', {}).red('x')).toBe('x');
    expect(styleFor(true, 'json', {}).red('x')).toBe('x');
    expect(styleFor(true, 'table', { NO_COLOR: '1' }).red('x')).toBe('x');
  });
});
