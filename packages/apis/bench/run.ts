// Benchmark: controlplane WatchEvent encode+frame and stream decode with the generated static
// protobuf codec, against JSON (the reference: what an untyped REST watch stream would carry)
// and protobufjs reflection (the same .proto loaded at run time). Also validateObject throughput.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { decodeWatchEvent, encodeWatchEventFrame, FrameDecoder, validateObject, watchEventToProto } from '../src/index';
import type { controlplane as cp } from '../src/index';
import * as arb from '../test/support/arbitraries';

interface Row {
  name: string;
  events: number;
  eventsPerSec: number;
  mbPerSec: number;
  bytesPerEvent: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const N = 20000;
const events: cp.WatchEvent[] = fc.sample(arb.watchEvent, { numRuns: N, seed: 42 });
const rows: Row[] = [];

function time(name: string, bytes: number, fn: () => void): Row {
  fn(); // warm-up
  const t0 = process.hrtime.bigint();
  const rounds = 3;
  for (let r = 0; r < rounds; r++) fn();
  const secs = Number(process.hrtime.bigint() - t0) / 1e9 / rounds;
  const row = { name, events: N, eventsPerSec: Math.round(N / secs), mbPerSec: Math.round((bytes / secs / 1e6) * 10) / 10, bytesPerEvent: Math.round(bytes / N) };
  rows.push(row);
  return row;
}

// Static codec: encode + frame, then stream-decode.
const frames = events.map(encodeWatchEventFrame);
const pbBytes = frames.reduce((n, f) => n + f.length, 0);
const stream = Buffer.concat(frames);
time('static protobuf: encode + frame', pbBytes, () => {
  for (const e of events) encodeWatchEventFrame(e);
});
time('static protobuf: stream decode (64 KiB chunks)', pbBytes, () => {
  const dec = new FrameDecoder();
  for (let o = 0; o < stream.length; o += 65536) for (const f of dec.push(stream.subarray(o, o + 65536))) decodeWatchEvent(f);
  dec.end();
});

// Reference 1: newline-delimited JSON.
const jsonLines = events.map((e) => JSON.stringify(e) + '\n');
const jsonBytes = jsonLines.reduce((n, l) => n + Buffer.byteLength(l), 0);
const jsonText = jsonLines.join('');
time('reference JSON: stringify', jsonBytes, () => {
  for (const e of events) JSON.stringify(e);
});
time('reference JSON: parse lines', jsonBytes, () => {
  for (const line of jsonText.split('\n')) if (line) JSON.parse(line);
});

// Reference 2: protobufjs reflection over the same .proto (no conversion/validation layer).
const root = protobuf.loadSync(path.join(here, '..', 'proto', 'controlplane.proto'));
const Reflected = root.lookupType('switchyard.controlplane.v1.WatchEvent');
const messages = events.map((e) => watchEventToProto(e));
time('reference protobufjs reflection: encode', pbBytes, () => {
  for (const m of messages) Reflected.encodeDelimited(m as unknown as protobuf.Message).finish();
});
time('reference protobufjs reflection: decode (no validation)', pbBytes, () => {
  const reader = protobuf.Reader.create(stream);
  while (reader.pos < reader.len) Reflected.decodeDelimited(reader);
});

// Schema validation of a typical ACNP.
const acnp = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name: 'p' },
  spec: {
    priority: 5,
    tier: 'securityops',
    appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
    ingress: [{ action: 'Allow', from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ protocol: 'TCP', port: 80 }] }],
  },
};
validateObject(acnp);
{
  const n = 20000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) validateObject(acnp);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  rows.push({ name: 'validateObject (ACNP v1beta1)', events: n, eventsPerSec: Math.round(n / secs), mbPerSec: 0, bytesPerEvent: 0 });
}

const ratio = (a: string, b: string): number => {
  const x = rows.find((r) => r.name === a)?.eventsPerSec ?? 0;
  const y = rows.find((r) => r.name === b)?.eventsPerSec ?? 1;
  return Math.round((x / y) * 100) / 100;
};
const ratios = {
  encodeVsJson: ratio('static protobuf: encode + frame', 'reference JSON: stringify'),
  decodeVsJson: ratio('static protobuf: stream decode (64 KiB chunks)', 'reference JSON: parse lines'),
  encodeVsReflection: ratio('static protobuf: encode + frame', 'reference protobufjs reflection: encode'),
  decodeVsReflection: ratio('static protobuf: stream decode (64 KiB chunks)', 'reference protobufjs reflection: decode (no validation)'),
  sizeVsJson: Math.round((pbBytes / jsonBytes) * 100) / 100,
};

console.log('| benchmark | events | events/s | MB/s | bytes/event |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.events} | ${r.eventsPerSec} | ${r.mbPerSec} | ${r.bytesPerEvent} |`);
console.log('\nratios (ours / reference):', JSON.stringify(ratios));
fs.writeFileSync(
  path.join(here, 'results.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, rows, ratios }, null, 2) + '\n',
);
