// The agent image's iptables-wrapper (rootfs/agent/usr/local/sbin) against the real iptables of
// both backends, each case in its own network namespace (legacy and nf_tables rules are per
// namespace), through the same links the image ships: which backend it chooses, that the choice
// is kept, and that a rule written through it lands in that backend only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError, Testbed, type Netns } from '@switchyard/testbed';

const SBIN = join(__dirname, '../rootfs/agent/usr/local/sbin');

let tb: Testbed;
let dir: string;
beforeAll(async () => {
  tb = await Testbed.create();
}, 60_000);
afterAll(async () => {
  await tb?.cleanup();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'iptables-wrapper-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the image's link `name` (iptables, ip6tables-save, ...) in `ns` with the test's state file. */
async function wrapped(ns: Netns, name: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  const r = await ns.exec([join(SBIN, name), ...args], { env: { ...process.env, IPTABLES_WRAPPER_STATE: join(dir, 'mode'), ...env } });
  return { stdout: r.stdout, stderr: r.stderr };
}
const recorded = (): string => readFileSync(join(dir, 'mode'), 'utf8').trim();

it('chooses legacy when the rules are in iptables-legacy, and a rule written through it lands there only', async () => {
  const ns = await tb.createNetns('w');
  await ns.exec(['iptables-legacy', '-A', 'INPUT', '-s', '10.1.1.1', '-j', 'DROP']);
  const save = await wrapped(ns, 'iptables-save');
  expect(save.stdout).toContain('-A INPUT -s 10.1.1.1/32 -j DROP');
  expect(save.stderr).toContain('using iptables-legacy');
  expect(recorded()).toBe('legacy');
  await wrapped(ns, 'iptables', ['-w', '-A', 'FORWARD', '-s', '10.2.2.2', '-j', 'ACCEPT']);
  expect((await ns.exec(['iptables-legacy-save'])).stdout).toContain('-A FORWARD -s 10.2.2.2/32 -j ACCEPT');
  expect((await ns.exec(['iptables-nft-save'])).stdout).not.toContain('10.2.2.2');
});

it('chooses nf_tables when the rules are there, IPv6 ones counting too', async () => {
  const ns = await tb.createNetns('w');
  await ns.exec(['ip6tables-nft', '-A', 'INPUT', '-s', 'fd00::1', '-j', 'DROP']);
  await ns.exec(['ip6tables-nft', '-A', 'INPUT', '-s', 'fd00::2', '-j', 'DROP']);
  await ns.exec(['iptables-legacy', '-A', 'INPUT', '-s', '10.1.1.1', '-j', 'DROP']);
  const save = await wrapped(ns, 'ip6tables-save');
  expect(save.stdout).toContain('-A INPUT -s fd00::1/128 -j DROP');
  expect(recorded()).toBe('nft');
  // The choice covers both families: IPv4 goes to nf_tables too, whatever legacy holds.
  await wrapped(ns, 'iptables', ['-w', '-A', 'OUTPUT', '-d', '10.3.3.3', '-j', 'ACCEPT']);
  expect((await ns.exec(['iptables-nft-save'])).stdout).toContain('-A OUTPUT -d 10.3.3.3/32 -j ACCEPT');
  expect((await ns.exec(['iptables-legacy-save'])).stdout).not.toContain('10.3.3.3');
});

it("follows the kubelet's hint chain over the rule count", async () => {
  const ns = await tb.createNetns('w');
  for (const ip of ['10.1.1.1', '10.1.1.2', '10.1.1.3']) await ns.exec(['iptables-nft', '-A', 'INPUT', '-s', ip, '-j', 'DROP']);
  await ns.exec(['iptables-legacy', '-t', 'mangle', '-N', 'KUBE-IPTABLES-HINT']);
  await wrapped(ns, 'iptables', ['-w', '-S']);
  expect(recorded()).toBe('legacy');
});

it('defaults to nf_tables with no rules anywhere, and keeps its first choice', async () => {
  const ns = await tb.createNetns('w');
  await wrapped(ns, 'iptables', ['-w', '-S']);
  expect(recorded()).toBe('nft');
  // Later legacy rules do not move a node's choice: every call uses the recorded one.
  for (const ip of ['10.1.1.1', '10.1.1.2']) await ns.exec(['iptables-legacy', '-A', 'INPUT', '-s', ip, '-j', 'DROP']);
  expect((await wrapped(ns, 'iptables-save')).stdout).not.toContain('10.1.1.1');
  expect(recorded()).toBe('nft');
});

it('takes IPTABLES_WRAPPER_MODE without detecting, and refuses a bad mode or an unknown name', async () => {
  const ns = await tb.createNetns('w');
  await ns.exec(['iptables-nft', '-A', 'INPUT', '-s', '10.1.1.1', '-j', 'DROP']);
  const save = await wrapped(ns, 'iptables-save', [], { IPTABLES_WRAPPER_MODE: 'legacy' });
  expect(save.stdout).not.toContain('10.1.1.1');
  const bad = await wrapped(ns, 'iptables', ['-S'], { IPTABLES_WRAPPER_MODE: 'xtables' }).catch((e: unknown) => e);
  expect(bad).toBeInstanceOf(CommandError);
  expect(String((bad as CommandError).message)).toContain("mode 'xtables' (from IPTABLES_WRAPPER_MODE) is neither legacy nor nft");
  const unknown = await ns.exec([join(SBIN, 'iptables-wrapper'), '-S']).catch((e: unknown) => e);
  expect(String((unknown as CommandError).message)).toContain("called as 'iptables-wrapper'");
});
