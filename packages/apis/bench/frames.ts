// Realistic controlplane watch events: a big node's initial state and the small patches that follow.
import type { controlplane as cp } from '../src/index';

const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const pod = (i: number): cp.GroupMember => ({
  pod: { name: `web-${i}`, namespace: `ns-${i % 500}` },
  ips: [ip(i)],
  ...(i % 4 === 0 ? { ports: [{ name: 'http', port: 8080, protocol: 'TCP' as const }] } : {}),
});

/** A node's initial state: 300 address groups of 40 members, 150 applied-to groups of 4, 150 policies, then a BOOKMARK. */
export function initialState(): cp.WatchEvent[] {
  const out: cp.WatchEvent[] = [];
  for (let g = 0; g < 300; g++) {
    out.push({ type: 'ADDED', kind: 'AddressGroup', object: { name: `ag-${g}`, groupMembers: Array.from({ length: 40 }, (_, k) => pod(g * 40 + k)) } });
  }
  for (let g = 0; g < 150; g++) {
    out.push({ type: 'ADDED', kind: 'AppliedToGroup', object: { name: `atg-${g}`, groupMembers: Array.from({ length: 4 }, (_, k) => pod(100_000 + g * 4 + k)) } });
  }
  for (let p = 0; p < 150; p++) {
    const antrea = p % 3 === 0;
    out.push({
      type: 'ADDED',
      kind: 'NetworkPolicy',
      object: {
        uid: `uid-${p}`,
        name: `uid-${p}`,
        namespace: antrea ? '' : `ns-${p}`,
        sourceRef: antrea
          ? { type: 'AntreaClusterNetworkPolicy', namespace: '', name: `acnp-${p}`, uid: `uid-${p}` }
          : { type: 'K8sNetworkPolicy', namespace: `ns-${p}`, name: `np-${p}`, uid: `uid-${p}` },
        rules: [
          {
            direction: 'In',
            from: { addressGroups: [`ag-${p}`, `ag-${p + 150}`], ipBlocks: antrea ? [{ cidr: '192.168.0.0/16', except: ['192.168.1.0/24'] }] : [] },
            to: { addressGroups: [], ipBlocks: [] },
            services: [{ protocol: 'TCP', port: 80 }, { protocol: 'TCP', port: 'http' }],
            priority: 0,
            enableLogging: false,
            ...(antrea ? { action: 'Allow' as const, name: 'allow-web' } : {}),
          },
          ...(antrea
            ? [{ direction: 'Out' as const, from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: '0.0.0.0/0', except: [] }] }, services: [], priority: 1, enableLogging: true, action: 'Drop' as const }]
            : []),
        ],
        appliedToGroups: [`atg-${p}`],
        generation: 3,
        ...(antrea ? { priority: 5.5, tierPriority: 250 } : { policyTypes: ['Ingress' as const] }),
      },
    });
  }
  out.push({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: '1700000000.120000' } });
  return out;
}

/** Incremental events: a pod moving between groups (one member out, one in) with a resourceVersion each, and a BOOKMARK every 100. */
export function patches(n: number): cp.WatchEvent[] {
  const out: cp.WatchEvent[] = [];
  for (let i = 0; i < n; i++) {
    const rv = `1700000000.${120_001 + i}`;
    out.push(
      i % 100 === 99
        ? { type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: rv } }
        : i % 2 === 0
          ? { type: 'MODIFIED', kind: 'AddressGroupPatch', resourceVersion: rv, object: { name: `ag-${i % 300}`, addedGroupMembers: [pod(i)], removedGroupMembers: [pod(i + 1)] } }
          : { type: 'MODIFIED', kind: 'AppliedToGroupPatch', resourceVersion: rv, object: { name: `atg-${i % 150}`, addedGroupMembers: [pod(i)], removedGroupMembers: [] } },
    );
  }
  return out;
}
