/**
 * The datapath of an ExternalNode agent: the bridge, the uplink swap of each guarded interface
 * and the pair-port pipeline (openflow-pipeline's ExternalNode feature list) on it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OvsdbClient, VSwitch } from '@switchyard/ovsdb';
import { SwitchConnection } from '@switchyard/openflow';
import type { ExternalNodeSpec, LocalPod, PolicyBypass } from '@switchyard/openflow-pipeline';
import { silentLogger, sleep, type Logger } from '@switchyard/runtime';
import { resumeRound } from '../../bridge';
import { AgentError } from '../../errors';
import { DatapathPurger, FlowSync, type NodeSlices } from '../../flow-sync';
import { externalNodePipelineFeatures } from '../pipeline';
import { HostLinks } from './host-links';
import { UplinkSwap, type SwapStep, type SwappedInterface } from './uplink-swap';

/** OpenFlow controller id the policy pipeline's packet-ins name (as the node part's). */
const CONTROLLER_ID = 62373;

export interface ExternalNodeDatapathOptions {
  ovsdbRemote: string;
  ovsRunDir: string;
  bridge: string;
  datapathType: 'system' | 'netdev';
  /** The journal of the uplink swap lives in `<dataDir>/external-node`. */
  dataDir: string;
  /** Lab only: the namespace of the host's interfaces when it is not the agent's own. */
  netns?: string;
  bypass?: readonly PolicyBypass[];
  /** Transmit checksum offload off on the uplink and the internal port (needed on netdev). */
  txOffloadOff?: boolean;
  onStep?: (name: string, step: SwapStep) => void | Promise<void>;
  /** How long putting an interface back waits for ovs-vswitchd to let go of it (default 10 s). */
  releaseTimeoutMs?: number;
  logger?: Logger;
}

/**
 * The guarded interfaces of an ExternalNode as the policy rules see local endpoints: an address of
 * the VM is "local" at its pair (internal) port, so rules applied to the ExternalEntity match
 * packets to the VM (ingress, output to the pair port) and from it (egress, in from the pair port).
 */
export function externalNodeEndpoints(spec: ExternalNodeSpec | undefined): LocalPod[] {
  return (spec?.interfaces ?? []).map((i) => ({ name: `pair-${i.pairOfport}`, namespace: 'external-node', ofport: i.pairOfport, ips: [...i.ips], mac: '' }));
}

/** The node state slices of an ExternalNode: its spec (the pipeline then uses the ExternalNode feature list), and its endpoints as the pods. */
export function externalNodeSlices(spec: ExternalNodeSpec): NodeSlices {
  return { externalNode: spec, pods: externalNodeEndpoints(spec) };
}

/** What the ExternalNode asks to guard: the interface name on this host. */
export interface GuardedInterface {
  name: string;
}

export class ExternalNodeDatapath {
  /** Interfaces swapped onto OVS, by name. */
  readonly interfaces = new Map<string, SwappedInterface>();
  private constructor(
    readonly ovsdb: OvsdbClient,
    readonly vswitch: VSwitch,
    readonly openflow: SwitchConnection,
    readonly flows: FlowSync,
    readonly swap: UplinkSwap,
    readonly round: number,
    /** The switch held this round's flows at open: the first sync adopts them. */
    private readonly adopt: boolean,
    private readonly links: HostLinks,
    private readonly o: ExternalNodeDatapathOptions,
    private readonly log: Logger,
    private readonly purger: DatapathPurger,
  ) {}

