// Benchmark: controlplane watch events on realistic frames (a big node's initial state, then small
// patches): this package's path (TS model -> controlplane-writer.ts -> frame; frame -> protobufjs
// static decoder -> descriptor-driven conversion), the encode path before the writer, and the two runtimes alone on identical messages: protobufjs
// static code (what the package uses) and protobuf-es 2.13 (code in bench/gen, `npm run
// generate:bench-es`). Also validateObject throughput. Best of 7 rounds per row (the lab machine is
// shared, so the fastest round is the least disturbed one).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { WatchEventSchema } from './gen/controlplane_pb';
import { decodeWatchEvent, encodeFrame, encodeWatchEventFrame, FrameDecoder, proto, validateObject, WatchEventEncoder, watchEventToProto } from '../src/index';
import type { controlplane as cp } from '../src/index';
import { decodeWithMessages } from '../src/controlplane-codec';
import { initialState, patches } from './frames';

interface Row {
  name: string;
  events: number;
  eventsPerSec: number;
  mbPerSec: number;
  bytesPerEvent: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const rows: Row[] = [];

function time(name: string, events: number, bytes: number, fn: () => void): void {
  fn(); // warm-up
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  rows.push({ name, events, eventsPerSec: Math.round(events / best), mbPerSec: Math.round((bytes / best / 1e6) * 10) / 10, bytesPerEvent: Math.round(bytes / events) });
}

/** Two rows measured in alternating rounds (best of 7 each): neither inherits the other's garbage or a slower stretch of the shared machine. */
function timeAlternating(events: number, bytes: number, ...pair: [string, () => void][]): void {
  const best = pair.map(([, fn]) => (fn(), Infinity)); // warm-up
  for (let r = 0; r < 7; r++) {
    pair.forEach(([, fn], k) => {
      const t0 = process.hrtime.bigint();
      fn();
      best[k] = Math.min(best[k] as number, Number(process.hrtime.bigint() - t0) / 1e9);
    });
  }
  pair.forEach(([name], k) => {
    const secs = best[k] as number;
    rows.push({ name, events, eventsPerSec: Math.round(events / secs), mbPerSec: Math.round((bytes / secs / 1e6) * 10) / 10, bytesPerEvent: Math.round(bytes / events) });
  });
}

function workload(label: string, events: cp.WatchEvent[]): void {
  const frames = events.map(encodeWatchEventFrame);
  const bytes = frames.reduce((n, f) => n + f.length, 0);
  const stream = Buffer.concat(frames);
  time(`${label}: this package, encode + frame`, events.length, bytes, () => {
    for (const e of events) encodeWatchEventFrame(e);
  });
  // The encode path before controlplane-writer.ts: the TS model converted to message objects, then
  // the generated encoder (the reference for docs/apis.md, "Encoding without message objects").
  time(`${label}: conversion to messages + protobufjs static encode + frame (the path before)`, events.length, bytes, () => {
    for (const e of events) encodeFrame(proto.controlplane.v1.WatchEvent.encode(watchEventToProto(e)).finish());
  });
  // What the controller does: every frame written into one buffer of its own (no allocation per event).
  const encoder = new WatchEventEncoder();
  const into = new Uint8Array(bytes);
  time(`${label}: WatchEventEncoder, frames into one buffer`, events.length, bytes, () => {
    let at = 0;
    for (const e of events) {
      encoder.prepare(e, true);
      at = encoder.writeTo(into, at);
    }
  });
  time(`${label}: this package, stream decode (64 KiB chunks)`, events.length, bytes, () => {
    const dec = new FrameDecoder();
    for (let o = 0; o < stream.length; o += 65536) for (const f of dec.push(stream.subarray(o, o + 65536))) decodeWatchEvent(f);
    dec.end();
  });
  const payloads = events.map((e) => proto.controlplane.v1.WatchEvent.encode(watchEventToProto(e)).finish());
  // Decoding alone, without framing: the path before controlplane-reader.ts (protobufjs' generated
  // decoder into message objects, then the conversion) and the reader, in the same run.
  timeAlternating(
    events.length,
    bytes,
    [`${label}: protobufjs static decode + conversion (the decode path before)`, () => payloads.forEach((b) => decodeWithMessages('WatchEvent', b))],
    [`${label}: controlplane-reader decode`, () => payloads.forEach((b) => decodeWatchEvent(b))],
  );
  // The runtimes alone, on the same messages (no conversion to or from the TS model).
  const pbjsMessages = payloads.map((b) => proto.controlplane.v1.WatchEvent.decode(b));
  const esMessages = payloads.map((b) => fromBinary(WatchEventSchema, b));
  time(`${label}: protobufjs 8.8.1 static, encode`, events.length, bytes, () => {
    for (const m of pbjsMessages) proto.controlplane.v1.WatchEvent.encode(m).finish();
  });
  time(`${label}: protobufjs 8.8.1 static, decode`, events.length, bytes, () => {
    for (const b of payloads) proto.controlplane.v1.WatchEvent.decode(b);
  });
  time(`${label}: protobuf-es 2.13.0, encode`, events.length, bytes, () => {
    for (const m of esMessages) toBinary(WatchEventSchema, m);
  });
  time(`${label}: protobuf-es 2.13.0, decode`, events.length, bytes, () => {
    for (const b of payloads) fromBinary(WatchEventSchema, b);
  });
}

workload('initial state (601 events)', initialState());
workload('patches (20k events)', patches(20_000));

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
time('validateObject (ACNP v1beta1)', 20_000, 0, () => {
  for (let i = 0; i < 20_000; i++) validateObject(acnp);
});

const rate = (name: string): number => rows.find((r) => r.name === name)?.eventsPerSec ?? 0;
const ratios = Object.fromEntries(
  ['initial state (601 events)', 'patches (20k events)'].flatMap((w) => [
    [`${w}: protobufjs/protobuf-es encode`, Math.round((rate(`${w}: protobufjs 8.8.1 static, encode`) / rate(`${w}: protobuf-es 2.13.0, encode`)) * 100) / 100],
    [`${w}: protobufjs/protobuf-es decode`, Math.round((rate(`${w}: protobufjs 8.8.1 static, decode`) / rate(`${w}: protobuf-es 2.13.0, decode`)) * 100) / 100],
    [`${w}: reader/decode path before`, Math.round((rate(`${w}: controlplane-reader decode`) / rate(`${w}: protobufjs static decode + conversion (the decode path before)`)) * 100) / 100],
  ]),
);

console.log('| benchmark | events | events/s | MB/s | bytes/event |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.events} | ${r.eventsPerSec} | ${r.mbPerSec} | ${r.bytesPerEvent} |`);
console.log('\nratios:', JSON.stringify(ratios, null, 1));
fs.writeFileSync(path.join(here, 'results.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100), rows, ratios }, null, 2) + '\n');
