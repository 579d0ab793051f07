// Renders the benchmark tables in docs/ from the committed bench results JSON, so a table cannot
// drift from its figures. `node scripts/bench-tables.mjs` rewrites the tables between their
// markers; `--check` changes nothing and exits 1 naming every doc whose table differs.
//
// A table lives between `<!-- bench-table:<name>:start -->` and `<!-- bench-table:<name>:end -->`
// in its doc. Each results file has its own shape, so each has its own renderer below.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A markdown table; `align` holds 'l' or 'r' per column. */
function table(headers, align, rows) {
  const line = (cells) => `|${cells.map((c) => (c === '' ? ' ' : ` ${c} `)).join('|')}|`;
  const sep = `|${align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`;
  return [line(headers), sep, ...rows.map(line)].join('\n');
}

const fixed = (n, digits) => n.toFixed(digits);

/** ipam: one row per case; the last column is the case's rate over host-local's exec rate. */
function ipamTable(j) {
  const hostLocal = j.summary.hostLocalExecPerSec;
  return table(
    ['benchmark', 'ops', 'ops/s', 'p50 µs', 'p99 µs', '× host-local exec'],
    ['l', 'r', 'r', 'r', 'r', 'r'],
    j.rows.map((r) => [r.name, r.ops, r.opsPerSec, r.p50us, r.p99us, fixed(r.opsPerSec / hostLocal, 1)]),
  );
}