  /** Connects to OVS, makes sure the bridge exists and opens (or resumes) this run's cookie round. Nothing on the host changes yet. */
  static async open(o: ExternalNodeDatapathOptions): Promise<ExternalNodeDatapath> {
    const log = o.logger ?? silentLogger;
    const ovsdb = await OvsdbClient.connect(o.ovsdbRemote, { logger: log });
    try {
      const vswitch = new VSwitch(ovsdb, { logger: log });
      await vswitch.ensureBridge(o.bridge, { datapathType: o.datapathType, failMode: 'secure', protocols: ['OpenFlow10', 'OpenFlow13', 'OpenFlow15'] });
      const mgmt = join(o.ovsRunDir, `${o.bridge}.mgmt`);
      for (let i = 0; i < 100 && !existsSync(mgmt); i++) await sleep(100);
      const openflow = await SwitchConnection.connect({ target: { path: mgmt }, logger: log, controllerId: CONTROLLER_ID, onReconnect: async () => flows.replay() });
      // An agent restart on a running switch resumes its round and adopts the flows there.
      const { round, adopt } = await resumeRound(ovsdb, o.bridge, openflow);
      const purger = new DatapathPurger(o.ovsRunDir);
      const flows = new FlowSync(
        openflow,
        {
          round,
          trafficMode: 'encap',
          // No gateway on an ExternalNode: the pod pipeline that would use it is not in the feature list.
          // The IPv6 placeholders turn IPv6 policing on (the ExternalNode and policy flows of both
          // families): IPv6 of the VM goes through the policy tables as IPv4 does.
          gateway: { ofport: 0, ip: '0.0.0.0', ipv6: '::', mac: '00:00:00:00:00:00' },
          podCIDR: '0.0.0.0/32',
          podCIDRv6: '::/128',
          nodeIP: '0.0.0.0',
          netdevDatapath: o.datapathType === 'netdev',
          enableAntreaPolicy: true,
        },
        { logger: log, features: externalNodePipelineFeatures(o.datapathType), ...(o.datapathType === 'netdev' ? { flushDatapath: () => purger.purge() } : {}) },
      );
      const links = new HostLinks(o.netns);
      const swap = new UplinkSwap({ links, vswitch, bridge: o.bridge, journalDir: join(o.dataDir, 'external-node'), logger: log, ...(o.onStep ? { onStep: o.onStep } : {}), ...(o.releaseTimeoutMs !== undefined ? { releaseTimeoutMs: o.releaseTimeoutMs } : {}) });
      return new ExternalNodeDatapath(ovsdb, vswitch, openflow, flows, swap, round, adopt, links, o, log, purger);
    } catch (e) {
      ovsdb.close();
      throw e;
    }
  }

  /**
   * Brings the host to `desired`: interfaces recorded by a run (finished or not) that are no longer
   * wanted are put back, the wanted ones are swapped (or their half-done swap finished). Returns the
   * ExternalNode spec of the pipeline; `sync` false primes it for the first round.
   */
  async apply(desired: readonly GuardedInterface[], sync = true): Promise<ExternalNodeSpec> {
    const want = new Set(desired.map((d) => d.name));
    for (const name of this.swap.recorded().keys()) {
      if (want.has(name)) continue;
      await this.swap.uninstall(name);
      this.interfaces.delete(name);
    }
    for (const d of desired) {
      const s = await this.swap.install(d.name);
      if (this.o.txOffloadOff) {
        await this.links.txOffloadOff(s.uplinkName);
        await this.links.txOffloadOff(s.name);
      }
      this.interfaces.set(d.name, s);
    }
    const spec: ExternalNodeSpec = {
      // IPv4 and global IPv6 addresses (what the swap moves): rules applied to the VM match both families.
      interfaces: [...this.interfaces.values()].map((i) => ({ uplinkOfport: i.uplinkOfport, pairOfport: i.pairOfport, ips: i.addresses.map((a) => a.ip) })),
      ...(this.o.bypass?.length ? { bypass: [...this.o.bypass] } : {}),
    };
    if (sync) await this.flows.set(externalNodeSlices(spec));
    else this.flows.prime(externalNodeSlices(spec));
    return spec;
  }

  /**
   * Installs the first round (the spec primed by `apply(..., false)`): adopts the previous run's
   * flows when the round was resumed (only the difference is sent), else replaces them.
   */
  async initialSync(): Promise<void> {
    const r = await this.flows.initialSync(externalNodeEndpoints(this.flows.get('externalNode')), { adopt: this.adopt });
    this.log.info({ round: this.round, ...r }, 'ExternalNode round installed');
  }

  /**
   * Puts every recorded interface back as it was and removes the pair flows (the pipeline keeps the
   * ExternalNode feature list with no interfaces: the bridge has no ports left to forward between).
   */
  async uninstall(): Promise<void> {
    for (const name of this.swap.recorded().keys()) {
      await this.swap.uninstall(name);
      this.interfaces.delete(name);
    }
    await this.flows.set(externalNodeSlices({ interfaces: [] })).catch((e: unknown) => {
      throw new AgentError('EXTERNAL_NODE_SWAP_FAILED', `interfaces restored, but the ExternalNode flows were not removed: ${e instanceof Error ? e.message : String(e)}`, this.o.bridge, 'bridge');
    });
  }

  async close(): Promise<void> {
    await this.openflow.close();
    this.ovsdb.close();
    this.purger.close();
  }
}
