// Shared helpers of the integration suites: a clustered (single-node raft) ovsdb-server, dumps via ovsdb-client.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, pidfileProcess, run, signalProcess, Testbed, waitFor, type OvsInstance } from '@switchyard/testbed';
import { OvsdbClient, parseSchema, decodeRow, type DecodedRow } from '../src/index';

const SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

/** The testbed and OVS a suite runs against, and (from {@link ovsClientSuite}) a client of its database. */
export interface OvsSuite {
  tb: Testbed;
  ovs: OvsInstance;
}

/**
 * Registers the suite's hooks: before its tests a testbed with ovsdb-server (and ovs-vswitchd with
 * `vswitchd: true`), handed to `use`; after them the testbed cleaned up.
 */
export function ovsSuite(use: (s: OvsSuite) => unknown, opts: { vswitchd?: boolean } = {}): void {
  let tb: Testbed | undefined;
  beforeAll(async () => {
    tb = await Testbed.create();
    await use({ tb, ovs: await tb.startOvs({ vswitchd: opts.vswitchd ?? false }) });
  });
  afterAll(async () => {
    await tb?.cleanup();
  });
}

/**
 * {@link ovsSuite} with a client of the database (no inactivity probe: the tests decide when the
 * server goes away) and `setup` after it; after the tests, `teardown` (what the suite made on top),
 * then the client closed, then the testbed cleaned up.
 */
export function ovsClientSuite(
  use: (s: OvsSuite & { client: OvsdbClient }) => unknown,
  opts: { vswitchd?: boolean; setup?: () => Promise<unknown>; teardown?: () => Promise<unknown> } = {},
): void {
  let started: Partial<OvsSuite & { client: OvsdbClient }> = {};
  beforeAll(async () => {
    started.tb = await Testbed.create();
    started.ovs = await started.tb.startOvs({ vswitchd: opts.vswitchd ?? false });
    started = { ...started, client: await OvsdbClient.connect(`unix:${started.ovs.dbSocket}`, { probeIntervalMs: 0 }) };
    await use(started as OvsSuite & { client: OvsdbClient });
    await opts.setup?.();
  });
  afterAll(async () => {
    await opts.teardown?.();
    started.client?.close();
    await started.tb?.cleanup();
  });
}

/** A single-node clustered Open_vSwitch database: only clustered databases keep the transaction history monitor_cond_since resumes from. */
export interface ClusteredDb {
  readonly dir: string;
  readonly socket: string;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

let n = 0;
export async function startClusteredDb(tb: Testbed): Promise<ClusteredDb> {
  const dir = join(tb.baseDir, `raft${n++}`);
  mkdirSync(dir, { recursive: true });
  const f = (x: string) => join(dir, x);
  await run(['ovsdb-tool', 'create-cluster', f('conf.db'), SCHEMA, `unix:${f('raft.sock')}`]);
  const start = async () => {
    await run([
      'ovsdb-server',
      `--remote=punix:${f('db.sock')}`,
      `--pidfile=${f('ovsdb.pid')}`,
      '--detach',
      `--log-file=${f('ovsdb.log')}`,
      `--unixctl=${f('ovsdb.ctl')}`,
      f('conf.db'),
    ]);
    const pid = Number(readFileSync(f('ovsdb.pid'), 'utf8').trim());
    tb.trackPid(pid);
    await waitFor('clustered ovsdb socket', () => existsSync(f('db.sock')));
    await run(['ovs-vsctl', `--db=unix:${f('db.sock')}`, '--no-wait', '--timeout=20', 'init']);
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    // Only the ovsdb-server started with this pidfile, identified by its start time.
    const ref = pidfileProcess(f('ovsdb.pid'));
    if (!ref || !signalProcess(ref, signal)) return;
    await waitFor(`ovsdb-server ${ref.pid} to exit`, () => !isAlive(ref.pid, ref.start));
  };
  await start();
  return { dir, socket: f('db.sock'), start, stop };
}

const schema = parseSchema(JSON.parse(readFileSync(SCHEMA, 'utf8')));

/** `ovsdb-client -f json dump`, decoded with this package's codec: table -> uuid -> row (without _uuid/_version). */
export async function ovsdbClientDump(
  socket: string,
  tables: readonly string[],
): Promise<Record<string, Record<string, DecodedRow>>> {
  const out: Record<string, Record<string, DecodedRow>> = {};
  for (const table of tables) {
    const { stdout } = await run([
      'ovsdb-client',
      '-f',
      'json',
      '--data=json',
      'dump',
      `unix:${socket}`,
      'Open_vSwitch',
      table,
    ]);
    const j = JSON.parse(stdout) as
      | { data: unknown[][]; headings: string[] }
      | Array<{ data: unknown[][]; headings: string[] }>;
    const t = Array.isArray(j) ? j[0]! : j;
    const rows: Record<string, DecodedRow> = {};
    for (const data of t.data) {
      const wire: Record<string, unknown> = {};
      t.headings.forEach((h, i) => (wire[h] = data[i]));
      const row = decodeRow(schema, table, wire);
      const uuid = row._uuid as string;
      delete row._uuid;
      delete row._version;
      rows[uuid] = row;
    }
    out[table] = rows;
  }
  return out;
}

/** Resolves once `pred()` holds, re-checking after every replica commit; rejects after `timeoutMs`. */
export function until(
  replica: { on(e: 'commit', f: () => void): unknown; off(e: 'commit', f: () => void): unknown },
  pred: () => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  if (pred()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      replica.off('commit', check);
      reject(new Error('replica did not converge in time'));
    }, timeoutMs);
    function check(): void {
      if (pred()) {
        clearTimeout(timer);
        replica.off('commit', check);
        resolve();
      }
    }
    replica.on('commit', check);
  });
}

/** Replica snapshot without `_uuid` columns, in the shape of {@link ovsdbClientDump}. */
export function stripUuids(
  snap: Record<string, Record<string, Record<string, unknown>>>,
): Record<string, Record<string, DecodedRow>> {
  const out: Record<string, Record<string, DecodedRow>> = {};
  for (const [t, rows] of Object.entries(snap)) {
    out[t] = {};
    for (const [u, row] of Object.entries(rows)) {
      const { _uuid: _ignored, ...rest } = row;
      out[t][u] = rest as DecodedRow;
    }
  }
  return out;
}

/** Deterministic PRNG (mulberry32) so a failing random run can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
