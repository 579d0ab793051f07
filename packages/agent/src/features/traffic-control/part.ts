/**
 * The TrafficControl part (with a Kubernetes API and the `trafficControl` option): watches the
 * TrafficControls, the Namespaces and this node's Pods, realizes the target and return ports they
 * name on the bridge (an OVS internal port is created, a device attached), and keeps the pipeline's
 * TrafficControl slice (`extensions.trafficControl`) equal to what applies here. Changes are
 * applied one at a time, latest state wins, failures retried (runtime's Reconciler).
 */
import type { TrafficControl } from '@switchyard/apis/types';
import { Informer, type InformerEvent, type KubeClient, type KubeObject } from '@switchyard/kube';
import type { TrafficControlRule } from '@switchyard/openflow-pipeline';
import { Reconciler, systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { PODS } from '../../kube-resources';
import type { NodeDatapath } from '../node/part';
import { localPort, trafficControlRules, unsupported, type LocalPodFacts, type LocalPortRef } from './rules';

export const TRAFFIC_CONTROLS = { group: 'crd.antrea.io', version: 'v1alpha2', plural: 'trafficcontrols', kind: 'TrafficControl', namespaced: false } as const;
export const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false } as const;

/** external_ids of the ports this part creates (Antrea marks its TrafficControl ports the same way). */
const PORT_EXTERNAL_IDS = { 'antrea-type': 'traffic-control' };

export class TrafficControlPart implements Part {
  readonly name = 'traffic-control';
  private informers: Informer[] = [];
  private reconciler: Reconciler | undefined;
  /** Bridge ports of realized target and return ports, by `<kind>/<name>`. */
  private readonly ports = new Map<string, number>();
  /** The rules last handed to the pipeline. */
  rules: readonly TrafficControlRule[] = [];
  /** TrafficControls left out, with why (kept until they change). */
  readonly refused = new Map<string, string>();

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows' | 'vswitch' | 'interfaces'>,
  ) {}

  async start(): Promise<void> {
    // Nothing to prime: the TrafficControl flows follow once the watches are in.
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    const clock = o.clock ?? systemClock;
    this.reconciler = new Reconciler(() => this.apply(), {
      clock,
      onError: (err, retryInMs) => log.error({ err, retryInMs }, 'TrafficControl not applied'),
    });
    const changed = (_: InformerEvent): void => this.reconciler?.schedule();
    this.informers = [
      new Informer(this.kube, TRAFFIC_CONTROLS, changed, { clock, logger: log }),
      new Informer(this.kube, NAMESPACES, changed, { clock, logger: log }),
      new Informer(this.kube, PODS, changed, { clock, logger: log, fieldSelector: `spec.nodeName=${o.nodeName}` }),
    ];
    for (const i of this.informers) i.start();
  }

  /** Resolves once every change seen so far is applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler?.idle() ?? Promise.resolve();
  }

  private async apply(): Promise<void> {
    const [tcInf, nsInf, podInf] = this.informers;
    const tcs = [...tcInf!.cache.values()] as unknown as TrafficControl[];
    const before = new Map(this.refused);
    this.refused.clear();
    for (const tc of tcs) {
      const why = unsupported(tc);
      if (!why) continue;
      this.refused.set(tc.metadata.name ?? '', why);
      if (before.get(tc.metadata.name ?? '') !== why) this.ctx.log.warn({ trafficControl: tc.metadata.name, reason: why }, 'TrafficControl not realized on this node');
    }
    const wanted = tcs.filter((tc) => !unsupported(tc)).flatMap((tc) => [localPort(tc.spec.targetPort)!, ...(tc.spec.action === 'Redirect' ? [localPort(tc.spec.returnPort)!] : [])]);
    for (const port of wanted) await this.realize(port);
    const namespaceLabels = new Map([...nsInf!.cache.values()].map((n) => [n.metadata.name ?? '', n.metadata.labels ?? {}]));
    const rules = trafficControlRules(tcs, this.localPods(podInf!.cache.values()), namespaceLabels, (p) => this.ports.get(portKey(p)));
    if (JSON.stringify(rules) === JSON.stringify(this.rules)) return;
    await this.node.flows.set('extensions', { ...this.node.flows.get('extensions'), trafficControl: rules });
    this.rules = rules;
    this.ctx.log.info({ trafficControls: rules.map((r) => `${r.name}: ${r.action} ${r.direction} of ${r.podOfports.length} pods to ofport ${r.targetOfport}`) }, 'TrafficControl realized');
  }

  /** This node's pods with their labels and, once attached, their bridge ports. */
  private localPods(objects: Iterable<KubeObject>): LocalPodFacts[] {
    const ofports = new Map(this.node.interfaces.list().map((i) => [`${i.podNamespace}/${i.podName}`, i.ofport]));
    return [...objects].map((p) => {
      const namespace = p.metadata.namespace ?? '';
      const name = p.metadata.name ?? '';
      const ofport = ofports.get(`${namespace}/${name}`);
      return { namespace, name, labels: p.metadata.labels ?? {}, ...(ofport !== undefined ? { ofport } : {}) };
    });
  }

  /** Puts a target or return port on the bridge (an internal port is created, a device attached) and learns its ofport. */
  private async realize(port: LocalPortRef): Promise<void> {
    const key = portKey(port);
    if (this.ports.has(key)) return;
    const { bridge } = this.ctx.options;
    await this.node.vswitch.ensurePort(bridge, port.name, { ...(port.kind === 'ovsInternal' ? { type: 'internal' as const } : {}), externalIds: PORT_EXTERNAL_IDS });
    this.ports.set(key, await this.node.vswitch.waitForOfport(port.name, { timeoutMs: 10_000 }));
  }

  async stop(): Promise<void> {
    await this.reconciler?.stop();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  health(): PartHealth {
    if (!this.reconciler) return { ok: true, detail: 'not started' };
    if (this.reconciler.failing) return { ok: false, detail: `last apply failed: ${String(this.reconciler.lastError)}` };
    const refused = this.refused.size ? `; not supported here: ${[...this.refused].map(([name, why]) => `${name} (${why})`).join(', ')}` : '';
    return { ok: true, detail: `${this.rules.length} TrafficControls on ${new Set(this.rules.flatMap((r) => r.podOfports)).size} pods${refused}` };
  }
}

const portKey = (p: LocalPortRef): string => `${p.kind}/${p.name}`;
