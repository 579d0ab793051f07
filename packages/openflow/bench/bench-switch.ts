// The switch the benches time against: a fresh ovs-vswitchd of the testbed with one bridge, its
// management socket, its pid (for the switch's CPU time) and the library's connection to it.
import fs from 'node:fs';
import path from 'node:path';
import type { Testbed } from '@switchyard/testbed';
import { SwitchConnection } from '../src/index';

export interface BenchSwitch {
  ovs: Awaited<ReturnType<Testbed['startOvs']>>;
  /** The bridge's management socket. */
  sock: string;
  vswitchdPid: number;
  conn: SwitchConnection;
}

/** Starts ovs-vswitchd in `tb` with the bridge `br-bench` and connects the library to it. */
export async function benchSwitch(tb: Testbed): Promise<BenchSwitch> {
  const ovs = await tb.startOvs();
  await ovs.addBridge('br-bench', { failSecure: true });
  const sock = ovs.mgmtSocket('br-bench');
  const vswitchdPid = Number(fs.readFileSync(path.join(ovs.dir, 'vswitchd.pid'), 'utf8').trim());
  const conn = await SwitchConnection.connect({ target: { path: sock } });
  return { ovs, sock, vswitchdPid, conn };
}
