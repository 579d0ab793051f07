/** Named ports: ingress resolves them on the applied-to pods, egress on the destination peers. */
import { computeNodeFlows, dumpFlows, type NetworkPolicy, type NodeState } from '../src/index';

const client = { name: 'client', namespace: 'ns', ofport: 0x21, ips: ['10.10.0.21'], mac: '02:00:00:00:00:21' };
const web80 = { ips: ['10.10.1.5'], ports: [{ name: 'http', port: 80, protocol: 'TCP' as const }] };
const web8080 = { ips: ['10.10.1.6'], ports: [{ name: 'http', port: 8080, protocol: 'TCP' as const }] };
const noHttp = { ips: ['10.10.1.7'], ports: [{ name: 'dns', port: 53, protocol: 'UDP' as const }] };

function state(): NodeState {
  const np: NetworkPolicy = {
    uid: 'np', name: 'np', namespace: 'ns', generation: 1, appliedToGroups: ['client'], policyTypes: ['Egress'],
    sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'np', uid: 'np' },
    rules: [{
      direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 'http' }], priority: 0, enableLogging: false,
      // What the compiler sends for `egress: [{ports: [{port: http}]}]`: any address, plus all pods to resolve the name.
      to: { addressGroups: ['all-pods'], ipBlocks: [{ cidr: '0.0.0.0/0', except: [] }] },
    }],
  };
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableAntreaPolicy: true },
    pods: [client], remoteNodes: [],
    addressGroups: [{ name: 'all-pods', groupMembers: [web80, web8080, noHttp, { ips: client.ips }] }],
    appliedToGroups: [{ name: 'client', groupMembers: [{ ips: client.ips }] }],
    policies: [np],
  };
}

describe('egress named ports', () => {
  const lines = dumpFlows(computeNodeFlows(state()), { cookie: false }).filter((l) => l.startsWith('table=EgressRule,'));
  it('resolve on the destination peers: one conjunction per port number, each to the peers that name it', () => {
    const dst = (ip: string): string | undefined => lines.find((l) => l.includes(`nw_dst=${ip} `));
    const port = (p: number): string | undefined => lines.find((l) => l.includes(`tcp_dst=${p} `));
    const conj = (l: string | undefined): string => /conjunction\((\d+),/.exec(l ?? '')?.[1] ?? 'none';
    expect(conj(dst('10.10.1.5'))).toBe(conj(port(80)));
    expect(conj(dst('10.10.1.6'))).toBe(conj(port(8080)));
    expect(conj(port(80))).not.toBe(conj(port(8080)));
    expect(conj(port(80))).not.toBe('none');
    // A peer without the name, and the ipBlock, get no flow for the named port.
    expect(dst('10.10.1.7')).toBeUndefined();
    expect(lines.some((l) => l.includes('nw_dst=0.0.0.0/0') || / priority=\d+,ip actions=conjunction/.test(l))).toBe(false);
    expect(port(53)).toBeUndefined();
  });
  it('the applied-to pod is clause 1 (source)', () => {
    expect(lines.some((l) => l.includes(`nw_src=${client.ips[0]} `))).toBe(true);
  });
});

describe('a named port listed for several protocols (an ANP namedPort has none)', () => {
  it('opens only the protocol the pod declares the name with', () => {
    const server = { name: 'server', namespace: 'ns', ofport: 0x31, ips: ['10.10.0.31'], mac: '02:00:00:00:00:31', namedPorts: [{ name: 'serve-80-udp', port: 80, protocol: 'UDP' as const }] };
    const np: NetworkPolicy = {
      uid: 'anp', name: 'anp', namespace: '', generation: 1, appliedToGroups: ['server'], priority: 10, tierPriority: 250,
      sourceRef: { type: 'AdminNetworkPolicy', namespace: '', name: 'anp', uid: 'anp' },
      rules: [{
        direction: 'In', action: 'Allow', to: { addressGroups: [], ipBlocks: [] }, priority: 0, enableLogging: false,
        from: { addressGroups: [], ipBlocks: [{ cidr: '10.10.0.0/16', except: [] }] },
        services: (['TCP', 'UDP', 'SCTP'] as const).map((protocol) => ({ protocol, port: 'serve-80-udp' })),
      }],
    };
    const s: NodeState = {
      config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableAntreaPolicy: true },
      pods: [server], remoteNodes: [], addressGroups: [], appliedToGroups: [{ name: 'server', groupMembers: [{ ips: server.ips }] }], policies: [np],
    };
    const lines = dumpFlows(computeNodeFlows(s), { cookie: false }).filter((l) => l.startsWith('table=AntreaPolicyIngressRule,'));
    expect(lines.some((l) => l.includes('udp_dst=80'))).toBe(true);
    expect(lines.some((l) => l.includes('tcp_dst=80') || l.includes('sctp_dst=80'))).toBe(false);
  });
});
