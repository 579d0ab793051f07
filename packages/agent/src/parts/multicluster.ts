/**
 * The multicluster part (featureGates.Multicluster with multicluster.enableGateway, and a
 * Kubernetes API): watches the Gateway and the ClusterInfoImports in the Multi-cluster namespace
 * and keeps the pipeline's Multi-cluster routes in line with them (multicluster.ts computes the
 * spec; the pipeline's multicluster feature makes the flows).
 */
import { Informer, type KubeClient, type KubeObject } from '@switchyard/kube';
import type { MulticlusterSpec } from '@switchyard/openflow-pipeline';
import { systemClock } from '@switchyard/runtime';
import type { AgentContext } from '../context';
import type { AgentController, ControllerHealth } from '../lifecycle';
import { gatewayFacts, multiclusterSpecOf, remoteClusterFacts, type GatewayFacts, type RemoteClusterFacts } from '../multicluster';
import { PRIME_LIST_MS, listWithin } from './kube-resources';
import type { NodeDatapath } from './node-datapath';

const MC = 'multicluster.crd.antrea.io';
export const GATEWAYS = { group: MC, version: 'v1alpha1', plural: 'gateways', kind: 'Gateway', namespaced: true } as const;
export const CLUSTER_INFO_IMPORTS = { group: MC, version: 'v1alpha1', plural: 'clusterinfoimports', kind: 'ClusterInfoImport', namespaced: true } as const;

/** The agent's Multi-cluster settings (antrea-agent.conf `multicluster.*`). */
export interface MulticlusterOptions {
  /** Namespace of the Multi-cluster controller (its Gateway and ClusterInfoImports). */
  namespace: string;
  enablePodToPodConnectivity: boolean;
}

export class MulticlusterRoutes implements AgentController {
  readonly name = 'multicluster';
  private informers: Informer[] = [];
  private readonly gateways = new Map<string, GatewayFacts>();
  private readonly clusters = new Map<string, RemoteClusterFacts>();
  private applied = 'undefined';
  private lastError: unknown;
  private chain: Promise<void> = Promise.resolve();
  /** The spec last installed (undefined: no Gateway). */
  spec: MulticlusterSpec | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: NodeDatapath,
    private readonly mc: MulticlusterOptions,
  ) {}

  private path(plural: string): string {
    return `/apis/${MC}/v1alpha1/namespaces/${encodeURIComponent(this.mc.namespace)}/${plural}`;
  }

  async start(): Promise<void> {
    try {
      const [gws, infos] = await Promise.all([listWithin(this.kube, this.path('gateways'), PRIME_LIST_MS), listWithin(this.kube, this.path('clusterinfoimports'), PRIME_LIST_MS)]);
      for (const o of gws) this.onGateway('ADDED', o);
      for (const o of infos) this.onClusterInfo('ADDED', o);
      this.spec = this.compute();
      this.applied = JSON.stringify(this.spec);
      this.node.flows.setMulticluster(this.spec, false);
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Multi-cluster Gateway not listed before the first round; it follows from the watch');
    }
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    const common = { clock: o.clock ?? systemClock, logger: log, namespace: this.mc.namespace };
    this.informers = [
      new Informer(this.kube, GATEWAYS, (e) => { this.onGateway(e.type, e.object); this.schedule(); }, common),
      new Informer(this.kube, CLUSTER_INFO_IMPORTS, (e) => { this.onClusterInfo(e.type, e.object); this.schedule(); }, common),
    ];
    for (const i of this.informers) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.chain;
  }

  health(): ControllerHealth {
    const s = this.spec;
    const held = s ? `${s.isGateway ? 'gateway' : `gateway ${s.localGatewayIP ?? '?'}`}, ${s.remoteClusters.length} remote clusters` : 'no Gateway';
    if (this.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: true, detail: held };
  }

  private onGateway(type: string, o: KubeObject): void {
    const name = o.metadata.name ?? '';
    const facts = type === 'DELETED' ? undefined : gatewayFacts(o);
    if (facts) this.gateways.set(name, facts);
    else this.gateways.delete(name);
  }

  private onClusterInfo(type: string, o: KubeObject): void {
    const name = o.metadata.name ?? '';
    const facts = type === 'DELETED' ? undefined : remoteClusterFacts(o);
    if (facts) this.clusters.set(name, facts);
    else this.clusters.delete(name);
  }

  private compute(): MulticlusterSpec | undefined {
    return multiclusterSpecOf({ nodeName: this.ctx.options.nodeName, gateways: [...this.gateways.values()], remoteClusters: [...this.clusters.values()], podToPod: this.mc.enablePodToPodConnectivity });
  }

  /** Recomputes after an event and installs the spec when it changed (one at a time, in order). */
  private schedule(): void {
    this.chain = this.chain.then(async () => {
      const spec = this.compute();
      const text = JSON.stringify(spec);
      if (text === this.applied) return;
      try {
        await this.node.flows.setMulticluster(spec);
        this.applied = text;
        this.spec = spec;
        this.lastError = undefined;
        this.ctx.log.info({ isGateway: spec?.isGateway ?? false, localGatewayIP: spec?.localGatewayIP, remoteClusters: spec?.remoteClusters ?? [] }, 'Multi-cluster routes changed');
      } catch (e) {
        this.lastError = e;
        this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'installing Multi-cluster routes failed; retried at the next change');
      }
    });
  }
}
