/**
 * The multi-cluster lab: a ClusterSet leader (an embedded API server of its own, no nodes) and
 * two member clusters, `west` and `east`, each a {@link Lab} (its own API server, controller,
 * nodes with real agents, kubelet stand-in) on one shared fabric, with distinct pod CIDRs,
 * service CIDRs and node IPs, joined as the seed user guide does (token Secret, ClusterSets) and
 * run by the real `switchyard-mc-controller` (leader, and a member in each cluster). Every node
 * is a gateway candidate; the agents run with the Multicluster gate and enableGateway, and
 * stretched NetworkPolicy is on everywhere (mc-controllers export label identities, controllers
 * compile scope ClusterSet peers, agents tag their pods' traffic with its label identity).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/controller';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { waitFor } from '@switchyard/testbed';
import { Lab, REPO_ROOT } from './lab';
import { LabError } from './plan';
import { MULTICLUSTER_WIREGUARD, removeWireGuardDevice } from './wireguard-teardown';

const MC_CLI = join(REPO_ROOT, 'packages/multicluster/dist/cli.js');
/** Namespaces as in the seed guide: the leader's common area, and the members' own. */
export const LEADER_NAMESPACE = 'antrea-multicluster';
export const MEMBER_NAMESPACE = 'kube-system';
export const CLUSTERSET = 'test-clusterset';
export const LEADER_ID = 'test-cluster-north';

/** How one member cluster of the lab is laid out. */
export interface MemberClusterPlan {
  id: string;
  /** Lab dir name and short name (`west`, `east`). */
  name: string;
  podCIDRPrefix: string;
  /** The cluster's pod CIDRs as exported in its ClusterInfo. */
  podCIDRs: string[];
  serviceCIDR: string;
  nodeIPBase: number;
  /** Dual-stack (`ipFamily: 'dual'`): IPv6 pod CIDRs `<podCIDRv6Prefix>:<i>::/64`, within `podCIDRv6`. */
  podCIDRv6Prefix: string;
  podCIDRv6: string;
  /** Dual-stack: the IPv6 Service range (a /108, the longest kube-apiserver takes). */
  serviceCIDRv6: string;
}

/**
 * west: pods 10.11.<i>.0/24 and fd00:11:<i>::/64, Services 10.111.0.0/16 and fd00:111::/108, nodes
 * .11, .12 (fd00:77::b, ::c); east: 10.12, fd00:12, 10.112, fd00:112, .21, .22 (::15, ::16).
 */
export const MEMBER_CLUSTERS: readonly MemberClusterPlan[] = [
  { id: 'test-cluster-west', name: 'west', podCIDRPrefix: '10.11', podCIDRs: ['10.11.0.0/16'], serviceCIDR: '10.111.0.0/16', nodeIPBase: 10, podCIDRv6Prefix: 'fd00:11', podCIDRv6: 'fd00:11::/32', serviceCIDRv6: 'fd00:111::/108' },
  { id: 'test-cluster-east', name: 'east', podCIDRPrefix: '10.12', podCIDRs: ['10.12.0.0/16'], serviceCIDR: '10.112.0.0/16', nodeIPBase: 20, podCIDRv6Prefix: 'fd00:12', podCIDRv6: 'fd00:12::/32', serviceCIDRv6: 'fd00:112::/108' },
];

export interface MulticlusterLabOptions {
  labDir: string;
  /** Nodes per member cluster (default 2). */
  nodes?: number;
  /** antrea-agent.conf `multicluster.enablePodToPodConnectivity` (and pod CIDRs in ClusterInfo); default true. */
  enablePodToPodConnectivity?: boolean;
  /** antrea-agent.conf `multicluster.trafficEncryptionMode`: wireGuard between the gateways (wireguard-go on every candidate). */
  gatewayEncryption?: 'none' | 'wireGuard';
  /**
   * `dual`: both clusters dual-stack (IPv6 pod CIDRs, Service ranges and node addresses beside the
   * IPv4 ones; the tunnels stay IPv4), their ClusterInfo with the IPv6 CIDRs. `ipv6`: both clusters
   * IPv6-only (the single-cluster lab's `ipv6` per cluster: an IPv6 underlay, IPv6 pod CIDRs and
   * Service range; Gateways with IPv6 addresses alone; the Service ranges discovered, not
   * configured). Either works with `gatewayEncryption: wireGuard` (dual-stack: one IPv4 endpoint
   * per peer carrying both families; IPv6-only: `[<gatewayIPv6>]:<port>`). Default `ipv4`.
   */
  ipFamily?: 'ipv4' | 'dual' | 'ipv6';
  progress?: (line: string) => void;
}

/** A member cluster of a running multi-cluster lab. */
export interface MemberCluster {
  plan: MemberClusterPlan;
  lab: Lab;
  kube: KubeConfigClient;
}

