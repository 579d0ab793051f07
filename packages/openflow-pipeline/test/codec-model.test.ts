/**
 * One Flow model: every flow and group the pipeline emits is already in the codec's canonical
 * form, so what the switch reports back (parsed by the codec) diffs as equal, and the text form
 * is the codec's own.
 */
import { normalizeFlow, parseFlow, renderFlow, type Flow } from '@switchyard/openflow/codec';
import { canonical, computeNodeFlows, diffFlows, dumpFlows, formatFlow, parseNamedFlow, type NodeState } from '../src/index';

const A = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.0.10'], mac: '02:00:00:00:00:0a', namedPorts: [{ name: 'http', port: 8080, protocol: 'TCP' as const }] };
const B = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.0.11'], mac: '02:00:00:00:00:0b' };

function fullState(): NodeState {
  return {
    config: { round: 2, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableProxy: true, enableAntreaPolicy: true },
    pods: [A, B],
    remoteNodes: [{ name: 'n2', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.101', gatewayIP: '10.10.1.1' }],
    addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }],
    appliedToGroups: [{ name: 'tb', groupMembers: [{ ips: B.ips }] }],
    policies: [
      { uid: 'k', name: 'k', namespace: 'ns', generation: 1, appliedToGroups: ['tb'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k', uid: 'k' },
        rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'UDP', port: 5000, endPort: 5007 }], priority: 0, enableLogging: false }] },
      { uid: 'c', name: 'c', namespace: '', generation: 1, appliedToGroups: ['tb'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'c', uid: 'c' },
        rules: [
          { direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 9090 }], action: 'Reject', priority: 0, enableLogging: true },
          { direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: '10.99.0.0/16', except: ['10.99.1.0/24'] }] }, services: [], action: 'Drop', priority: 1, enableLogging: false },
        ] },
    ],
    services: [{ groupId: 100, protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, nodePort: 30080, affinityTimeout: 60, endpoints: [{ ip: B.ips[0]!, port: 8080 }] }],
  };
}

describe('flows are codec-canonical', () => {
  const nf = computeNodeFlows(fullState());

  it('every flow survives render -> parse -> normalize unchanged', () => {
    const changed = nf.flows.filter((f) => {
      const back = normalizeFlow(parseFlow(renderFlow(f)));
      return canonical(back) !== canonical(normalizeFlow(f)) || canonical(back) !== canonical(f);
    });
    expect(changed.map((f) => formatFlow(f))).toEqual([]);
  });

  it('every flow is already normalized (a switch dump of it diffs as no change)', () => {
    const installed: Flow[] = nf.flows.map((f) => normalizeFlow(parseFlow(renderFlow(f))));
    const d = diffFlows(nf.flows, installed, { compareCookies: true });
    expect({ add: d.add.length, modify: d.modify.map((f) => formatFlow(f)), delete: d.delete.length }).toEqual({ add: 0, modify: [], delete: 0 });
  });

  it('antctl-style dump lines (tables by name) parse back to the same flows', () => {
    const lines = dumpFlows(nf);
    const back = lines.map((l) => normalizeFlow(parseNamedFlow(l, (n) => nf.pipeline.id(n as never))));
    expect(back).toEqual(nf.flows.map((f) => normalizeFlow(f)));
    expect(lines.some((l) => /goto_table:IngressMetric/.test(l))).toBe(true);
    expect(lines.some((l) => /resubmit\(,ServiceLB\)/.test(l))).toBe(true);
    expect(lines.some((l) => /ct\(commit,table=IngressMetric/.test(l))).toBe(true);
  });

  it('groups use the codec groupMod shape (groupId, groupType, buckets)', () => {
    expect(nf.groups.map((g) => [g.groupId, g.groupType])).toEqual(expect.arrayContaining([[100, 'select'], [1, 'all']]));
  });
});
