// Node subnet allocation: cluster CIDRs (dual-stack) carved into one podCIDR per node and family.
import type { CidrError, Ip} from './cidr/index';
import { Cidr, parseCidr, type IpFamily } from './cidr/index';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { IpamError } from './errors';
import { UsedSet } from './internal/used-set';

/** The part of a core/v1 Node this allocator reads (structurally compatible with @switchyard/apis Node). */
export interface NodeLike {
  metadata: { name?: string };
  spec?: { podCIDR?: string; podCIDRs?: string[] };
}

/** Configuration of {@link NodeSubnetAllocator}, as kube-controller-manager's flags. */
export interface NodeSubnetConfig {
  /** At most one CIDR per family (`--cluster-cidr`, dual-stack as two entries). */
  clusterCIDRs: string[];
  /** Prefix length of each node's IPv4 subnet (`--node-cidr-mask-size-ipv4`), default 24. */
  nodeMaskSizeIPv4?: number;
  /** Prefix length of each node's IPv6 subnet (`--node-cidr-mask-size-ipv6`), default 64. */
  nodeMaskSizeIPv6?: number;
  logger?: Logger;
}

/** A node's subnets, in the order of the cluster CIDRs (the order of `spec.podCIDRs`). */
export interface NodeSubnets {
  node: string;
  podCIDRs: Cidr[];
  /** Gateway of each subnet: its first address after the network address. */
  gateways: Ip[];
}

/** A node whose existing podCIDRs could not be taken over during {@link NodeSubnetAllocator.rebuild}. */
export interface RebuildConflict {
  node: string;
  error: IpamError;
}

/** Subnets with more than this many host bits beyond the cluster prefix are refused, as Kubernetes does. */
const MAX_SUBNET_BITS = 16;

interface Pool {
  cluster: Cidr;
  maskSize: number;
  /** Indexes of used node subnets inside the cluster CIDR. */
  used: UsedSet;
  count: bigint;
  cursor: bigint;
}

/**
 * Hands out one podCIDR per node and cluster CIDR, never two overlapping, round-robin like the
 * Kubernetes range allocator. State is rebuilt from Node objects, so it is stable across
 * restarts; {@link NodeSubnetAllocator.release} frees a deleted node's subnets.
 */
export class NodeSubnetAllocator {
  private readonly pools: Pool[] = [];
  private readonly byNode = new Map<string, Cidr[]>();
  private readonly log: Logger;

  /** @throws IpamError INVALID_CONFIG */
  constructor(config: NodeSubnetConfig) {
    this.log = config.logger ?? silentLogger;
    if (config.clusterCIDRs.length === 0 || config.clusterCIDRs.length > 2) {
      throw new IpamError('INVALID_CONFIG', 'clusterCIDRs must hold one CIDR, or one per family for dual-stack', config.clusterCIDRs, 'clusterCIDRs');
    }
    const seen = new Set<IpFamily>();
    config.clusterCIDRs.forEach((text, i) => {
      const path = `clusterCIDRs[${i}]`;
      let cluster: Cidr;
      try {
        cluster = parseCidr(text, { strict: true, path });
      } catch (e) {
        throw new IpamError('INVALID_CONFIG', (e as CidrError).message, text, path, { cause: e });
      }
      if (seen.has(cluster.family)) throw new IpamError('INVALID_CONFIG', `two IPv${cluster.family} cluster CIDRs`, text, path);
      seen.add(cluster.family);
      const maskSize = cluster.family === 4 ? (config.nodeMaskSizeIPv4 ?? 24) : (config.nodeMaskSizeIPv6 ?? 64);
      const maskPath = cluster.family === 4 ? 'nodeMaskSizeIPv4' : 'nodeMaskSizeIPv6';
      if (!Number.isInteger(maskSize) || maskSize < cluster.prefix || maskSize > cluster.bits) {
        throw new IpamError('INVALID_CONFIG', `node mask size ${maskSize} does not fit cluster CIDR ${cluster.toString()}: a node's subnet lies within it, so the size must be ${cluster.prefix} to ${cluster.bits}`, maskSize, maskPath);
      }
      if (maskSize - cluster.prefix > MAX_SUBNET_BITS) {
        throw new IpamError('INVALID_CONFIG', `node mask size ${maskSize} gives more than 2^${MAX_SUBNET_BITS} subnets of ${cluster.toString()}`, maskSize, maskPath);
      }
      this.pools.push({ cluster, maskSize, used: new UsedSet(), count: 1n << BigInt(maskSize - cluster.prefix), cursor: 0n });
    });
  }

  /**
   * A new allocator holding the podCIDRs already on `nodes` (the restart path). Nodes whose
   * podCIDRs overlap an earlier node's or fall outside the cluster CIDRs are returned as
   * conflicts and get no subnet until fixed.
   */
  static fromNodes(config: NodeSubnetConfig, nodes: Iterable<NodeLike>): { allocator: NodeSubnetAllocator; conflicts: RebuildConflict[] } {
    const allocator = new NodeSubnetAllocator(config);
    return { allocator, conflicts: allocator.rebuild(nodes) };
  }

