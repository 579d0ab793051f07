// networkPolicyOnly: Debian's real `ptp` plugin (with host-local) is the primary CNI in a
// conflist, switchyard-cni is chained after it and gets ptp's result as prevResult, exactly as a
// runtime runs a plugin chain. The agent moves the pod's host-side device into OVS and the host
// route onto the gateway; the three flow kinds of networkpolicyonly-mode.txt are installed; pods
// talk, and a NetworkPolicy from the controller is enforced.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testbed, eventually, run, waitFor } from '@switchyard/testbed';
import { EXTERNAL_IDS } from '../src/interface-store';
import { PLUGIN, ensurePluginBuilt, sandbox, startControlPlane, startNode, stopNode, type ControlPlane, type Node, type Sandbox } from './helpers';

jest.setTimeout(180_000);

const NODE = 'npo-node';
const PRIMARY_DIR = '/usr/lib/cni';
let tb: Testbed;
let cp: ControlPlane;
let node: Node | undefined;
let ipamDir: string;

/** The conflist a runtime would read: ptp (+ host-local) then switchyard-cni. */
function conflist(): { cniVersion: string; name: string; plugins: Record<string, unknown>[] } {
  return {
    cniVersion: '1.0.0',
    name: 'npo',
    plugins: [
      { type: 'ptp', ipMasq: false, mtu: 1500, ipam: { type: 'host-local', subnet: '10.79.0.0/24', dataDir: ipamDir, routes: [{ dst: '0.0.0.0/0' }] } },
      { type: 'switchyard-cni', cniSocket: node!.socket },
    ],
  };
}

/**
 * Runs the chain like a runtime: ADD in order, each plugin's result becoming the next one's
 * prevResult; DEL in reverse order with the final result. Plugins run in the node's namespace
 * (the host side of the pod's link is there). Returns the final result.
 */