/** Each table: its name (the marker), the results file, the doc that shows it, the renderer. */
const tables = [
  {
    name: 'ipam',
    results: 'packages/ipam/bench/results.json',
    doc: 'docs/ipam.md',
    render: ipamTable,
  },
  {
    name: 'ipam-rootfs',
    results: 'packages/ipam/bench/results-rootfs.json',
    doc: 'docs/ipam.md',
    render: ipamTable,
  },
  {
    name: 'agent',
    results: 'packages/agent/bench/results.json',
    doc: 'docs/agent.md',
    render: (j) =>
      table(
        ['case', 'n', 'p50 ms', 'p99 ms', 'wall ms'],
        ['l', 'l', 'l', 'l', 'l'],
        j.rows.map((r) => [r.name, r.n, r.p50ms, r.p99ms, r.wallMs]),
      ),
  },
  {
    name: 'ovsdb',
    results: 'packages/ovsdb/bench/results.json',
    doc: 'docs/ovsdb.md',
    render: (j) =>
      table(
        ['scenario', 'ports', 'seconds', 'ports/s'],
        ['l', 'r', 'r', 'r'],
        j.rows.map((r) => [
          r.scenario.replace('(-- separated)', '(`--` separated)'),
          r.ports,
          fixed(r.seconds, 3),
          r.portsPerSec,
        ]),
      ),
  },
  {
    // ovsdb-limits: the server's own limit (pre-serialized JSON-RPC on a raw socket) per case, this
    // client and ovs-vsctl on the same workload; medians; the ratio is client throughput / raw.
    name: 'ovsdb-limits',
    results: 'packages/ovsdb/bench/results.json',
    doc: 'docs/ovsdb.md',
    render: (j) => {
      const cell = (x) => `${fixed(x.wallSec, 3)} s (${fixed(x.clientCpuSec, 3)} / ${fixed(x.serverCpuSec, 2)})`;
      const L = j.limits;
      const n = j.ports.toLocaleString('en-US');
      const ratio = (x) => `**${fixed(x, 2)}** ${x >= 0.9 ? '✓' : '✗'}`;
      return table(
        ['case', 'raw socket (server limit)', 'this client', 'ovs-vsctl', 'this client / raw (target ≥ 0.9)'],
        ['l', 'r', 'r', 'r', 'r'],
        [
          [`${n} ports, one transaction each, each awaited`, cell(L.perPortSequential.raw), cell(L.perPortSequential.library), `${cell(L.perPortSequential.cli)}, one process per port, run once`, ratio(L.perPortSequential.libraryOfRaw)],
          [`${n} ports, one transaction each, pipelined`, cell(L.perPortPipelined.raw), cell(L.perPortPipelined.library), '', ratio(L.perPortPipelined.libraryOfRaw)],
          [`${n} ports, one transaction`, cell(L.batched.raw), cell(L.batched.library), `${cell(L.batched.cli)}, one chained call`, ratio(L.batched.libraryOfRaw)],
          [`monitor: ${j.updates.toLocaleString('en-US')} pipelined updates until the watcher has the last (raw watcher / Replica)`, cell(L.monitor.raw), cell(L.monitor.library), '', ratio(L.monitor.libraryOfRaw)],
        ],
      );
    },
  },
  {
    // openflow: one object per step, library against ovs-ofctl, with the package's targets.
    name: 'openflow',
    results: 'packages/openflow/bench/results.json',
    doc: 'docs/openflow.md',
    render: (j) => {
      const s = (sec) => `${fixed(sec, 3)} s`;
      const ratio = (x) => `**${fixed(x, 2)}**`;
      const target = (met, text) => `${text} ${met ? '✓' : '✗'}`;
      const k = (perSec) => `${Math.round(perSec / 1000)}k flows/s`;
      const { install, modify10pct: mod, deleteAll: del, singleAddMs: add, parse } = j;
      return table(
        ['step', 'this library', 'ovs-ofctl', 'ratio (ofctl / library; ≥ 1 = library faster)', 'target'],
        ['l', 'r', 'r', 'r', 'l'],
        [
          [
            `install ${j.flows.toLocaleString('en-US')} flows (one bundle)`,
            s(install.librarySec),
            s(install.ovsOfctlSec),
            ratio(install.ratio),
            target(install.ratio >= 1, '≥ 1.0'),
          ],
          [
            'modify 10% (re-add with new actions, one bundle)',
            s(mod.librarySec),
            s(mod.ovsOfctlSec),
            ratio(mod.ratio),
            '',
          ],
          ['modify 10% as modify_strict (library)', s(mod.libraryModifyStrictSec), '', '', ''],
          ['delete all', s(del.librarySec), s(del.ovsOfctlSec), ratio(del.ratio), ''],
          [
            'single flow add, barrier acknowledged, p50 / p99',
            `**${fixed(add.p50, 3)} ms** / ${fixed(add.p99, 2)} ms`,
            `${fixed(add.ovsOfctlP50, 1)} / ${fixed(add.ovsOfctlP99, 1)} ms (one process per flow)`,
            '',
            target(add.p50 < 1, 'p50 < 1 ms'),
          ],
          [
            'dump-flows text parse (warm, best of 3)',
            `**${k(parse.flowsPerSec)}** (${Math.round(parse.flowsPerCpuSec / 1000)}k per CPU-second)`,
            '',
            '',
            target(parse.flowsPerSec >= 200_000, '≥ 200k/s'),
          ],
          ['dump-flows text parse (first call, cold JIT)', k(parse.coldFlowsPerSec), '', '', ''],
          [
            'memory growth during the 100k install (peak after a full GC: heap+external / RSS)',
            `${fixed(j.libraryHeapGrowthMiB, 1)} / ${fixed(j.libraryRssGrowthMiB, 1)} MiB`,
            '',
            '',
            '',
          ],
        ],
      );
    },
  },
  {
    // openflow-limits: the switch's own limit (pre-encoded bytes on a raw socket), the library and
    // ovs-ofctl on the same bundles against the same ovs-vswitchd; medians; ratio = library / raw.
    name: 'openflow-limits',
    results: 'packages/openflow/bench/results.json',
    doc: 'docs/openflow.md',
    render: (j) => {
      const cell = (x) => `${fixed(x.wallSec, 3)} s (${fixed(x.clientCpuSec, 3)} / ${fixed(x.switchCpuSec, 2)})`;
      const ratio = (x) => `**${fixed(x, 2)}** ${x >= 0.9 ? '✓' : '✗'}`;
      const L = j.limits;
      const sa = L.singleAddMs;
      return table(
        ['step', 'raw socket (switch limit)', 'this library', 'ovs-ofctl', 'library / raw (target ≥ 0.9)', 'ovs-ofctl / raw'],
        ['l', 'r', 'r', 'r', 'r', 'r'],
        [
          [`install ${j.flows.toLocaleString('en-US')} flows (one bundle)`, cell(L.install.raw), cell(L.install.library), cell(L.install.ovsOfctl), ratio(L.install.libraryOfRaw), fixed(L.install.ovsOfctlOfRaw, 2)],
          ['modify 10% (re-add, one bundle)', cell(L.modify10pct.raw), cell(L.modify10pct.library), cell(L.modify10pct.ovsOfctl), ratio(L.modify10pct.libraryOfRaw), fixed(L.modify10pct.ovsOfctlOfRaw, 2)],
          ['delete all', cell(L.deleteAll.raw), cell(L.deleteAll.library), cell(L.deleteAll.ovsOfctl), ratio(L.deleteAll.libraryOfRaw), fixed(L.deleteAll.ovsOfctlOfRaw, 2)],
          ['single flow add + barrier, p50 / p99', `${fixed(sa.rawP50, 3)} / ${fixed(sa.rawP99, 2)} ms`, `${fixed(sa.libraryP50, 3)} / ${fixed(sa.libraryP99, 2)} ms`, '', ratio(sa.libraryOfRaw), ''],
        ],
      );
    },
  },
  {
    name: 'openflow-pipeline',
    results: 'packages/openflow-pipeline/bench/results.json',
    doc: 'docs/pipeline.md',
    render: (j) =>
      table(
        ['rules', 'flows', 'wall ms', 'cpu ms', 'entries per rule', 'formula (100 + 1 + 1 + 1, +2 metric)'],
        ['l', 'l', 'l', 'l', 'l', 'l'],
        j.rows.map((r) => [r.rules, r.flows, r.wallMs, r.cpuMs, r.perRuleEntries, r.formula]),
      ),
  },
  {
    // policy-compiler: the scale scenarios as rows, then the two incremental event kinds.
    name: 'policy-compiler',
    results: 'packages/policy-compiler/bench/results.json',
    doc: 'docs/policy-compiler.md',
    render: (j) => {
      const sec = (ms) => `${fixed(ms / 1000, 2)} s`;
      const lat = (x) => `p50 ${fixed(x.p50, 3)} ms, p99 ${fixed(x.p99, 3)} ms`;
      const { relabel, add, heapGrowthMBPer10kPods } = j.incremental;
      return table(
        ['scenario', 'path', 'wall', 'CPU', 'heap', 'target', 'Antrea reference'],
        ['l', 'l', 'l', 'l', 'l', 'l', 'l'],
        [
          ...j.rows.map((r) => [
            r.scenario,
            r.mode,
            sec(r.ms),
            sec(r.cpuMs),
            `${r.heapMB} MB`,
            r.target,
            r.antrea,
          ]),
          [
            'incremental pod label change (scenario 1, 5,000 events)',
            'event',
            lat(relabel),
            '',
            '',
            'p99 <= 1 ms',
            '',
          ],
          [
            'incremental pod add (scenario 1, 5,000 events)',
            'event',
            lat(add),
            '',
            `+${fixed(heapGrowthMBPer10kPods, 1)} MB / 10k pods`,
            'p99 <= 1 ms',
            '',
          ],
        ],
      );
    },
  },
  {
    // tools/lab Egress bench: one row per measure (value with its unit, then the runs or the tables).
    name: 'lab-egress',
    results: 'tools/lab/bench/egress-results.json',
    doc: 'docs/egress.md',
    render: (j) =>
      table(
        ['measure', 'value', 'runs, or flows per table'],
        ['l', 'r', 'l'],
        j.rows.map((r) => [r.metric, `${r.value.toLocaleString('en-US')} ${r.unit}`, r.note ?? '']),
      ),
  },
  {
    // tools/lab encryption bench: medians per mode with their runs, then the ratio row.
    name: 'lab-encryption',
    results: 'tools/lab/bench/encryption-results.json',
    doc: 'docs/encryption.md',
    render: (j) => {
      const mode = (metric) => /encryption (\S+) \(([^)]+)\)/.exec(metric);
      return table(
        ['encryption', 'pod node1 -> pod node2, median', 'runs (Mbit/s)'],
        ['l', 'l', 'l'],
        j.rows.map((r) => {
          const m = mode(r.metric);
          if (m === null) return [r.metric.replace(' (medians)', ''), String(r.value), r.runs.join(', ')];
          const label = m[1] === 'none' ? `none (${m[2]} in OVS userspace)` : `${m[1]} (${m[2]})`;
          return [label, `${r.value} ${r.unit}`, r.runs.join(', ')];
        }),
      );
    },
  },
  {
    // multicluster: rows of (case, n, value with its unit); durations of 10 s and more in seconds.
    name: 'multicluster',
    results: 'packages/multicluster/bench/results.json',
    doc: 'docs/multicluster.md',
    render: (j) => {
      const value = (v) => {
        const m = /^(\d+(?:\.\d+)?) ms$/.exec(v);
        return m && Number(m[1]) >= 10_000 ? `${fixed(Number(m[1]) / 1000, 1)} s` : v;
      };
      return table(
        ['case', 'n', 'value'],
        ['l', 'r', 'r'],
        j.rows.map((r) => [r.case, r.n, value(r.value)]),
      );
    },
  },
];

