/**
 * The pipeline framework: pipelines, stages and tables declared once in Antrea's order. Tables get
 * numbers only when an enabled feature needs them, so names (not numbers) are the stable identity.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';

/** Pipelines, in the order their tables are numbered. */
export const PIPELINES = ['root', 'arp', 'ip', 'multicast', 'nonIp'] as const;
export type PipelineId = (typeof PIPELINES)[number];

/** Stages, in packet order. */
export const STAGES = [
  'start', 'classifier', 'validation', 'conntrackState', 'preRouting', 'egressSecurity',
  'routing', 'postRouting', 'switching', 'ingressSecurity', 'conntrack', 'output',
] as const;
export type StageId = (typeof STAGES)[number];

/** A declared table: name (as Antrea's), stage, pipeline and miss action. */
export interface TableDecl {
  readonly name: string;
  readonly stage: StageId;
  readonly pipeline: PipelineId;
  /** Miss drops instead of going on to the next table. */
  readonly missDrop: boolean;
}

const t = <N extends string>(name: N, stage: StageId, pipeline: PipelineId, missDrop = false) =>
  ({ name, stage, pipeline, missDrop }) as const;

/** Every table, declared once, in order within each pipeline (pipeline.go). */
export const TABLE_DECLS = [
  t('PipelineRootClassifier', 'start', 'root', true),
  t('ARPSpoofGuard', 'validation', 'arp', true),
  t('ARPResponder', 'output', 'arp'),
  t('Classifier', 'classifier', 'ip', true),
  t('SpoofGuard', 'validation', 'ip', true),
  t('IPv6', 'validation', 'ip'),
  t('PipelineIPClassifier', 'validation', 'ip'),
  t('UnSNAT', 'conntrackState', 'ip'),
  t('ConntrackZone', 'conntrackState', 'ip'),
  t('ConntrackState', 'conntrackState', 'ip'),
  t('PreRoutingClassifier', 'preRouting', 'ip'),
  t('NodePortMark', 'preRouting', 'ip'),
  t('SessionAffinity', 'preRouting', 'ip'),
  t('ServiceLB', 'preRouting', 'ip'),
  t('DSRServiceMark', 'preRouting', 'ip'),
  t('EndpointDNAT', 'preRouting', 'ip'),
  t('DNAT', 'preRouting', 'ip'),
  t('EgressSecurityClassifier', 'egressSecurity', 'ip'),
  t('AntreaPolicyEgressRule', 'egressSecurity', 'ip'),
  t('EgressRule', 'egressSecurity', 'ip'),
  t('EgressDefaultRule', 'egressSecurity', 'ip'),
  t('EgressMetric', 'egressSecurity', 'ip'),
  t('L3Forwarding', 'routing', 'ip'),
  t('EgressMark', 'routing', 'ip'),
  t('EgressQoS', 'routing', 'ip'),
  t('L3DecTTL', 'routing', 'ip'),
  t('SNATMark', 'postRouting', 'ip'),
  t('SNAT', 'postRouting', 'ip'),
  t('L2ForwardingCalc', 'switching', 'ip'),
  t('TrafficControl', 'switching', 'ip'),
  t('IngressSecurityClassifier', 'ingressSecurity', 'ip'),
  t('AntreaPolicyIngressRule', 'ingressSecurity', 'ip'),
  t('IngressRule', 'ingressSecurity', 'ip'),
  t('IngressDefaultRule', 'ingressSecurity', 'ip'),
  t('IngressMetric', 'ingressSecurity', 'ip'),
  t('ConntrackCommit', 'conntrack', 'ip'),
  t('VLAN', 'output', 'ip'),
  t('Output', 'output', 'ip'),
  t('MulticastEgressRule', 'egressSecurity', 'multicast'),
  t('MulticastEgressMetric', 'egressSecurity', 'multicast'),
  t('MulticastEgressPodMetric', 'egressSecurity', 'multicast'),
  t('MulticastRouting', 'routing', 'multicast'),
  t('MulticastIngressRule', 'ingressSecurity', 'multicast'),
  t('MulticastIngressMetric', 'ingressSecurity', 'multicast'),
  t('MulticastIngressPodMetric', 'ingressSecurity', 'multicast'),
  t('MulticastOutput', 'output', 'multicast'),
  t('NonIP', 'classifier', 'nonIp', true),
] as const;

