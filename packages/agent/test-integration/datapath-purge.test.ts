// DatapathPurger on a real ovs-vswitchd (userspace datapath): revalidator/purge over one unixctl
// session empties the megaflow cache that traffic filled, again and again on the same session, and
// on a new session after ovs-vswitchd restarted (its control socket is opened again). Needs root and OVS.
import { Testbed, eventually, type OvsInstance, type Pod } from '@switchyard/testbed';
import { DatapathPurger } from '../src/flow-sync';

let tb: Testbed;
let ovs: OvsInstance;
let a: Pod;
let b: Pod;
let purger: DatapathPurger;

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge('br-int');
  await ovs.ofctl('add-flow', ovs.mgmtSocket('br-int'), 'actions=NORMAL');
  a = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.95.0.1/24' });
  b = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.95.0.2/24' });
  purger = new DatapathPurger(ovs.dir);
}, 60_000);

afterAll(async () => {
  purger?.close();
  await tb?.cleanup();
});

/**
 * IPv4 and ARP megaflows of the datapath (one line each in dpctl/dump-flows): the ping's. IPv6
 * link-local chatter of the new veths may add its own at any moment, so it is not counted.
 */
const megaflows = async (): Promise<number> =>
  (await ovs.appctl('dpctl/dump-flows')).split('\n').filter((l) => l.includes('actions:') && /eth_type\(0x0(800|806)\)/.test(l)).length;
/** Pings b from a until the datapath holds megaflows for it. */
async function fill(): Promise<void> {
  await eventually(async () => {
    await a.exec(['ping', '-c', '1', '-W', '1', b.ip], { allowFailure: true });
    return (await megaflows()) > 0;
  }, { what: 'megaflows after a ping', timeoutMs: 10_000, intervalMs: 100 });
}

test('purges the megaflows traffic made, several times over one session', async () => {
  for (let i = 0; i < 3; i++) {
    await fill();
    await purger.purge();
    expect(await megaflows()).toBe(0);
  }
});

test('after ovs-vswitchd restarts (a new control socket), the next purge opens a new session and works', async () => {
  await ovs.stopVswitchd();
  await ovs.startVswitchd();
  await ovs.ofctl('add-flow', ovs.mgmtSocket('br-int'), 'actions=NORMAL');
  await fill();
  await purger.purge();
  expect(await megaflows()).toBe(0);
});
