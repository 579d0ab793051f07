// The encoding step alone, for the 3,001 operations of a 1,000-port transaction (as VSwitch.addPorts
// builds them): encodeOperation, JSON.stringify of its wire objects, both with a 32 KB join and
// conversion to bytes (the path before wire-text), and what transact does now (textBytes: the params'
// UTF-8 bytes written directly, see wire-text.ts). Warm; ms per pass, min / p25 / median of 60
// (`npx tsx bench/encode-cpu.ts`). Not part of `npm run bench`.
import { bundledVswitchSchema, encodeOperation, namedUuid, ops, type Operation } from '../src/index';
import { encodeTransactParams } from '../src/wire-text';
const schema = bundledVswitchSchema();
const N = 1000;
const body: Operation[] = [];
for (let i = 0; i < N; i++) {
  const ext = new Map(Object.entries({ 'pod-name': `pod-${i}`, 'pod-namespace': 'bench', 'ip-address': `10.1.${i >> 8}.${i & 255}` }));
  body.push(ops.wait('Port', [['name', '==', `p${i}`]], ['name'], '==', [], 0));
  body.push(ops.insert('Interface', { name: `p${i}`, external_ids: ext }, { uuidName: `i${i}` }));
  body.push(ops.insert('Port', { name: `p${i}`, interfaces: [namedUuid(`i${i}`)], external_ids: ext }, { uuidName: `p${i}` }));
}
body.push(ops.mutate('Bridge', [['name', '==', 'br']], [['ports', 'insert', body.map((_o, i) => namedUuid(`p${i}`)).slice(0, N)]]));
const wires = body.map((o) => encodeOperation(schema, o));
function sink(): { push(p: string): void; end(): number } {
  let q: string[] = []; let chars = 0; let total = 0;
  const flush = () => { if (!q.length) return; const t = q.join(''); q = []; chars = 0; total += Buffer.from(t).length; };
  return { push(p) { q.push(p); chars += p.length; if (chars >= 32768) flush(); }, end() { flush(); return total; } };
}
const cases: Record<string, () => number> = {
  encodeOnly: () => { let n = 0; for (const o of body) n += Object.keys(encodeOperation(schema, o)).length; return n; },
  stringifyOnly: () => { let n = 0; for (const w of wires) n += JSON.stringify(w).length; return n; },
  oldFull: () => { const s = sink(); for (const o of body) s.push(JSON.stringify(encodeOperation(schema, o))); return s.end(); },
  textBytes: () => encodeTransactParams(schema, 'Open_vSwitch', body).length,
};
for (let r = 0; r < 2; r++) for (const [name, f] of Object.entries(cases)) {
  const ts: number[] = [];
  for (let i = 0; i < 60; i++) { const t = process.hrtime.bigint(); f(); ts.push(Number(process.hrtime.bigint() - t) / 1e6); }
  ts.sort((a, b) => a - b);
  console.log(name.padEnd(16), 'min', ts[0]!.toFixed(2), 'p25', ts[15]!.toFixed(2), 'median', ts[30]!.toFixed(2));
}
