/**
 * The multicluster part (featureGates.Multicluster with multicluster.enableGateway, and a
 * Kubernetes API): watches the Gateway and the ClusterInfoImports in the Multi-cluster namespace
 * and keeps the pipeline's Multi-cluster routes in line with them (spec.ts computes the
 * spec; the pipeline's multicluster feature makes the flows). With WireGuard between the gateways
 * it also keeps the gateway's WireGuard peers and host routes (./gateway-wireguard).
 */
import { Informer, type KubeClient, type KubeObject } from '@switchyard/kube';
import type { MulticlusterSpec } from '@switchyard/openflow-pipeline';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { gatewayFacts, gatewayWireGuardPlan, multiclusterSpecOf, podLabelIdentities, remoteClusterFacts, type GatewayFacts, type LocalPodLabels, type RemoteClusterFacts } from './spec';
import { PODS, PRIME_LIST_MS, listWithin } from '../../kube-resources';
import { GatewayWireGuard } from './gateway-wireguard';
import type { MulticlusterOptions } from './options';
import type { NodeDatapath } from '../node/part';
import type { WireGuardFamilies } from '../wireguard/wireguard';

const MC = 'multicluster.crd.antrea.io';
export const GATEWAYS = { group: MC, version: 'v1alpha1', plural: 'gateways', kind: 'Gateway', namespaced: true } as const;
export const CLUSTER_INFO_IMPORTS = { group: MC, version: 'v1alpha1', plural: 'clusterinfoimports', kind: 'ClusterInfoImport', namespaced: true } as const;
export const LABEL_IDENTITIES = { group: MC, version: 'v1alpha1', plural: 'labelidentities', kind: 'LabelIdentity', namespaced: false } as const;
export const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false } as const;

