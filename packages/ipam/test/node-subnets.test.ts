// Node subnet allocation: dual-stack, restart stability, overlap refusal, release and exhaustion.
import type { Node } from '@switchyard/apis';
import { IpamError, NodeSubnetAllocator, type NodeLike } from '@switchyard/ipam';

const dual = { clusterCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'], nodeMaskSizeIPv4: 24, nodeMaskSizeIPv6: 64 };

const asNode = (name: string, podCIDRs: string[]): NodeLike => ({ metadata: { name }, spec: { podCIDRs, podCIDR: podCIDRs[0] as string } });

const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof IpamError) return e.code;
    throw e;
  }
  return 'no error';
};

describe('NodeSubnetAllocator', () => {
  it('gives each node one IPv4 and one IPv6 subnet with the first address as gateway', () => {
    const a = new NodeSubnetAllocator(dual);
    const n1 = a.allocate('node-1');
    const n2 = a.allocate('node-2');
    expect(n1.podCIDRs.map(String)).toEqual(['10.244.0.0/24', 'fd00:10:244::/64']);
    expect(n1.gateways.map(String)).toEqual(['10.244.0.1', 'fd00:10:244::1']);
    expect(n2.podCIDRs.map(String)).toEqual(['10.244.1.0/24', 'fd00:10:244:1::/64']);
    expect(a.allocate('node-1').podCIDRs.map(String)).toEqual(n1.podCIDRs.map(String));
  });

  it('keeps every node on its subnet after a restart rebuilt from Node objects', () => {
    const a = new NodeSubnetAllocator(dual);
    const nodes = ['a', 'b', 'c', 'd'].map((n) => asNode(n, a.allocate(n).podCIDRs.map(String)));
    a.release('b');
    const live = nodes.filter((n) => n.metadata.name !== 'b');
    const { allocator: b, conflicts } = NodeSubnetAllocator.fromNodes(dual, live.reverse());
    expect(conflicts).toEqual([]);
    for (const n of live) expect(b.get(n.metadata.name as string)?.podCIDRs.map(String)).toEqual(n.spec?.podCIDRs);
    // a new node gets a free subnet, never one a live node holds
    const e = b.allocate('e').podCIDRs.map(String);
    expect(live.flatMap((n) => n.spec?.podCIDRs ?? [])).not.toContain(e[0]);
    expect(live.flatMap((n) => n.spec?.podCIDRs ?? [])).not.toContain(e[1]);
  });

  it('accepts Node objects of @switchyard/apis', () => {
    const node: Node = { metadata: { name: 'n' }, spec: { podCIDR: '10.244.7.0/24' } };
    const { allocator } = NodeSubnetAllocator.fromNodes({ clusterCIDRs: ['10.244.0.0/16'] }, [node]);
    expect(allocator.get('n')?.podCIDRs.map(String)).toEqual(['10.244.7.0/24']);
  });

  it('refuses a node whose podCIDR another node already holds, and subnets outside the cluster CIDR', () => {
    const { allocator, conflicts } = NodeSubnetAllocator.fromNodes(dual, [
      asNode('a', ['10.244.3.0/24', 'fd00:10:244:3::/64']),
      asNode('b', ['10.244.3.0/24', 'fd00:10:244:9::/64']),
      asNode('c', ['10.99.0.0/24']),
      asNode('d', ['10.244.4.0/25']),
    ]);
    expect(conflicts.map((c) => [c.node, c.error.code])).toEqual([
      ['b', 'OVERLAP'],
      ['c', 'OUTSIDE_POOL'],
      ['d', 'OUTSIDE_POOL'],
    ]);
    expect(conflicts[0]?.error.message).toContain('node a');
    // all or nothing: b's free IPv6 subnet was not taken
    expect(allocator.get('b')).toBeUndefined();
    expect(code(() => allocator.occupy('x', ['fd00:10:244:9::/64']))).toBe('no error');
    expect(code(() => allocator.occupy('y', ['fd00:10:244:9::/64']))).toBe('OVERLAP');
  });

  it('reuses released subnets only after the free ones ahead of the cursor, and reports exhaustion', () => {
    const a = new NodeSubnetAllocator({ clusterCIDRs: ['10.0.0.0/22'], nodeMaskSizeIPv4: 24 });
    expect(['a', 'b', 'c', 'd'].map((n) => String(a.allocate(n).podCIDRs[0]))).toEqual(['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24', '10.0.3.0/24']);
    expect(code(() => a.allocate('e'))).toBe('EXHAUSTED');
    expect(a.release('b')).toBe(true);
    expect(a.release('b')).toBe(false);
    expect(String(a.allocate('e').podCIDRs[0])).toBe('10.0.1.0/24');
    expect(a.usage()).toEqual([{ clusterCIDR: '10.0.0.0/22', used: 4, total: 4n }]);
  });

  it('rejects bad configuration naming the field', () => {
    for (const [cfg, path] of [
      [{ clusterCIDRs: ['10.0.0.1/16'] }, 'clusterCIDRs[0]'],
      [{ clusterCIDRs: ['10.0.0.0/16', '10.1.0.0/16'] }, 'clusterCIDRs[1]'],
      [{ clusterCIDRs: ['10.0.0.0/24'], nodeMaskSizeIPv4: 16 }, 'nodeMaskSizeIPv4'],
      [{ clusterCIDRs: ['fd00::/32'] }, 'nodeMaskSizeIPv6'],
    ] as const) {
      try {
        new NodeSubnetAllocator({ ...cfg, clusterCIDRs: [...cfg.clusterCIDRs] });
        throw new Error('accepted');
      } catch (e) {
        expect(e).toBeInstanceOf(IpamError);
        expect((e as IpamError).path).toBe(path);
      }
    }
  });
});
