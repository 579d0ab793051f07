// Node podCIDRs: kube-apiserver's checks of spec.podCIDR(s) and, with cluster CIDRs configured,
// kube-controller-manager's node IPAM (--allocate-node-cidrs): one podCIDR per family for each Node.

import { IpamError, NodeSubnetAllocator } from '@switchyard/ipam';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { Logger } from '@switchyard/runtime';
import type { AdmissionRequest } from './api';
import { invalid, type FieldError } from './errors';
import { isRecord, type KubeObject } from './types';

/** Node IPAM settings, as kube-controller-manager's flags. */
export interface NodeCidrOptions {
  /** `--cluster-cidr`: one CIDR, or an IPv4 and an IPv6 one comma-separated (dual-stack). */
  clusterCIDR: string;
  /** `--node-cidr-mask-size-ipv4` (default 24). */
  nodeCIDRMaskSizeIPv4?: number;
  /** `--node-cidr-mask-size-ipv6` (default 64). */
  nodeCIDRMaskSizeIPv6?: number;
}

interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  [k: string]: unknown;
}

const goList = (xs: readonly string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

/** The field errors kube-apiserver gives for a Node's podCIDR fields (ValidateNode). */
function checkPodCIDRs(spec: NodeSpec, old: NodeSpec | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const cidrs = spec.podCIDRs ?? [];
  if (spec.podCIDR && cidrs[0] !== spec.podCIDR) errs.push({ field: 'spec.podCIDRs[0]', reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(cidrs[0] ?? '')}: must match spec.podCIDR ${JSON.stringify(spec.podCIDR)}` });
  if (cidrs.length > 2) errs.push({ field: 'spec.podCIDRs', reason: 'FieldValueTooMany', detail: `Too many: ${cidrs.length}: must have at most 2 items` });
  const families: number[] = [];
  cidrs.forEach((c, i) => {
    try {
      families.push(parseCidr(c).family);
    } catch {
      errs.push({ field: `spec.podCIDRs[${i}]`, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(c)}: must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)` });
    }
  });
  if (families.length === 2 && families[0] === families[1]) errs.push({ field: 'spec.podCIDRs', reason: 'FieldValueInvalid', detail: `Invalid value: ${goList(cidrs)}: may specify no more than one CIDR for each IP family` });
  const before = old?.podCIDRs ?? [];
  if (before.length > 0 && (before.length !== cidrs.length || before.some((c, i) => c !== cidrs[i]))) {
    errs.push({ field: 'spec.podCIDRs', reason: 'FieldValueForbidden', detail: 'Forbidden: node updates may not change podCIDR except from "" to valid' });
  }
  return errs;
}

/** podCIDR checks for every Node; allocation only when cluster CIDRs are configured. */
export class NodeCidrs {
  private readonly allocator: NodeSubnetAllocator | undefined;

  /** @throws IpamError INVALID_CONFIG for unusable cluster CIDRs or mask sizes */
  constructor(
    options: NodeCidrOptions | undefined,
    private readonly log: Logger,
  ) {
    this.allocator = options
      ? new NodeSubnetAllocator({
          clusterCIDRs: options.clusterCIDR.split(',').map((s) => s.trim()),
          ...(options.nodeCIDRMaskSizeIPv4 !== undefined ? { nodeMaskSizeIPv4: options.nodeCIDRMaskSizeIPv4 } : {}),
          ...(options.nodeCIDRMaskSizeIPv6 !== undefined ? { nodeMaskSizeIPv6: options.nodeCIDRMaskSizeIPv6 } : {}),
          logger: log,
        })
      : undefined;
  }

  /** Takes over the podCIDRs of stored Nodes (a restart with a data directory). */
  rebuild(nodes: readonly KubeObject[]): void {
    this.allocator?.rebuild(nodes as { metadata: { name?: string }; spec?: NodeSpec }[]);
  }

  /** Frees a deleted Node's subnets. */
  release(node: string): void {
    this.allocator?.release(node);
  }

  /**
   * Admission of a Node create or update: `podCIDRs` defaulted from `podCIDR` and the reverse,
   * checked as kube-apiserver does (422 naming the field), immutable once set (an update that leaves
   * them out keeps the stored ones); with cluster CIDRs, a Node without podCIDRs gets one per family.
   */
  admit(r: AdmissionRequest): void {
    if (r.op === 'delete' || r.subresource === 'status') return;
    const spec = (isRecord(r.obj.spec) ? r.obj.spec : {}) as NodeSpec;
    const old = r.old ? ((r.old.spec ?? {}) as NodeSpec) : undefined;
    const name = r.obj.metadata.name ?? '';
    if (spec.podCIDR === undefined && spec.podCIDRs === undefined && old?.podCIDRs?.length) {
      spec.podCIDR = old.podCIDR ?? (old.podCIDRs[0] as string);
      spec.podCIDRs = old.podCIDRs;
    }
    if (spec.podCIDR && spec.podCIDRs === undefined) spec.podCIDRs = [spec.podCIDR];
    if (!spec.podCIDR && spec.podCIDRs?.[0]) spec.podCIDR = spec.podCIDRs[0];
    const errs = checkPodCIDRs(spec, old);
    if (errs.length > 0) throw invalid('Node', '', name, errs);
    if (!isRecord(r.obj.spec) && spec.podCIDRs?.length) r.obj.spec = spec;
    if (!this.allocator || r.dryRun) return;
    if (spec.podCIDRs?.length) {
      if (old?.podCIDRs?.length) return;
      try {
        this.allocator.occupy(name, spec.podCIDRs);
      } catch (e) {
        // kube-controller-manager leaves such a Node alone (an event, CIDRNotAvailable); so does this.
        if (!(e instanceof IpamError)) throw e;
        this.log.warn({ node: name, podCIDRs: spec.podCIDRs, err: e.message }, 'node podCIDRs not taken over');
      }
      return;
    }
    let got;
    try {
      got = this.allocator.allocate(name);
    } catch (e) {
      // Exhausted: the Node is stored without podCIDRs, as kube-controller-manager leaves it.
      if (!(e instanceof IpamError)) throw e;
      this.log.warn({ node: name, err: e.message }, 'no podCIDRs for node');
      return;
    }
    spec.podCIDR = got.podCIDRs[0]!.toString();
    spec.podCIDRs = got.podCIDRs.map(String);
    r.obj.spec = spec;
  }
}
