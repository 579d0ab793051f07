import { clusterInfoExport, clusterInfoImports, clusterInfoImportsFor } from '../src';

const gw = { metadata: { name: 'node-1', namespace: 'kube-system' }, gatewayIP: '192.0.2.11', internalIP: '172.18.0.11' };

describe('ClusterInfo', () => {
  it('is exported only with a Gateway, carrying its gateway IP, service and pod CIDRs', () => {
    expect(clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: undefined })).toEqual([]);
    const [re] = clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: gw, serviceCIDR: '10.101.0.0/16', podCIDRs: ['10.10.0.0/16'] });
    expect(re).toMatchObject({ metadata: { name: 'west-clusterinfo' }, spec: { kind: 'ClusterInfo', clusterInfo: { clusterID: 'west', gatewayInfos: [{ gatewayIP: '192.0.2.11' }], serviceCIDR: '10.101.0.0/16', podCIDRs: ['10.10.0.0/16'] } } });
  });

  it("carries a dual-stack Gateway's IPv6 gateway IP and the IPv6 service CIDR to the other members", () => {
    const dual = { ...gw, gatewayIPv6: '2001:db8::11', internalIPv6: 'fd00:18::11' };
    const [re] = clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: dual, serviceCIDR: '10.101.0.0/16', serviceCIDRv6: 'fd00:101::/108', podCIDRs: ['10.10.0.0/16', 'fd00:10::/48'] });
    const info = clusterInfoImportsFor(clusterInfoImports([re!], 'l'), 'east', 'kube-system')[0]?.spec;
    expect(info).toEqual({ clusterID: 'west', gatewayInfos: [{ gatewayIP: '192.0.2.11', gatewayIPv6: '2001:db8::11' }], serviceCIDR: '10.101.0.0/16', serviceCIDRv6: 'fd00:101::/108', podCIDRs: ['10.10.0.0/16', 'fd00:10::/48'] });
    // An IPv4 Gateway: no IPv6 field at all.
    expect(clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: gw })[0]?.spec.clusterInfo?.gatewayInfos).toEqual([{ gatewayIP: '192.0.2.11' }]);
  });

  it("carries an IPv6-only Gateway's IPv6 gateway IP alone, and the IPv6 service CIDR alone", () => {
    const only6 = { metadata: { name: 'node-1', namespace: 'kube-system' }, gatewayIPv6: '2001:db8::11', internalIPv6: 'fd00:18::11' };
    const [re] = clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: only6, serviceCIDRv6: 'fd00:101::/108', podCIDRs: ['fd00:10::/48'] });
    expect(clusterInfoImportsFor(clusterInfoImports([re!], 'l'), 'east', 'kube-system')[0]?.spec).toEqual({ clusterID: 'west', gatewayInfos: [{ gatewayIPv6: '2001:db8::11' }], serviceCIDRv6: 'fd00:101::/108', podCIDRs: ['fd00:10::/48'] });
  });

  it("carries the Gateway's WireGuard public key into the ClusterInfo and its imports", () => {
    const keyed = { ...gw, wireGuard: { publicKey: 'P'.repeat(43) + '=' } };
    const [re] = clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: keyed });
    expect(re?.spec.clusterInfo?.wireGuard).toEqual({ publicKey: 'P'.repeat(43) + '=' });
    expect(clusterInfoImportsFor(clusterInfoImports([re!], 'l'), 'east', 'kube-system')[0]?.spec.wireGuard).toEqual({ publicKey: 'P'.repeat(43) + '=' });
    expect(clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: gw })[0]?.spec.clusterInfo).not.toHaveProperty('wireGuard');
  });

  it('is imported by every other member, not by the exporter', () => {
    const ris = clusterInfoImports([...clusterInfoExport({ clusterID: 'west', leaderNamespace: 'l', gateway: gw }), ...clusterInfoExport({ clusterID: 'east', leaderNamespace: 'l', gateway: gw })], 'l');
    expect(ris.map((r) => r.metadata.name)).toEqual(['east-clusterinfo', 'west-clusterinfo']);
    expect(clusterInfoImportsFor(ris, 'west', 'kube-system').map((c) => c.metadata.name)).toEqual(['east-clusterinfo']);
  });
});
