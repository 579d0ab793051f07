/**
 * The services part (AntreaProxy, with a Kubernetes API): watches Services and EndpointSlices and
 * keeps the pipeline's Service ports in line with them. The ones listed at start are primed into
 * the first round, so a restart does not drop the Service groups until the watches catch up.
 */
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { ServiceController } from './services';
import { ENDPOINT_SLICES, PRIME_LIST_MS, SERVICES, listWithin } from '../../kube-resources';
import type { NodeDatapath } from '../node/part';

export class ServiceProxy implements Part {
  readonly name = 'services';
  readonly services: ServiceController;
  private informers: Informer[] = [];

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows'>,
  ) {
    this.services = new ServiceController({ nodeName: ctx.options.nodeName, sink: { setServices: (s) => node.flows.set('services', s) }, logger: ctx.log, ...(ctx.options.clock ? { clock: ctx.options.clock } : {}) });
  }

  async start(): Promise<void> {
    try {
      const [svcs, slices] = await Promise.all([listWithin(this.kube, '/api/v1/services', PRIME_LIST_MS), listWithin(this.kube, '/apis/discovery.k8s.io/v1/endpointslices', PRIME_LIST_MS)]);
      this.node.flows.prime('services', this.services.prime(svcs, slices));
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Services not listed before the first round; they follow from the watch');
    }
  }

  async sync(): Promise<void> {
    const clock = this.ctx.options.clock ?? systemClock;
    const logger = this.ctx.log;
    this.informers = [
      new Informer(this.kube, SERVICES, this.services.onServiceEvent, { clock, logger }),
      new Informer(this.kube, ENDPOINT_SLICES, this.services.onSliceEvent, { clock, logger }),
    ];
    for (const i of this.informers) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.services.stop();
  }

  health(): PartHealth {
    const s = this.services;
    const held = `${s.specs.length} Service ports`;
    if (s.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${s.lastError instanceof Error ? s.lastError.message : String(s.lastError)}` };
    return { ok: true, detail: held };
  }
}
