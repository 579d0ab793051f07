// Two (or more) agents on real OVS "nodes" joined by an underlay (IPv4, or IPv6 for IPv6-only
// nodes), with the embedded Kubernetes API: what multinode.test.ts and dual-stack-multinode.test.ts share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiOptions, type KubeApiServer } from '@switchyard/kube-api';
import { Testbed, type Netns, type OvsInstance } from '@switchyard/testbed';
import { Agent, type AgentOptions } from '../src/index';
import { buildNetnsHelper, ensurePluginBuilt, type Node } from './helpers';

export interface UnderlayNode {
  name: string;
  podCIDR: string;
  /** The node's IPv6 pod CIDR on a dual-stack node. */
  podCIDRv6?: string;
  nodeIP: string;
  ovs: OvsInstance;
}

/** The testbed, the API server with a client, the fabric netns (Linux bridge br0), and what to clean up. */
export class TwoNodes {
  private readonly dirs: string[] = [];
  private readonly agents: Node[] = [];

  private constructor(
    readonly tb: Testbed,
    readonly api: KubeApiServer,
    readonly kube: KubeConfigClient,
    readonly fabric: Netns,
  ) {}

  static async create(apiOptions: Partial<KubeApiOptions> = {}): Promise<TwoNodes> {
    await ensurePluginBuilt();
    const tb = await Testbed.create();
    const api = await startKubeApi({ crds: loadCrds() as never, ...apiOptions });
    const kc = new KubeConfig();
    const kcDir = mkdtempSync(join(tmpdir(), 'sy-nodes-kc-'));
    kc.loadFromFile(api.writeKubeconfig(join(kcDir, 'kubeconfig')));
    const fabric = await tb.createNetns('f');
    await fabric.exec(['ip', 'link', 'add', 'br0', 'type', 'bridge']);
    await fabric.exec(['ip', 'link', 'set', 'br0', 'up']);
    const env = new TwoNodes(tb, api, new KubeConfigClient(kc), fabric);
    env.dirs.push(kcDir);
    return env;
  }

  /**
   * An OVS node on the underlay (node IP on br-phy) and its Node object, with one podCIDR per family
   * given. An IPv6 `nodeIP` is an IPv6 underlay (a /64): the node then has no IPv4 address at all.
   */
  async makeNode(name: string, podCIDR: string, nodeIP: string, podCIDRv6?: string): Promise<UnderlayNode> {
    return this.registerNode(await this.underlayOvs(nodeIP), name, podCIDR, nodeIP, podCIDRv6);
  }

  /** An OVS instance on the underlay with `nodeIP` on br-phy, no Node object yet: several nodes may take turns on it ({@link registerNode}). */
  async underlayOvs(nodeIP: string): Promise<OvsInstance> {
    const ovs = await this.tb.startOvs();
    await this.tb.attachUnderlay(ovs, this.fabric, nodeIP, nodeIP.includes(':') ? 64 : 24);
    return ovs;
  }

  /** The Node object of a node on `ovs` (from {@link underlayOvs}), with one podCIDR per family given. */
  async registerNode(ovs: OvsInstance, name: string, podCIDR: string, nodeIP: string, podCIDRv6?: string): Promise<UnderlayNode> {
    await this.kube.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name },
      spec: { podCIDR, podCIDRs: podCIDRv6 ? [podCIDR, podCIDRv6] : [podCIDR] },
      status: { addresses: [{ type: 'InternalIP', address: nodeIP }] },
    });
    return { name, podCIDR, ...(podCIDRv6 ? { podCIDRv6 } : {}), nodeIP, ovs };
  }

  /** The node's agent, its pods' links set up as the built agent does (switchyard-netns beside it). */
  async startAgent(n: UnderlayNode, overrides: Partial<AgentOptions> = {}): Promise<Node> {
    const dir = mkdtempSync(join(tmpdir(), `sy-node-${n.name}-`));
    this.dirs.push(dir);
    const options: AgentOptions = {
      nodeName: n.name,
      podCIDR: n.podCIDR,
      ...(n.podCIDRv6 ? { podCIDRv6: n.podCIDRv6 } : {}),
      nodeIP: n.nodeIP,
      ovsdbRemote: n.ovs.dbRemote,
      ovsRunDir: n.ovs.dir,
      datapathType: 'netdev',
      gatewayName: 'sy-gw0',
      tunnelName: 'sy-tun0',
      dataDir: dir,
      cniSocket: join(dir, 'cni.sock'),
      nodeNetns: n.ovs.netns.name,
      kube: this.kube,
      apiPort: 0,
      netnsHelper: await buildNetnsHelper(),
      ...overrides,
    };
    const node: Node = { ovs: n.ovs, dir, socket: options.cniSocket!, options, agent: await Agent.start(options) };
    this.agents.push(node);
    return node;
  }

  /** Stops every agent started here (again is harmless), the API server, the testbed; removes the directories. */
  async stop(): Promise<void> {
    for (const a of this.agents) await a.agent.stop().catch(() => undefined);
    await this.api.stop().catch(() => undefined);
    await this.tb.cleanup();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
