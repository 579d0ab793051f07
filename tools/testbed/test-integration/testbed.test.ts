import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { run, Testbed, type OvsInstance, type Pod } from '../src/index';

async function netnsList(): Promise<string[]> {
  const out = (await run(['ip', 'netns', 'list'])).stdout;
  return out.split('\n').map((l) => l.split(' ')[0] ?? '').filter(Boolean);
}
async function linkNames(): Promise<string[]> {
  const out = (await run(['ip', '-j', 'link', 'show'])).stdout;
  return (JSON.parse(out) as Array<{ ifname: string }>).map((l) => l.ifname);
}
async function processesMentioning(text: string): Promise<string[]> {
  const out = (await run(['ps', '-eo', 'pid=,args='])).stdout;
  return out.split('\n').filter((l) => l.includes(text) && !l.includes('ps -eo'));
}
/** Opens a TCP connection from `from` to `to:port`; true if it connected within 2 s. */
async function tcpConnects(from: Pod, to: Pod, port: number): Promise<boolean> {
  const res = await from.exec(['nc', '-z', '-w', '2', to.ip, String(port)], { allowFailure: true });
  return res.code === 0;
}

describe('testbed with a real userspace OVS', () => {
  let tb: Testbed;
  let ovs: OvsInstance;
  let a: Pod;
  let b: Pod;

  beforeAll(async () => {
    tb = await Testbed.create();
    ovs = await tb.startOvs();
    await ovs.addBridge('br-int', { failSecure: true });
    a = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.1.0.2/24' });
    b = await tb.addPod(ovs, { bridge: 'br-int', ipCidr: '10.1.0.3/24' });
    for (const port of [8080, 9090]) {
      b.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo hello']);
    }
    const flows = [
      'table=0,priority=100,arp,actions=NORMAL',
      'table=0,priority=100,ip,actions=ct(table=1,zone=1)',
      'table=1,priority=200,ct_state=+trk+est,ip,actions=NORMAL',
      'table=1,priority=200,ct_state=+trk+new,tcp,tp_dst=8080,actions=ct(commit,zone=1),NORMAL',
      'table=1,priority=200,ct_state=+trk+new,tcp,tp_dst=9090,actions=drop',
      'table=1,priority=0,actions=drop',
    ];
    await run(['ovs-ofctl', '-O', 'OpenFlow15', 'add-flows', ovs.mgmtSocket('br-int'), '-'], {
      input: `${flows.join('\n')}\n`,
    });
    // The servers need a moment to bind; wait on the listening socket rather than sleeping.
    for (;;) {
      const ss = await b.exec(['ss', '-ltn']);
      if (ss.stdout.includes(':8080') && ss.stdout.includes(':9090')) break;
    }
  });

  afterAll(async () => {
    await tb?.cleanup();
  });

  it('gives each pod its own namespace, address and OVS port', async () => {
    expect(a.ofport).toBeGreaterThan(0);
    expect(b.ofport).toBeGreaterThan(0);
    expect(a.ofport).not.toBe(b.ofport);
    const addr = await a.exec(['ip', '-4', '-o', 'addr', 'show', 'eth0']);
    expect(addr.stdout).toContain('10.1.0.2/24');
  });

  it('lets TCP through a ct() allow flow and blocks the port a drop flow names', async () => {
    expect(await tcpConnects(a, b, 8080)).toBe(true);
    expect(await tcpConnects(a, b, 9090)).toBe(false);
    const ct = await ovs.appctl('dpctl/dump-conntrack');
    expect(ct).toContain('dport=8080');
    expect(ct).not.toContain('dport=9090');
  });

  it('leaves no process, namespace or interface behind after cleanup', async () => {
    const other = await Testbed.create();
    const o = await other.startOvs();
    await o.addBridge('br-x');
    const p = await other.addPod(o, { bridge: 'br-x', ipCidr: '10.2.0.2/24' });
    expect(await processesMentioning(o.dir)).toHaveLength(2);
    await other.cleanup();
    expect(await processesMentioning(o.dir)).toEqual([]);
    const ns = await netnsList();
    expect(ns.filter((n) => n.startsWith(other.prefix))).toEqual([]);
    expect((await linkNames()).filter((l) => l.startsWith(other.prefix))).toEqual([]);
    expect(ns).not.toContain(p.netns.name);
    expect(existsSync(o.dir)).toBe(false);
  });

  it("reaps a killed run's leftovers on the next start", async () => {
    // node itself (not the tsx wrapper) so that SIGKILL reaches the process that owns the run.
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/crash-child.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(buf.split('\n')[0] ?? '');
      });
      child.on('exit', (code) => reject(new Error(`crash child exited early with ${code}`)));
    });
    const made = JSON.parse(line) as { prefix: string; dir: string; netns: string[]; link: string };
    expect(await processesMentioning(made.dir)).toHaveLength(2);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // The leftovers are really there after the kill ...
    expect(await netnsList()).toEqual(expect.arrayContaining(made.netns));
    expect(await linkNames()).toContain(made.link);
    // ... and the next start removes them.
    const next = await Testbed.create();
    try {
      expect(await processesMentioning(made.dir)).toEqual([]);
      const ns = await netnsList();
      for (const n of made.netns) expect(ns).not.toContain(n);
      expect(await linkNames()).not.toContain(made.link);
      expect(existsSync(made.dir)).toBe(false);
    } finally {
      await next.cleanup();
    }
  });
});
