/**
 * The pod GC part (with a Kubernetes API): watches this node's Pods, and once the first LIST is
 * in, detaches the pods the API no longer has. They were deleted while the agent was down, and
 * the runtime's DEL may never come.
 */
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import type { NodeDatapath } from '../node/part';
import type { PodAttachments } from '../pods/part';
import { PODS } from '../../kube-resources';

export class PodGC implements Part {
  readonly name = 'pod-gc';
  private informer: Informer | undefined;
  private collected: number | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'interfaces'>,
    private readonly attachments: Pick<PodAttachments, 'pods'>,
  ) {}

  async start(): Promise<void> {
    // Nothing to prime: pods of the first round come from OVSDB.
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    const live = new Set<string>();
    const informer = new Informer(this.kube, PODS, (e) => {
      const key = `${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`;
      if (e.type === 'DELETED') live.delete(key);
      else live.add(key);
    }, { clock: o.clock ?? systemClock, logger: log, fieldSelector: `spec.nodeName=${o.nodeName}` });
    this.informer = informer;
    informer.start();
    // Only at start, once the first LIST is in; later deletions reach the agent as CNI DEL.
    void informer.synced.then(async () => {
      let detached = 0;
      for (const iface of this.node.interfaces.list()) {
        if (live.has(`${iface.podNamespace}/${iface.podName}`)) continue;
        log.info({ pod: `${iface.podNamespace}/${iface.podName}`, containerId: iface.containerId }, 'pod gone from the API: detaching');
        await this.attachments.pods
          .del({ containerId: iface.containerId, netns: iface.netns, ifname: iface.ifname, podName: iface.podName, podNamespace: iface.podNamespace })
          .then(() => detached++)
          .catch((e: unknown) => log.warn({ err: e, containerId: iface.containerId }, 'detaching a gone pod failed'));
      }
      this.collected = detached;
    });
  }

  async stop(): Promise<void> {
    await this.informer?.stop();
  }

  health(): PartHealth {
    if (!this.informer) return { ok: false, detail: 'Pod watch not started' };
    return { ok: true, detail: this.collected === undefined ? 'waiting for the first Pod list' : `${this.collected} gone pods detached at start` };
  }
}
