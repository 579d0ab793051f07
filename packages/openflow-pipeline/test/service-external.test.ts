/**
 * External Service traffic: node ports (the node's IP and the host's NodePort DNAT address),
 * external addresses (LoadBalancer ingress IPs, externalIPs), SNAT for Cluster policy (the gateway
 * IP towards a tunnel, the virtual Service IP to a local endpoint), and the Local policies' group
 * of this node's endpoints (none: the group has no bucket, so the packet is dropped).
 */
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_SERVICE_IP, computeNodeFlows, dumpFlows, type NodeState, type ServicePortSpec } from '../src/index';

const pod = { name: 'web', namespace: 'ns', ofport: 0x25, ips: ['10.10.0.24'], mac: '02:00:00:00:00:24' };
const base: ServicePortSpec = {
  groupId: 0x100000, service: 'ns/web', protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, nodePort: 30080,
  endpoints: [{ ip: '10.10.0.24', port: 8080, local: true }, { ip: '10.10.1.5', port: 8080 }],
};
function compute(services: ServicePortSpec[]) {
  const state: NodeState = {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableProxy: true },
    pods: [pod], remoteNodes: [], services, addressGroups: [], appliedToGroups: [], policies: [],
  };
  const nf = computeNodeFlows(state);
  return { flows: dumpFlows(nf, { cookie: false }), groups: nf.groups };
}
const table = (flows: string[], name: string): string[] => flows.filter((l) => l.startsWith(`table=${name},`));

describe('external Service traffic', () => {
  it('marks the node IP and the NodePort DNAT address as node port addresses', () => {
    const marks = table(compute([base]).flows, 'NodePortMark');
    expect(marks.some((l) => l.includes('nw_dst=192.168.77.100'))).toBe(true);
    expect(marks.some((l) => l.includes(`nw_dst=${VIRTUAL_NODEPORT_DNAT_IP}`))).toBe(true);
  });

  it('Cluster policy: the node port and each external address select the whole group with the external mark; SNAT by destination kind', () => {
    const { flows, groups } = compute([{ ...base, externalAddresses: ['192.168.77.200'] }]);
    const lb = table(flows, 'ServiceLB');
    const nodePort = lb.find((l) => l.includes('tcp_dst=30080'))!;
    const external = lb.find((l) => l.includes('nw_dst=192.168.77.200'))!;
    for (const l of [nodePort, external]) {
      expect(l).toContain('group:1048576');
      // ToExternalAddressRegMark (reg4 bit 21).
      expect(l).toMatch(/0x200000\/0x200000->reg4/);
    }
    expect(external).toContain('tcp_dst=80');
    expect(lb.find((l) => l.includes('nw_dst=10.96.0.10'))).not.toMatch(/0x200000\/0x200000->reg4/);
    const snat = table(flows, 'SNAT');
    // FromGateway (reg0[0..3]=2) to a tunnel (reg0[4..7]=1): the gateway IP; from the gateway elsewhere: the virtual IP.
    expect(snat.some((l) => l.includes('reg0=0x12/0xff') && l.includes('nat(src=10.10.0.1)'))).toBe(true);
    expect(snat.some((l) => l.includes('reg0=0x2/0xf') && l.includes(`nat(src=${VIRTUAL_SERVICE_IP})`))).toBe(true);
    // The node port flow needs the node port address mark (reg4 bit 19).
    expect(nodePort).toContain('reg4=0x90000/0xf0000');
    expect(table(flows, 'UnSNAT').some((l) => l.includes(`nw_dst=${VIRTUAL_SERVICE_IP}`))).toBe(true);
    expect(groups.map((g) => g.groupId)).toEqual([0x100000]);
  });

  it('externalTrafficPolicy Local: traffic from the gateway selects the local group without the external mark; pods keep the whole group', () => {
    const { flows, groups } = compute([{ ...base, externalAddresses: ['192.168.77.200'], externalLocal: true, localGroupId: 0x100001 }]);
    const lb = table(flows, 'ServiceLB').filter((l) => l.includes('tcp_dst=30080') || l.includes('nw_dst=192.168.77.200'));
    const fromGateway = lb.filter((l) => l.includes('group:1048577'));
    const others = lb.filter((l) => l.includes('group:1048576'));
    expect(fromGateway).toHaveLength(2);
    expect(others).toHaveLength(2);
    for (const l of [...fromGateway, ...others]) expect(l).not.toMatch(/0x200000\/0x200000->reg4/);
    const local = groups.find((g) => g.groupId === 0x100001)!;
    expect(local.buckets).toHaveLength(1);
    expect(JSON.stringify(local.buckets)).toContain(String(0x0a0a0018)); // 10.10.0.24 only
  });

  it('a Local policy with no local endpoint has a local group without buckets (dropped, as kube-proxy drops)', () => {
    const { groups } = compute([{ ...base, endpoints: [{ ip: '10.10.1.5', port: 8080 }], internalLocal: true, localGroupId: 0x100001 }]);
    expect(groups.find((g) => g.groupId === 0x100001)!.buckets).toEqual([]);
    // The whole group still has its endpoint; the ClusterIP flow uses the local group.
    expect(groups.find((g) => g.groupId === 0x100000)!.buckets).toHaveLength(1);
  });

  it('internalTrafficPolicy Local: the ClusterIP selects the local group', () => {
    const lb = table(compute([{ ...base, internalLocal: true, localGroupId: 0x100001 }]).flows, 'ServiceLB');
    expect(lb.find((l) => l.includes('nw_dst=10.96.0.10'))).toContain('group:1048577');
    expect(lb.find((l) => l.includes('tcp_dst=30080'))).toContain('group:1048576');
  });

  it('ClientIP affinity learns for every frontend, and external ones remember the external mark', () => {
    const lb = table(compute([{ ...base, affinityTimeout: 60, externalAddresses: ['192.168.77.200'] }]).flows, 'ServiceLB').filter((l) => l.includes('learn('));
    expect(lb).toHaveLength(3);
    expect(lb.filter((l) => l.includes('load:0x1->NXM_NX_REG4[21]'))).toHaveLength(2);
  });
});

describe('from the host to an endpoint outside the pod network', () => {
  it('goes back out by the gateway with its MAC, SNATed to the virtual Service IP and marked hairpin in both zones', () => {
    const flows = compute([base]).flows;
    expect(table(flows, 'L3Forwarding').find((l) => l.includes('priority=190,') && l.includes('reg0=0x200/0x200'))).toMatch(/set_field:02:00:00:00:00:01->eth_dst.*set_field:0x20\/0xf0->reg0/);
    // FromGateway (2) and ToGateway (2 << 4), Service connections only; ahead of the external-address mark.
    const mark = table(flows, 'SNATMark').find((l) => l.includes('reg0=0x22/0xff'))!;
    expect(mark).toMatch(/priority=201,.*ct_mark=0x10\/0x10/);
    expect(mark).toContain('set_field:0x40/0x40->ct_mark');
    const snat = table(flows, 'SNAT').find((l) => l.includes('reg0=0x22/0xff'))!;
    expect(snat).toContain(`nat(src=${VIRTUAL_SERVICE_IP})`);
    expect(snat).toContain('set_field:0x40/0x40->ct_mark');
  });
});
