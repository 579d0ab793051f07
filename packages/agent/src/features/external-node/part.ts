/**
 * The external-node part (agent nodeType externalNode, a VM or bare-metal host): watches this
 * host's ExternalNode, swaps each interface it names onto OVS and keeps the pair-port pipeline
 * (with the policy bypass rules) installed. Interfaces an earlier run swapped, fully or half-way,
 * are finished or put back at start. A spec that names what the host does not have leaves the host
 * as it is (reachable) and is reported through health (and so AntreaAgentInfo).
 */
import type { ExternalNode } from '@switchyard/apis';
import { Informer, KubeRequestError, type InformerEvent, type KubeClient } from '@switchyard/kube';
import type { SwitchConnection } from '@switchyard/openflow';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { AgentError } from '../../errors';
import { ExternalNodeDatapath, externalNodeSlices } from './datapath';
import { HostLinks } from './host-links';
import type { FlowSync } from '../../flow-sync';
import { resolveInterfaces, type ResolvedInterface } from './interfaces';
import { PRIME_LIST_MS } from '../../kube-resources';
import type { ExternalNodeOptions } from './options';

export const EXTERNAL_NODES = { group: 'crd.antrea.io', version: 'v1alpha1', plural: 'externalnodes', kind: 'ExternalNode', namespaced: true } as const;

export class ExternalNodeMode implements Part {
  readonly name = 'external-node';
  private dp: ExternalNodeDatapath | undefined;
  private informer: Informer | undefined;
  private chain: Promise<void> = Promise.resolve();
  private installed = false;
  /** Why the ExternalNode is not (fully) realized; undefined when it is. */
  problem: string | undefined;
  /** The interfaces guarded now. */
  guarded: ResolvedInterface[] = [];

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly en: ExternalNodeOptions,
  ) {}

  get datapath(): ExternalNodeDatapath {
    if (!this.dp) throw new AgentError('NOT_STARTED', 'the ExternalNode datapath is read before the part started', this.name, 'external-node');
    return this.dp;
  }

  get flows(): FlowSync {
    return this.datapath.flows;
  }
  get openflow(): SwitchConnection {
    return this.datapath.openflow;
  }

  private get path(): string {
    return `/apis/crd.antrea.io/v1alpha1/namespaces/${encodeURIComponent(this.en.namespace)}/externalnodes/${encodeURIComponent(this.ctx.options.nodeName)}`;
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    this.dp = await ExternalNodeDatapath.open({
      ovsdbRemote: o.ovsdbRemote,
      ovsRunDir: o.ovsRunDir,
      bridge: o.bridge,
      datapathType: o.datapathType,
      dataDir: o.dataDir,
      ...(o.nodeNetns !== undefined ? { netns: o.nodeNetns } : {}),
      bypass: this.en.policyBypassRules ?? [],
      txOffloadOff: o.disableTxChecksumOffload,
      logger: log,
    });
    let en: ExternalNode | undefined;
    try {
      en = await this.get();
    } catch (e) {
      // The API may be down: keep what the journal says is swapped, the watch brings the rest.
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'ExternalNode not read before the first round; keeping the interfaces swapped so far');
      await this.realize(undefined, [...this.datapath.swap.recorded().keys()].map((name) => ({ name, ips: [] })), false);
      return;
    }
    await this.reconcile(en, false);
  }

  async sync(): Promise<void> {
    await this.datapath.initialSync();
    this.installed = true;
    const o = this.ctx.options;
    this.informer = new Informer(this.kube, EXTERNAL_NODES, (e) => this.onEvent(e), {
      clock: o.clock ?? systemClock,
      logger: this.ctx.log,
      namespace: this.en.namespace,
      fieldSelector: `metadata.name=${o.nodeName}`,
    });
    this.informer.start();
  }

  private onEvent(e: InformerEvent): void {
    if (e.object.metadata.namespace !== this.en.namespace || e.object.metadata.name !== this.ctx.options.nodeName) return;
    const en = e.type === 'DELETED' ? undefined : (e.object as unknown as ExternalNode);
    this.chain = this.chain.then(() => this.reconcile(en, true)).catch((err: unknown) => {
      this.problem = err instanceof Error ? err.message : String(err);
      this.ctx.log.error({ err: this.problem }, 'ExternalNode change not applied');
    });
  }

  private async get(): Promise<ExternalNode | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        this.kube.request<ExternalNode>('GET', this.path),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${PRIME_LIST_MS / 1000} s`)), PRIME_LIST_MS);
          timer.unref();
        }),
      ]);
    } catch (e) {
      if (e instanceof KubeRequestError && e.status === 404) return undefined;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Brings the host to what `en` asks (nothing guarded when it is absent or cannot be matched). */
  private async reconcile(en: ExternalNode | undefined, sync: boolean): Promise<void> {
    if (!en) {
      await this.realize(`ExternalNode ${this.en.namespace}/${this.ctx.options.nodeName} not found`, [], sync);
      return;
    }
    let wanted: ResolvedInterface[];
    try {
      wanted = resolveInterfaces(en, await this.hostAddresses());
    } catch (e) {
      if (!(e instanceof AgentError)) throw e;
      // Bad input: guard nothing rather than half of it; the host keeps its network.
      this.ctx.log.error({ err: e.message, field: e.path, value: e.value }, 'ExternalNode does not match this host');
      await this.realize(e.message, [], sync);
      return;
    }
    await this.realize(undefined, wanted, sync);
  }

  private async realize(problem: string | undefined, wanted: ResolvedInterface[], sync: boolean): Promise<void> {
    try {
      await this.datapath.apply(wanted, sync);
      this.guarded = wanted;
      this.problem = problem;
      this.ctx.log.info({ interfaces: wanted.map((w) => w.name), problem }, 'ExternalNode realized');
    } catch (e) {
      // The swap rolled itself back: the interface is as it was.
      this.problem = e instanceof Error ? e.message : String(e);
      this.guarded = wanted.filter((w) => this.datapath.interfaces.has(w.name));
      this.ctx.log.error({ err: this.problem }, 'ExternalNode interfaces not swapped; left as they were');
      if (!sync) this.datapath.flows.prime(externalNodeSlices({ interfaces: [] }));
    }
  }

  /** Addresses by link, with interfaces an earlier run swapped shown under their original name and addresses. */
  private async hostAddresses(): Promise<Map<string, { ip: string; prefix: number }[]>> {
    const o = this.ctx.options;
    const host = await new HostLinks(o.nodeNetns).addressesByLink();
    for (const [name, rec] of this.datapath.swap.recorded()) host.set(name, rec.original.addresses);
    return host;
  }

  /** Waits until the ExternalNode changes seen so far are applied (tests, shutdown). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Puts every swapped interface back (agent uninstall); the part stays started. */
  async uninstall(): Promise<void> {
    await this.informer?.stop();
    await this.chain;
    await this.datapath.uninstall();
    this.guarded = [];
  }

  async stop(): Promise<void> {
    await this.informer?.stop();
    await this.chain;
    await this.dp?.close();
  }

  health(): PartHealth {
    if (!this.dp) return { ok: false, detail: 'not started' };
    if (this.problem !== undefined) return { ok: false, detail: this.problem };
    if (!this.installed) return { ok: false, detail: 'first round not installed' };
    return { ok: true, detail: `guarding ${this.guarded.map((g) => g.name).join(', ') || 'no interface'} on bridge ${this.ctx.options.bridge}` };
  }
}
