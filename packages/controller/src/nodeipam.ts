// Node IPAM: podCIDRs for Nodes from the cluster CIDRs (@switchyard/ipam NodeSubnetAllocator).
// State lives on the Node objects themselves, so a restarted controller rebuilds it from them.
import { NodeSubnetAllocator, type NodeSubnetConfig } from '@switchyard/ipam';
import type { KubeObject } from '@switchyard/kube';
import type { KubeClient } from '@switchyard/kube';
import { silentLogger, type Logger } from '@switchyard/runtime';

interface NodeLike {
  metadata: { name?: string };
  spec?: { podCIDR?: string; podCIDRs?: string[] };
}

/** Allocates podCIDRs to Nodes that have none and releases them when Nodes go away. */
export class NodeIpamController {
  private allocator: NodeSubnetAllocator | undefined;
  private readonly log: Logger;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly kube: KubeClient,
    private readonly config: Omit<NodeSubnetConfig, 'logger'>,
    logger?: Logger,
  ) {
    this.log = logger ?? silentLogger;
  }

  /** Take over the podCIDRs already on `nodes` (after the Node informer's first list), then allocate for the rest. */
  start(nodes: Iterable<KubeObject>): void {
    const list = [...nodes] as unknown as NodeLike[];
    const { allocator, conflicts } = NodeSubnetAllocator.fromNodes({ ...this.config, logger: this.log }, list);
    this.allocator = allocator;
    for (const c of conflicts) this.log.warn({ node: c.node, err: c.error.message }, 'node podCIDR conflict');
    for (const n of list) this.onEvent('ADDED', n as unknown as KubeObject);
  }

  /** Node informer event. */
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const alloc = this.allocator;
    if (!alloc) return;
    const node = obj as unknown as NodeLike;
    const name = node.metadata.name ?? '';
    if (type === 'DELETED') {
      alloc.release(name);
      return;
    }
    const has = node.spec?.podCIDRs?.length ? node.spec.podCIDRs : node.spec?.podCIDR ? [node.spec.podCIDR] : [];
    if (has.length > 0) {
      if (!alloc.get(name)) {
        try {
          alloc.occupy(name, has);
        } catch (e) {
          this.log.warn({ node: name, err: (e as Error).message }, 'node podCIDRs not taken over');
        }
      }
      return;
    }
    const subnets = alloc.get(name) ?? alloc.allocate(name);
    const podCIDRs = subnets.podCIDRs.map((c) => c.toString());
    this.chain = this.chain
      .then(() => this.kube.request('PATCH', `/api/v1/nodes/${name}`, { spec: { podCIDR: podCIDRs[0], podCIDRs } }, 'application/merge-patch+json'))
      .then(() => this.log.info({ node: name, podCIDRs }, 'node podCIDRs allocated'))
      .catch((e: unknown) => this.log.error({ node: name, err: (e as Error).message }, 'node podCIDR update failed'));
  }

  /** Resolves when pending Node updates are written. */
  idle(): Promise<void> {
    return this.chain;
  }
}