export class MulticlusterRoutes implements Part {
  readonly name = 'multicluster';
  private informers: Informer[] = [];
  private readonly gateways = new Map<string, GatewayFacts>();
  private readonly clusters = new Map<string, RemoteClusterFacts>();
  /** Stretched NetworkPolicy inputs: LabelIdentity label -> id, this node's Pods, Namespace labels. */
  private readonly labelIds = new Map<string, number>();
  /** LabelIdentity objects by name (the label -> id map is rebuilt from them). */
  private readonly labelObjects = new Map<string, { label: string; id: number }>();
  private readonly pods = new Map<string, LocalPodLabels>();
  private readonly namespaceLabels = new Map<string, Record<string, string>>();
  private applied = 'undefined';
  private appliedWireGuard = '';
  private lastError: unknown;
  /** The gateway's WireGuard device (multicluster.trafficEncryptionMode wireGuard). */
  readonly wireGuard: GatewayWireGuard | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The spec last installed (undefined: no Gateway). */
  spec: MulticlusterSpec | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows'>,
    private readonly mc: MulticlusterOptions,
  ) {
    this.wireGuard = mc.wireGuard ? new GatewayWireGuard(ctx, kube, mc.wireGuard.port) : undefined;
  }

  private path(plural: string): string {
    return `/apis/${MC}/v1alpha1/namespaces/${encodeURIComponent(this.mc.namespace)}/${plural}`;
  }

  private get stretched(): boolean {
    return this.mc.enableStretchedNetworkPolicy === true;
  }

  private podsPath(): string {
    return `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${this.ctx.options.nodeName}`)}`;
  }

  async start(): Promise<void> {
    // The device is needed whatever the Gateway: a failure here fails the agent's start.
    await this.wireGuard?.start();
    try {
      const [gws, infos] = await Promise.all([listWithin(this.kube, this.path('gateways'), PRIME_LIST_MS), listWithin(this.kube, this.path('clusterinfoimports'), PRIME_LIST_MS)]);
      for (const o of gws) this.onGateway('ADDED', o);
      for (const o of infos) this.onClusterInfo('ADDED', o);
      if (this.stretched) {
        const [ids, pods, nss] = await Promise.all([
          listWithin(this.kube, `/apis/${MC}/v1alpha1/labelidentities`, PRIME_LIST_MS),
          listWithin(this.kube, this.podsPath(), PRIME_LIST_MS),
          listWithin(this.kube, '/api/v1/namespaces', PRIME_LIST_MS),
        ]);
        for (const o of ids) this.onLabelIdentity('ADDED', o);
        for (const o of pods) this.onPod('ADDED', o);
        for (const o of nss) this.onNamespace('ADDED', o);
      }
      this.spec = this.compute();
      await this.applyWireGuard(this.spec);
      this.applied = JSON.stringify(this.spec);
      this.node.flows.prime('multicluster', this.spec);
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
    if (this.stretched) {
      const cluster = { clock: common.clock, logger: log };
      this.informers.push(
        new Informer(this.kube, LABEL_IDENTITIES, (e) => { this.onLabelIdentity(e.type, e.object); this.schedule(); }, cluster),
        new Informer(this.kube, PODS, (e) => { this.onPod(e.type, e.object); this.schedule(); }, { ...cluster, fieldSelector: `spec.nodeName=${o.nodeName}` }),
        new Informer(this.kube, NAMESPACES, (e) => { this.onNamespace(e.type, e.object); this.schedule(); }, cluster),
      );
    }
    for (const i of this.informers) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.chain;
    this.wireGuard?.stop();
    await this.wireGuard?.idle();
  }

  health(): PartHealth {
    const s = this.spec;
    const held = s ? `${s.isGateway ? 'gateway' : `gateway ${s.localGatewayIP ?? '?'}`}, ${s.remoteClusters.length} remote clusters` : 'no Gateway';
    const wg = this.wireGuard?.health();
    if (wg && !wg.ok) return { ok: false, detail: `${held}; ${wg.detail}` };
    if (this.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: true, detail: wg ? `${held}; ${wg.detail}` : held };
  }

  /** This node's pod families: which of other clusters' CIDRs and gateway addresses it uses. */
  private get families(): WireGuardFamilies {
    if (this.ctx.podCIDR === undefined) return 'ipv6';
    return this.ctx.podCIDRv6 !== undefined ? 'dual' : 'ipv4';
  }

  /** The gateway's WireGuard peers and routes for `spec`, when they changed. */
  private async applyWireGuard(spec: MulticlusterSpec | undefined): Promise<void> {
    if (!this.wireGuard || !this.mc.wireGuard) return;
    const plan = gatewayWireGuardPlan(spec, [...this.clusters.values()], this.mc.wireGuard.port, this.families);
    const text = JSON.stringify(plan);
    if (text === this.appliedWireGuard) return;
    await this.wireGuard.apply(plan);
    this.appliedWireGuard = text;
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
    // Named once per change of the object (the fields are left out; the rest still routes).
    if (facts?.problems) this.ctx.log.warn({ clusterInfoImport: name, problems: facts.problems }, `ClusterInfoImport ${name}: ${facts.problems.join('; ')}`);
    if (facts) this.clusters.set(name, facts);
    else this.clusters.delete(name);
  }

  private onLabelIdentity(type: string, o: KubeObject): void {
    const spec = (o['spec'] ?? {}) as { label?: unknown; id?: unknown };
    const name = o.metadata.name ?? '';
    // Keyed by object name; the label -> id map is rebuilt from it (a label moves ids only through delete + create).
    if (type === 'DELETED' || typeof spec.label !== 'string' || typeof spec.id !== 'number') this.labelObjects.delete(name);
    else this.labelObjects.set(name, { label: spec.label, id: spec.id });
    this.labelIds.clear();
    for (const l of this.labelObjects.values()) this.labelIds.set(l.label, l.id);
  }

  private onPod(type: string, o: KubeObject): void {
    const key = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    const status = (o['status'] ?? {}) as { podIP?: unknown; podIPs?: unknown };
    const ip = status.podIP;
    const hostNetwork = ((o['spec'] ?? {}) as { hostNetwork?: unknown }).hostNetwork === true;
    // A dual-stack pod's every address (status.podIPs), so its IPv6 traffic carries its label identity too.
    const ips = Array.isArray(status.podIPs) ? status.podIPs.map((x) => (x as { ip?: unknown })?.ip).filter((x): x is string => typeof x === 'string' && x !== '') : [];
    if (type === 'DELETED' || typeof ip !== 'string' || ip === '' || hostNetwork) this.pods.delete(key);
    else this.pods.set(key, { namespace: o.metadata.namespace ?? '', labels: o.metadata.labels ?? {}, ip, ...(ips.length > 1 ? { ips: [ip, ...ips.filter((x) => x !== ip)] } : {}) });
  }

  private onNamespace(type: string, o: KubeObject): void {
    const name = o.metadata.name ?? '';
    if (type === 'DELETED') this.namespaceLabels.delete(name);
    else this.namespaceLabels.set(name, o.metadata.labels ?? {});
  }

  private compute(): MulticlusterSpec | undefined {
    return multiclusterSpecOf({
      nodeName: this.ctx.options.nodeName, gateways: [...this.gateways.values()], remoteClusters: [...this.clusters.values()], podToPod: this.mc.enablePodToPodConnectivity, families: this.families,
      ...(this.mc.wireGuard ? { wireGuard: true } : {}),
      ...(this.stretched ? { labelIdentities: podLabelIdentities([...this.pods.values()], this.namespaceLabels, this.labelIds) } : {}),
    });
  }

  /** Recomputes after an event and installs the spec when it changed (one at a time, in order). */
  private schedule(): void {
    this.chain = this.chain.then(async () => {
      const spec = this.compute();
      const text = JSON.stringify(spec);
      try {
        // Routes into the WireGuard device before flows that send to the host (and its peers' changes alone).
        await this.applyWireGuard(spec);
        if (text === this.applied) {
          this.lastError = undefined;
          return;
        }
        await this.node.flows.set('multicluster', spec);
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