async function chain(cmd: 'ADD' | 'DEL' | 'CHECK', sb: Sandbox, prev?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const list = conflist();
  const plugins = cmd === 'ADD' ? list.plugins : [...list.plugins].reverse();
  let result = prev;
  for (const p of plugins) {
    const conf = { cniVersion: list.cniVersion, name: list.name, ...p, ...(result ? { prevResult: result } : {}) };
    const bin = p.type === 'switchyard-cni' ? PLUGIN : join(PRIMARY_DIR, p.type as string);
    const r = await run([bin], {
      netns: node!.ovs.netns.name,
      input: JSON.stringify(conf),
      allowFailure: true,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        CNI_COMMAND: cmd,
        CNI_CONTAINERID: sb.containerId,
        CNI_NETNS: sb.netns.path,
        CNI_IFNAME: 'eth0',
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${sb.name}`,
        CNI_PATH: PRIMARY_DIR,
      },
    });
    if (r.code !== 0) throw new Error(`${p.type as string} ${cmd} failed: ${r.stdout}${r.stderr}`);
    if (cmd === 'ADD') result = JSON.parse(r.stdout) as Record<string, unknown>;
  }
  return result ?? {};
}

const pods: Record<string, { sb: Sandbox; ip: string; result: Record<string, unknown> }> = {};
const nodeExec = async (argv: string[]): Promise<string> => (await node!.ovs.netns.exec(argv)).stdout;
async function tcp(from: Sandbox, ip: string, port: number): Promise<boolean> {
  const r = await from.netns.exec(['socat', '-T3', '-', `TCP:${ip}:${port},connect-timeout=3`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  return r.stdout.trim() === 'pong';
}

/**
 * An allowed connection: up to three attempts (on a loaded machine one SYN or one forked reply can
 * take longer than the probe waits); a dropped one never opens however often it tries.
 */
async function opens(from: Sandbox, ip: string, port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await tcp(from, ip, port)) return true;
  return false;
}

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  ipamDir = mkdtempSync(join(tmpdir(), 'sy-npo-ipam-'));
  cp = await startControlPlane(NODE);
  // With the Kubernetes API too: Traceflows (and the other API parts) run as on a cluster.
  node = await startNode(tb, '10.79.0.0/24', { nodeName: NODE, nodeIP: '192.168.79.1', trafficMode: 'networkPolicyOnly', controlplane: cp.agentControlplane(), kube: cp.kube });
});

afterAll(async () => {
  for (const p of Object.values(pods)) await chain('DEL', p.sb, p.result).catch(() => undefined);
  await stopNode(node);
  await cp?.stop();
  await tb?.cleanup();
  rmSync(ipamDir, { recursive: true, force: true });
});

describe('networkPolicyOnly with Debian ptp as the primary CNI', () => {
  it('the chain returns ptp\'s result unchanged; the device is in OVS and the host route is on the gateway', async () => {
    for (const name of ['npo-a', 'npo-b']) {
      const sb = await sandbox(tb, name);
      const result = await chain('ADD', sb);
      const ip = ((result.ips as { address: string }[])[0]?.address ?? '').split('/')[0] ?? '';
      pods[name] = { sb, ip, result };
      await cp.kube.request('POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: name } }, spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x' }] },
      });
      await cp.kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } }, 'application/merge-patch+json');
      tb.spawn(['socat', 'TCP-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
    }
    const a = pods['npo-a']!;
    // ptp's result: the host-side veth (no sandbox) and the pod's eth0; ours passes it through.
    const hostDev = (a.result.interfaces as { name: string; sandbox?: string }[]).find((i) => i.sandbox === undefined)!.name;
    expect(a.ip).toMatch(/^10\.79\.0\.\d+$/);
    expect((await node!.ovs.vsctl('list-ports', 'br-int')).split('\n')).toContain(hostDev);
    expect(await node!.ovs.vsctl('get', 'port', hostDev, `external_ids:${EXTERNAL_IDS.podName}`)).toContain('npo-a');
    expect((await nodeExec(['ip', '-4', 'route', 'show', `${a.ip}/32`])).trim()).toMatch(/dev sy-gw0/);
    // The gateway carries the node IP, no tunnel port, no IPAM of ours.
    expect(await nodeExec(['ip', '-4', 'addr', 'show', 'sy-gw0'])).toContain('192.168.79.1/32');
    expect((await node!.ovs.vsctl('list-ports', 'br-int')).split('\n')).not.toContain('sy-tun0');
    // CHECK through the chain passes.
    await chain('CHECK', a.sb, a.result);
  });

  it('installs the three flow kinds: ARP responder for any request, an L3 flow per pod, the rest to the gateway', async () => {
    const flows = await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', node!.ovs.mgmtSocket('br-int'));
    const gwPort = node!.agent.node.gateway.ofport;
    const arpAny = flows.split('\n').filter((l) => /arp,arp_op=1 /.test(l) && !l.includes('arp_tpa'));
    expect(arpAny.length).toBe(1);
    expect(arpAny[0]).toContain('move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]');
    for (const p of Object.values(pods)) {
      const mac = node!.agent.part('node').interfaces.list().find((i) => i.ipCidr.startsWith(`${p.ip}/`))!.mac;
      expect(flows).toMatch(new RegExp(`ip,nw_dst=${p.ip.replaceAll('.', '\\.')} actions=set_field:${mac}->eth_dst`));
    }
    // Everything else: L3Forwarding's miss marks the packet for the gateway.
    const l3 = node!.agent.part('node').flows.nodeFlows!.pipeline.id('L3Forwarding');
    expect(flows).toMatch(new RegExp(`table=${l3},.*priority=0 actions=set_field:0x20/0xf0->reg0`));
    expect(gwPort).toBeGreaterThan(0);
  });

  it('pods talk through OVS and the host reaches them through the gateway', async () => {
    const a = pods['npo-a']!;
    const b = pods['npo-b']!;
    await waitFor('a -> b', () => tcp(a.sb, b.ip, 7000), { timeoutMs: 10_000, intervalMs: 200 });
    // The other direction stays open (a second try allowed: one SYN can be slow on a loaded machine).
    expect((await tcp(b.sb, a.ip, 7000)) || (await tcp(b.sb, a.ip, 7000))).toBe(true);
    // The host's first packet waits for its ARP on the gateway (answered by OVS): allow a retry.
    await waitFor('host -> a', async () => {
      const r = await node!.ovs.netns.exec(['socat', '-T3', '-', `TCP:${a.ip}:7000,connect-timeout=3`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
      return r.stdout.trim() === 'pong';
    }, { timeoutMs: 6000, intervalMs: 200 });
  });

  it('a K8s NetworkPolicy from the controller is enforced on the chained pods', async () => {
    await cp.kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-b', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'npo-b' } }, policyTypes: ['Ingress'] },
    });
    const a = pods['npo-a']!;
    const b = pods['npo-b']!;
    await waitFor('a -> b blocked', async () => !(await tcp(a.sb, b.ip, 7000)), { timeoutMs: 15_000, intervalMs: 250 });
    expect(await opens(b.sb, a.ip, 7000)).toBe(true);
    await cp.kube.request('DELETE', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/deny-b');
    await waitFor('a -> b allowed again', () => tcp(a.sb, b.ip, 7000), { timeoutMs: 15_000, intervalMs: 250 });
  });

  it('a Traceflow between the chained pods: delivered by OVS on this node; with a default-deny policy, dropped by its ingress default rule', async () => {
    const traceflow = async (name: string): Promise<{ phase?: string; results?: { node?: string; observations?: { component?: string; action?: string; componentInfo?: string; pod?: string }[] }[] }> => {
      await cp.kube.request('POST', '/apis/crd.antrea.io/v1beta1/traceflows', {
        apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name },
        spec: { source: { namespace: 'default', pod: 'npo-a' }, destination: { namespace: 'default', pod: 'npo-b' }, packet: { transportHeader: { tcp: { dstPort: 7000 } } } },
      });
      return eventually(async () => {
        const tf = await cp.kube.request<{ status?: { phase?: string; results?: [] } }>('GET', `/apis/crd.antrea.io/v1beta1/traceflows/${name}`);
        return tf.status?.phase === 'Succeeded' || tf.status?.phase === 'Failed' ? tf.status : undefined;
      }, { what: `Traceflow ${name} finished`, timeoutMs: 15_000, intervalMs: 100 });
    };
    const open = await traceflow('npo-open');
    expect(open.phase).toBe('Succeeded');
    expect(open.results?.map((r) => [r.node, r.observations?.map((o) => `${o.component}/${o.action}${o.pod ? ` ${o.pod}` : ''}`)])).toEqual([[NODE, ['SpoofGuard/Forwarded', 'Forwarding/Delivered default/npo-b']]]);
    await cp.kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-b-tf', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'npo-b' } }, policyTypes: ['Ingress'] },
    });
    await waitFor('a -> b blocked', async () => !(await tcp(pods['npo-a']!.sb, pods['npo-b']!.ip, 7000)), { timeoutMs: 15_000, intervalMs: 250 });
    const denied = await traceflow('npo-denied');
    expect(denied.results?.[0]?.observations?.at(-1)).toEqual({ component: 'NetworkPolicy', componentInfo: 'IngressDefaultRule', action: 'Dropped' });
    await cp.kube.request('DELETE', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/deny-b-tf');
  });

  it('DEL through the chain leaves no OVS port, no gateway route, and ptp removes its device', async () => {
    const a = pods['npo-a']!;
    const hostDev = (a.result.interfaces as { name: string; sandbox?: string }[]).find((i) => i.sandbox === undefined)!.name;
    await chain('DEL', a.sb, a.result);
    delete pods['npo-a'];
    expect((await node!.ovs.vsctl('list-ports', 'br-int')).split('\n')).not.toContain(hostDev);
    expect((await nodeExec(['ip', '-4', 'route', 'show', `${a.ip}/32`])).trim()).toBe('');
    expect((await node!.ovs.netns.exec(['ip', 'link', 'show', hostDev], { allowFailure: true })).code).not.toBe(0);
    expect(node!.agent.part('node').interfaces.list().map((i) => i.podName)).toEqual(['npo-b']);
  });
});
