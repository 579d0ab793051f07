/** Shared helpers: install computed flows on a real switch, trace packets. */
import { run, type OvsInstance } from '@switchyard/testbed';
import { formatFlow, formatGroup, type NodeFlows } from '../src/index';

/** Installs groups, then all flows in one bundle (ovs-ofctl as the reference encoder; tables by number). */
export async function install(ovs: OvsInstance, bridge: string, nf: NodeFlows): Promise<void> {
  const sock = ovs.mgmtSocket(bridge);
  for (const g of nf.groups) await ovs.ofctl('-O', 'OpenFlow15', 'add-group', sock, formatGroup(g));
  const text = nf.flows.map((f) => formatFlow(f)).join('\n');
  await run(['ovs-ofctl', '-O', 'OpenFlow15', '--bundle', 'replace-flows', sock, '-'], { input: `${text}\n` });
}

/** Runs ofproto/trace and returns the datapath actions. */
export async function trace(ovs: OvsInstance, bridge: string, flow: string, ctNext: string[] = []): Promise<string> {
  const out = await ovs.appctl('ofproto/trace', bridge, flow, ...ctNext.flatMap((c) => ['--ct-next', c]));
  const line = out.split('\n').filter((l) => l.startsWith('Datapath actions:')).pop() ?? '';
  return line.replace('Datapath actions:', '').trim();
}
