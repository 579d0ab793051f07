// Shared by the IPsec integration tests: OVSDB rows as ovs-vsctl prints them, the real
// ovs-monitor-ipsec run against a test OVSDB under a root prefix, and strongSwan's own parser.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, type OvsInstance } from '@switchyard/testbed';

export const MONITOR = '/usr/share/openvswitch/scripts/ovs-monitor-ipsec';
export const STARTER = '/usr/lib/ipsec/starter';

/** Rows of an OVSDB table as ovs-vsctl (the reference client) prints them, maps decoded. */
export async function vsctlRows(ovs: OvsInstance, table: string, columns: string[]): Promise<Record<string, unknown>[]> {
  const out = JSON.parse(await ovs.vsctl('--format=json', `--columns=${columns.join(',')}`, 'list', table)) as { headings: string[]; data: unknown[][] };
  const decode = (v: unknown): unknown => {
    if (Array.isArray(v) && v[0] === 'map') return Object.fromEntries(v[1] as [string, string][]);
    if (Array.isArray(v) && v[0] === 'set') return (v[1] as unknown[]).map(decode);
    return v;
  };
  return out.data.map((row) => Object.fromEntries(out.headings.map((h, i) => [h, decode(row[i])])));
}

/**
 * The secret lines of the ipsec.secrets ovs-monitor-ipsec wrote under `root` (none while it does not
 * exist). The monitor truncates ipsec.conf and ipsec.secrets and writes them one after the other, so
 * a test waits for each file it reads: a read between the two finds ipsec.conf complete and
 * ipsec.secrets empty.
 */
export function ipsecSecrets(root: string): string[] {
  const file = join(root, 'etc/ipsec.secrets');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** strongSwan `conn` sections of an ipsec.conf: name -> key/value lines. */
export function conns(conf: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  let cur: Record<string, string> | undefined;
  for (const line of conf.split('\n')) {
    const head = /^conn (\S+)/.exec(line);
    if (head) {
      cur = {};
      out.set(head[1]!, cur);
    } else if (/^\S/.test(line)) cur = undefined;
    else if (cur) {
      const kv = /^\s+(\w+)=(.*)$/.exec(line);
      if (kv) cur[kv[1]!] = kv[2]!;
    }
  }
  return out;
}

/**
 * Runs strongSwan's starter on a config and returns what its parser printed. The starter parses
 * ipsec.conf, then starts the IKE daemon (charon): in a private mount namespace, /run is a tmpfs
 * (its pid files) and charon is a stub bind-mounted over /usr/lib/ipsec/charon that exits at once,
 * so nothing touches the host's IPsec state. The starter is stopped by its handle once it got to
 * starting the daemon (after parsing).
 */
export async function starterParse(dir: string, conf: string): Promise<string> {
  const stub = join(dir, 'charon-stub');
  writeFileSync(stub, '#!/bin/sh\nexit 0\n');
  chmodSync(stub, 0o755);
  const script = 'mount -t tmpfs none /run && mount --bind "$1" /usr/lib/ipsec/charon && exec "$2" --nofork --debug-all --conf "$3"';
  const child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', stub, STARTER, conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor('starter parsed the config', () => /Attempting to start|fatal errors|exit|stopped/.test(text), { timeoutMs: 15_000, intervalMs: 50 });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return text;
}


/**
 * Starts the real ovs-monitor-ipsec on `ovs`'s database. --root-prefix keeps every file it writes
 * (etc/ipsec.conf, etc/ipsec.secrets) and every program it calls (usr/sbin/ipsec: a stub recording
 * its arguments in `<dir>/ipsec-calls.log`, as no charon runs) under `<dir>/root`.
 */
export function startMonitor(dir: string, ovs: OvsInstance): { child: ChildProcess; root: string } {
  const root = join(dir, 'root');
  for (const d of ['etc/strongswan.d', 'usr/sbin', 'sbin', 'run']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'usr/sbin/ipsec'), `#!/bin/sh\necho "$@" >> ${join(dir, 'ipsec-calls.log')}\nexit 0\n`);
  chmodSync(join(root, 'usr/sbin/ipsec'), 0o755);
  writeFileSync(join(root, 'sbin/ip'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(root, 'sbin/ip'), 0o755);
  const child = spawn(MONITOR, [`--root-prefix=${root}`, '--ike-daemon=strongswan', '--no-restart-ike-daemon', `--log-file=${join(dir, 'monitor.log')}`, ovs.dbRemote], {
    env: { ...process.env, OVS_RUNDIR: join(root, 'run') },
    stdio: 'ignore',
  });
  return { child, root };
}

/** Stops a child by its handle and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}