/** Name of a declared table. */
export type TableName = (typeof TABLE_DECLS)[number]['name'];

const DECL_BY_NAME = new Map<string, TableDecl>(TABLE_DECLS.map((d) => [d.name, d]));

/** A table realized in a pipeline: declaration plus its number and miss target. */
export interface RealizedTable extends TableDecl {
  readonly name: TableName;
  readonly id: number;
  /** Next realized table of the same pipeline; undefined for the last one (whose miss drops). */
  readonly next: TableName | undefined;
}

/**
 * The realized pipeline: the tables that enabled features need, numbered in declaration order
 * (root first, then ARP, IP, multicast, non-IP). Immutable.
 */
export class Pipeline {
  private readonly byName = new Map<string, RealizedTable>();
  private readonly byId: RealizedTable[] = [];

  private constructor(required: ReadonlySet<string>) {
    let id = 0;
    for (const p of PIPELINES) {
      const decls = TABLE_DECLS.filter((d) => d.pipeline === p && required.has(d.name));
      decls.forEach((d, i) => {
        const rt: RealizedTable = { ...d, id: id++, next: decls[i + 1]?.name };
        this.byName.set(d.name, rt);
        this.byId.push(rt);
      });
    }
  }

  /** Realizes the given tables (PipelineRootClassifier is always present). */
  static build(required: Iterable<TableName>): Pipeline {
    const set = new Set<string>(['PipelineRootClassifier']);
    for (const n of required) {
      if (!DECL_BY_NAME.has(n)) throw new PipelineError('UNKNOWN_TABLE', `unknown table ${n}`, n);
      set.add(n);
    }
    return new Pipeline(set);
  }

  /** True when the table is realized. */
  has(name: TableName): boolean {
    return this.byName.has(name);
  }

  /** The realized table, or a TABLE_NOT_ENABLED error. */
  table(name: TableName): RealizedTable {
    const rt = this.byName.get(name);
    if (!rt) throw new PipelineError('TABLE_NOT_ENABLED', `table ${name} is not realized by the enabled features`, name, name);
    return rt;
  }

  /** Table number. */
  id(name: TableName): number {
    return this.table(name).id;
  }

  /** Number of the next realized table after `name` in its pipeline. */
  nextId(name: TableName): number {
    const next = this.table(name).next;
    if (next === undefined) throw new PipelineError('TABLE_NOT_ENABLED', `table ${name} is the last of its pipeline`, name, name);
    return this.id(next);
  }

  /** Number of the first realized table of a stage at or after `stage` in the IP pipeline (GotoStage). */
  stageId(stage: StageId, pipeline: PipelineId = 'ip'): number {
    const from = STAGES.indexOf(stage);
    const rt = this.byId.find((r) => r.pipeline === pipeline && STAGES.indexOf(r.stage) >= from);
    if (!rt) throw new PipelineError('TABLE_NOT_ENABLED', `no realized table in stage ${stage}`, stage, pipeline);
    return rt.id;
  }

  /** Table name for a number (for rendering dumps by name). */
  nameOf(id: number): TableName | undefined {
    return this.byId[id]?.name;
  }

  /** All realized tables in number order. */
  tables(): readonly RealizedTable[] {
    return this.byId;
  }

  /** The priority-0 miss flow of every realized table: goto next, or drop. */
  missFlows(cookie: bigint): Flow[] {
    return this.byId.map((rt) => ({
      table: rt.id,
      priority: 0,
      cookie,
      match: {},
      actions: rt.missDrop || rt.next === undefined ? [] : [{ type: 'gotoTable', table: this.id(rt.next) }],
    }));
  }
}
