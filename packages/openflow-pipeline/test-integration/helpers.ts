/** Shared helpers: install computed flows on a real switch, trace packets. */
import { run, type OvsInstance } from '@switchyard/testbed';
import { formatFlow, formatGroup, type NodeFlows } from '../src/index';

/** Installs groups, then all flows in one bundle: the codec's text (tables by number), ovs-ofctl as the independent encoder. */
export async function install(ovs: OvsInstance, bridge: string, nf: NodeFlows): Promise<void> {
  const sock = ovs.mgmtSocket(bridge);
  await ovs.ofctl('-O', 'OpenFlow15', 'del-groups', sock);
  for (const g of nf.groups) await ovs.ofctl('-O', 'OpenFlow15', 'add-group', sock, formatGroup(g));
  const text = nf.flows.map((f) => formatFlow(f)).join('\n');
  await run(['ovs-ofctl', '-O', 'OpenFlow15', '--bundle', 'replace-flows', sock, '-'], { input: `${text}\n` });
}

/**
 * Runs ofproto/trace and returns the final datapath actions, with datapath port numbers
 * translated to OpenFlow port numbers (so `11` means OpenFlow port 11); tunnelled output keeps
 * the OpenFlow trace's `output:1` evidence by returning `tunnel:<tun_dst>`.
 */
export async function trace(ovs: OvsInstance, bridge: string, flow: string, ctNext: string[] = []): Promise<string> {
  const out = await ovs.appctl('ofproto/trace', bridge, flow, ...ctNext.flatMap((c) => ['--ct-next', c]));
  const line = (out.split('\n').filter((l) => l.startsWith('Datapath actions:')).pop() ?? '').replace('Datapath actions:', '').trim();
  // The switch has no underlay route here, so the datapath drops after the tunnel port; the
  // OpenFlow verdict is the output to the tunnel port with tun_dst loaded.
  const tun = /set_field:([\d.]+)->tun_dst/.exec(out);
  if (tun && /-> output port is 1\b/.test(out)) return `tunnel:${tun[1]}`;
  const show = await ovs.appctl('dpif/show');
  const dp2of = new Map<string, string>();
  for (const m of show.matchAll(/^\s+\S+ (\d+)\/(\d+):/gm)) dp2of.set(m[2]!, m[1]!);
  return line.replace(/(^|,)(\d+)(?=,|$)/g, (_s, pre: string, dp: string) => `${pre}${dp2of.get(dp) ?? dp}`);
}