const marker = (name, end) => `<!-- bench-table:${name}:${end} -->`;

/** The doc's text with the table between the markers replaced; undefined if the markers are missing. */
function withTable(text, name, rendered) {
  const start = text.indexOf(marker(name, 'start'));
  const end = text.indexOf(marker(name, 'end'));
  if (start < 0 || end < start) return undefined;
  const head = text.slice(0, start + marker(name, 'start').length);
  return `${head}\n${rendered}\n${text.slice(end)}`;
}

function main() {
  const check = process.argv.includes('--check');
  const docs = new Map();
  const problems = [];
  for (const t of tables) {
    const docPath = join(root, t.doc);
    if (!docs.has(docPath)) docs.set(docPath, readFileSync(docPath, 'utf8'));
    const rendered = t.render(JSON.parse(readFileSync(join(root, t.results), 'utf8')));
    const next = withTable(docs.get(docPath), t.name, rendered);
    if (next === undefined) {
      problems.push(`${t.doc}: markers ${marker(t.name, 'start')} / ${marker(t.name, 'end')} missing`);
      continue;
    }
    if (next !== docs.get(docPath)) {
      if (check)
        problems.push(`${t.doc}: table ${t.name} differs from ${t.results} (run npm run bench:tables)`);
      docs.set(docPath, next);
    }
  }
  if (!check) {
    for (const [docPath, text] of docs) {
      if (readFileSync(docPath, 'utf8') !== text) {
        writeFileSync(docPath, text);
        console.log(`updated ${docPath.slice(root.length + 1)}`);
      }
    }
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
}

main();
