// `npm run demo` until the lab lands: two pods on a real userspace OVS bridge, a policy written as
// OpenFlow conntrack flows, and the reachability it gives, probed with real TCP connections.
import { Testbed, run, type Pod } from './src/index';

/** True when a TCP connection from `from` to ip:port opens within a second. */
async function probe(from: Pod, ip: string, port: number): Promise<boolean> {
  const r = await from.exec(['nc', '-z', '-w', '1', ip, String(port)], { allowFailure: true });
  return r.code === 0;
}

async function main(): Promise<void> {
  const tb = await Testbed.create();
  const stop = async () => {
    await tb.cleanup();
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    console.log('starting an isolated ovsdb-server + ovs-vswitchd (userspace datapath) ...');
    const ovs = await tb.startOvs();
    await ovs.addBridge('br-int', { failSecure: true });
    const client = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.10.0.2/24' });
    const server = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.10.0.3/24' });
    for (const port of [80, 81]) server.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo hello']);
    console.log(`pods: client ${client.ip} (ofport ${client.ofport}), server ${server.ip} (ofport ${server.ofport})`);
    const flows = [
      'table=0,priority=100,arp,actions=NORMAL',
      'table=0,priority=100,ip,actions=ct(table=1,zone=1)',
      'table=1,priority=200,ct_state=+trk+est,ip,actions=NORMAL',
      'table=1,priority=200,ct_state=+trk+new,tcp,nw_dst=10.10.0.3,tp_dst=80,actions=ct(commit,zone=1),NORMAL',
      'table=1,priority=0,actions=drop',
    ];
    await run(['ovs-ofctl', '-O', 'OpenFlow15', 'add-flows', ovs.mgmtSocket('br-int'), '-'], {
      input: `${flows.join('\n')}\n`,
    });
    for (;;) {
      const ss = await server.exec(['ss', '-ltn']);
      if (ss.stdout.includes(':80 ') && ss.stdout.includes(':81 ')) break;
    }
    console.log('\npolicy: allow TCP to server:80, drop everything else that is new');
    for (const port of [80, 81]) {
      const ok = await probe(client, server.ip, port);
      console.log(`  client -> server:${port}/TCP  ${ok ? 'allowed' : 'blocked'}`);
    }
    console.log('\nflows on br-int:');
    console.log(await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket('br-int')));
    console.log('conntrack:');
    console.log(await ovs.appctl('dpctl/dump-conntrack'));
  } finally {
    await stop();
    console.log('cleaned up: no OVS process, namespace or interface left');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