/** The seed guide's member role in the leader's namespace. */
const MEMBER_ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'antrea-mc-member-cluster-role', namespace: LEADER_NAMESPACE },
  rules: [
    { apiGroups: ['multicluster.crd.antrea.io'], resources: ['memberclusterannounces', 'resourceexports'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['multicluster.crd.antrea.io'], resources: ['resourceimports', 'resourceexports/status'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ],
};

function clientOf(kubeconfig: string): KubeConfigClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return new KubeConfigClient(kc);
}

/** A running multi-cluster lab (in the process that started it). */
export class MulticlusterLab {
  private readonly controllers: ChildProcess[] = [];
  private constructor(
    readonly labDir: string,
    readonly leader: { api: KubeApiServer; kube: KubeConfigClient },
    readonly members: MemberCluster[],
  ) {}

  /** The member cluster named `name` (`west`, `east`). */
  member(name: string): MemberCluster {
    const m = this.members.find((c) => c.plan.name === name);
    if (!m) throw new LabError('UNKNOWN_NODE', `no member cluster ${name}`, name);
    return m;
  }

  /** Brings the leader, both members and every mc-controller up; on failure stops what was started. */
  static async start(o: MulticlusterLabOptions): Promise<MulticlusterLab> {
    if (!existsSync(MC_CLI)) throw new LabError('NOT_BUILT', `not built: ${MC_CLI} (npx nx run-many -t build -p multicluster)`, MC_CLI);
    mkdirSync(o.labDir, { recursive: true });
    const say = o.progress ?? ((): void => undefined);
    const podToPod = o.enablePodToPodConnectivity ?? true;
    const dual = o.ipFamily === 'dual';
    const v6 = o.ipFamily === 'ipv6';
    const leaderApi = await startKubeApi({ crds: loadCrds() as never, serviceCIDR: '10.100.0.0/16' });
    const leaderKubeconfig = leaderApi.writeKubeconfig(join(o.labDir, 'leader.kubeconfig'));
    const mcl = new MulticlusterLab(o.labDir, { api: leaderApi, kube: clientOf(leaderKubeconfig) }, []);
    try {
      say(`leader API server at ${leaderApi.url}`);
      for (const plan of MEMBER_CLUSTERS) {
        const lab = await Lab.start({
          nodes: o.nodes ?? 2,
          labDir: join(o.labDir, plan.name),
          ...(dual || v6 ? { ipFamily: dual ? ('dual' as const) : ('ipv6' as const) } : {}),
          cluster: {
            podCIDRPrefix: plan.podCIDRPrefix, nodeIPBase: plan.nodeIPBase, serviceCIDR: v6 ? plan.serviceCIDRv6 : dual ? `${plan.serviceCIDR},${plan.serviceCIDRv6}` : plan.serviceCIDR,
            ...(dual || v6 ? { podCIDRv6Prefix: plan.podCIDRv6Prefix } : {}),
            ...(mcl.members[0] ? { fabricNetns: mcl.members[0].lab.state.fabricNetns } : {}),
            gatewayNodes: Array.from({ length: o.nodes ?? 2 }, (_, i) => `node${i + 1}`),
            agentConfig: {
              featureGates: { Multicluster: true },
              multicluster: {
                enableGateway: true, namespace: MEMBER_NAMESPACE, enablePodToPodConnectivity: podToPod, enableStretchedNetworkPolicy: true,
                ...(o.gatewayEncryption === 'wireGuard' ? { trafficEncryptionMode: 'wireGuard' } : {}),
              },
            },
            // Stretched NetworkPolicy: the controller compiles scope ClusterSet peers to label identities.
            controllerConfig: { featureGates: { Multicluster: true }, multicluster: { enableStretchedNetworkPolicy: true } },
          },
        });
        lab.labDir = join(o.labDir, plan.name);
        mcl.members.push({ plan, lab, kube: lab.kube });
        say(`${plan.name}: ${lab.state.nodes.map((n) => `${n.name} ${n.nodeIP} pods ${n.podCIDR}${n.podCIDRv6 ? ` ${n.podCIDRv6}` : ''}`).join(', ')}; Services ${v6 ? plan.serviceCIDRv6 : plan.serviceCIDR}${dual ? ` ${plan.serviceCIDRv6}` : ''}`);
      }
      await mcl.join(leaderKubeconfig, podToPod, o.ipFamily ?? 'ipv4');
      say('ClusterSet joined: leader and members run switchyard-mc-controller');
      return mcl;
    } catch (e) {
      await mcl.stop().catch(() => undefined);
      throw e instanceof LabError ? e : new LabError('START_FAILED', `multi-cluster lab start failed: ${(e as Error).message}`, e);
    }
  }

  /** The guide's steps: leader namespace, role and ClusterSet, a token per member copied into it, member ClusterSets; then the controllers. */
  private async join(leaderKubeconfig: string, podToPod: boolean, family: 'ipv4' | 'dual' | 'ipv6'): Promise<void> {
    const dual = family === 'dual';
    const lk = this.leader.kube;
    await lk.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEADER_NAMESPACE } });
    await lk.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${LEADER_NAMESPACE}/roles`, MEMBER_ROLE);
    await lk.request('POST', `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${LEADER_NAMESPACE}/clustersets`, {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha2', kind: 'ClusterSet', metadata: { name: CLUSTERSET, namespace: LEADER_NAMESPACE }, spec: { clusterID: LEADER_ID, leaders: [{ clusterID: LEADER_ID }] },
    });
    this.spawnController('leader', leaderKubeconfig, LEADER_NAMESPACE, undefined, join(this.labDir, 'mc-leader.log'));
    for (const m of this.members) {
      const sa = `member-${m.plan.id}`;
      await lk.request('POST', `/api/v1/namespaces/${LEADER_NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: LEADER_NAMESPACE } });
      await lk.request('POST', `/api/v1/namespaces/${LEADER_NAMESPACE}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${sa}-token`, namespace: LEADER_NAMESPACE, annotations: { 'kubernetes.io/service-account.name': sa } }, type: 'kubernetes.io/service-account-token' });
      await lk.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${LEADER_NAMESPACE}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: sa, namespace: LEADER_NAMESPACE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-member-cluster-role' }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: LEADER_NAMESPACE }],
      });
      let data: Record<string, string> = {};
      await waitFor(`token Secret ${sa}-token`, async () => {
        const s = await lk.request<{ data?: Record<string, string> }>('GET', `/api/v1/namespaces/${LEADER_NAMESPACE}/secrets/${sa}-token`);
        data = s.data ?? {};
        return data['token'] !== undefined;
      }, { timeoutMs: 20_000, intervalMs: 100 });
      await m.kube.request('POST', `/api/v1/namespaces/${MEMBER_NAMESPACE}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${sa}-token`, namespace: MEMBER_NAMESPACE }, type: 'Opaque', data: { token: data['token'], 'ca.crt': data['ca.crt'] } });
      await m.kube.request('POST', `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${MEMBER_NAMESPACE}/clustersets`, {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha2', kind: 'ClusterSet', metadata: { name: CLUSTERSET, namespace: MEMBER_NAMESPACE },
        spec: { clusterID: m.plan.id, leaders: [{ clusterID: LEADER_ID, secret: `${sa}-token`, server: this.leader.api.url }], namespace: LEADER_NAMESPACE },
      });
      // MultiClusterConfig: what this cluster's ClusterInfo tells the other gateways to route here.
      const config = join(this.labDir, `mc-${m.plan.name}.yaml`);
      // IPv6-only: no Service range configured (discovered from the member's API server).
      const podCIDRs = family === 'ipv6' ? [m.plan.podCIDRv6] : dual ? [...m.plan.podCIDRs, m.plan.podCIDRv6] : m.plan.podCIDRs;
      const ranges = family === 'ipv6' ? {} : { serviceCIDR: m.plan.serviceCIDR, ...(dual ? { serviceCIDRv6: m.plan.serviceCIDRv6 } : {}) };
      writeFileSync(config, YAML.stringify({ ...ranges, ...(podToPod ? { podCIDRs } : {}), enableStretchedNetworkPolicy: true }));
      this.spawnController('member', m.lab.state.kubeconfig, MEMBER_NAMESPACE, config, join(this.labDir, `mc-${m.plan.name}.log`));
    }
  }

  private spawnController(mode: 'leader' | 'member', kubeconfig: string, namespace: string, config: string | undefined, logFile: string): void {
    const log = openSync(logFile, 'a');
    const child = spawn(process.execPath, ['--enable-source-maps', MC_CLI, '--mode', mode, '--kubeconfig', kubeconfig, '--namespace', namespace, ...(config ? ['--config', config] : [])], { stdio: ['ignore', log, log] });
    // Recorded in the first member's testbed run, so a crashed test's leftovers are reaped with it.
    if (child.pid) this.members[0]?.lab.tb.trackPid(child.pid);
    this.controllers.push(child);
  }

  /** Stops the mc-controllers (by their handles), then east, then west (whose testbed holds the fabric), then the leader. */
  async stop(): Promise<void> {
    await Promise.all(
      this.controllers.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }),
    );
    for (const m of [...this.members].reverse()) {
      // Multi-cluster WireGuard devices outlive their agents (as the nodes' own do): removed by the agents' records.
      for (const n of m.lab.state.nodes) await removeWireGuardDevice(n.netns, join(dirname(n.apiSocket), 'data'), MULTICLUSTER_WIREGUARD);
      await m.lab.stop(join(this.labDir, m.plan.name));
    }
    await this.leader.api.stop().catch(() => undefined);
    rmSync(this.labDir, { recursive: true, force: true });
  }
}