  /** Takes over the podCIDRs recorded on existing nodes; see {@link NodeSubnetAllocator.fromNodes}. */
  rebuild(nodes: Iterable<NodeLike>): RebuildConflict[] {
    const conflicts: RebuildConflict[] = [];
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      const cidrs = node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
      if (cidrs.length === 0) continue;
      try {
        this.occupy(name, cidrs);
      } catch (e) {
        if (!(e instanceof IpamError)) throw e;
        this.log.warn({ node: name, err: e }, 'node podCIDRs not taken over');
        conflicts.push({ node: name, error: e });
      }
    }
    return conflicts;
  }

  /**
   * Records that `node` holds these subnets (from its `spec.podCIDRs`). All or nothing.
   * @throws IpamError OVERLAP (another node holds one), OUTSIDE_POOL (no matching cluster CIDR
   * or wrong mask size), INVALID_CONFIG (unparsable)
   */
  occupy(node: string, podCIDRs: readonly string[]): NodeSubnets {
    const parsed = podCIDRs.map((text, i) => {
      const path = `${node}.spec.podCIDRs[${i}]`;
      try {
        return parseCidr(text, { strict: true, path });
      } catch (e) {
        throw new IpamError('INVALID_CONFIG', (e as CidrError).message, text, path, { cause: e });
      }
    });
    const held = this.byNode.get(node);
    if (held) {
      if (held.length === parsed.length && held.every((c, i) => c.equals(parsed[i] as Cidr))) return this.describe(node, held);
      throw new IpamError('OVERLAP', `node ${node} already holds ${held.join(',')}`, podCIDRs, `${node}.spec.podCIDRs`);
    }
    const claims: [Pool, bigint][] = [];
    parsed.forEach((cidr, i) => {
      const path = `${node}.spec.podCIDRs[${i}]`;
      const pool = this.pools.find((p) => p.cluster.family === cidr.family);
      if (!pool || !pool.cluster.contains(cidr) || cidr.prefix !== pool.maskSize) {
        throw new IpamError('OUTSIDE_POOL', `${cidr.toString()} is not a /${pool?.maskSize ?? '?'} subnet of the cluster CIDRs`, cidr.toString(), path);
      }
      const index = (cidr.base - pool.cluster.base) >> BigInt(cidr.bits - pool.maskSize);
      if (pool.used.has(index) || claims.some(([p, idx]) => p === pool && idx === index)) {
        const owner = [...this.byNode].find(([, cs]) => cs.some((c) => c.equals(cidr)))?.[0];
        throw new IpamError('OVERLAP', `${cidr.toString()} of node ${node} is already held by node ${owner ?? node}`, cidr.toString(), path);
      }
      claims.push([pool, index]);
    });
    for (const [pool, index] of claims) pool.used.add(index);
    this.byNode.set(node, parsed);
    return this.describe(node, parsed);
  }

  /**
   * Gives `node` one subnet per cluster CIDR (dual-stack: v4 then v6, the cluster CIDR order).
   * Idempotent: a node that holds subnets gets the same ones back.
   * @throws IpamError EXHAUSTED naming the full cluster CIDR
   */
  allocate(node: string): NodeSubnets {
    const held = this.byNode.get(node);
    if (held) return this.describe(node, held);
    const picks: [Pool, bigint][] = [];
    for (const pool of this.pools) {
      const index = this.nextFree(pool);
      if (index === undefined) {
        throw new IpamError('EXHAUSTED', `cluster CIDR ${pool.cluster.toString()} has no free /${pool.maskSize} for node ${node}`, pool.cluster.toString(), 'clusterCIDRs');
      }
      picks.push([pool, index]);
    }
    const cidrs = picks.map(([pool, index]) => {
      pool.used.add(index);
      pool.cursor = (index + 1n) % pool.count;
      return new Cidr(pool.cluster.family, pool.cluster.base + (index << BigInt(pool.cluster.bits - pool.maskSize)), pool.maskSize);
    });
    this.byNode.set(node, cidrs);
    this.log.info({ node, podCIDRs: cidrs.map(String) }, 'allocated node subnets');
    return this.describe(node, cidrs);
  }

  /** Frees the subnets of a deleted node. Returns false when it held none. */
  release(node: string): boolean {
    const held = this.byNode.get(node);
    if (!held) return false;
    for (const cidr of held) {
      const pool = this.pools.find((p) => p.cluster.contains(cidr));
      pool?.used.delete((cidr.base - pool.cluster.base) >> BigInt(cidr.bits - pool.maskSize));
    }
    this.byNode.delete(node);
    this.log.info({ node, podCIDRs: held.map(String) }, 'released node subnets');
    return true;
  }

  /** The subnets a node holds, if any. */
  get(node: string): NodeSubnets | undefined {
    const held = this.byNode.get(node);
    return held && this.describe(node, held);
  }

  /** Every node with its subnets. */
  list(): NodeSubnets[] {
    return [...this.byNode].map(([node, cidrs]) => this.describe(node, cidrs));
  }

  /** Free and total node subnets per cluster CIDR. */
  usage(): { clusterCIDR: string; used: number; total: bigint }[] {
    return this.pools.map((p) => ({ clusterCIDR: p.cluster.toString(), used: p.used.size, total: p.count }));
  }

  private nextFree(pool: Pool): bigint | undefined {
    let i = pool.used.nextFree(pool.cursor);
    if (i < pool.count) return i;
    i = pool.used.nextFree(0n);
    return i < pool.cursor ? i : undefined;
  }

  private describe(node: string, cidrs: Cidr[]): NodeSubnets {
    return { node, podCIDRs: cidrs, gateways: cidrs.map((c) => c.gateway()) };
  }
}
