// Comparison (not run in CI) of JSON patch (RFC 6902) and JSON merge patch (RFC 7396)
// implementations: correctness on the RFCs' examples and, when JSON_PATCH_TESTS points at a
// checkout of the json-patch-tests suite (tests.json, spec_tests.json; the suite fast-json-patch
// and rfc6902 test themselves against), on that suite; speed on a typical Pod patch.
// Candidates that are not dependencies of this package are compared when installed
// (`npm i --no-save rfc6902 json-merge-patch tiny-merge-patch`), else skipped.
// `npx tsx bench/patch.ts` from tools/kube-api; writes bench/patch.results.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { jsonPatch, mergePatch } from '../src/patch';
import { prototypeNamedKeys, rfc6902Examples, rfc7396Examples, type JsonPatchVector } from '../test/support/patch-vectors';
import * as before from './baseline/patch-handwritten';

type Apply = (doc: unknown, patch: unknown) => unknown;
const clone = (v: unknown): unknown => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

/** A module that may not be installed; CommonJS modules come as their module.exports. */
async function optional<T>(name: string): Promise<T | undefined> {
  try {
    const m = (await import(name)) as { default?: unknown };
    return (typeof m.default === 'object' && m.default !== null ? m.default : m) as T;
  } catch {
    console.error(`(${name} is not installed: skipped)`);
    return undefined;
  }
}

async function jsonPatchCandidates(): Promise<Record<string, Apply>> {
  const out: Record<string, Apply> = {
    'hand-written (before)': before.jsonPatch,
    'kube-api jsonPatch (fast-json-patch, now)': jsonPatch,
  };
  out['fast-json-patch 3.1.1 applyPatch (validate)'] = (doc, ops) => jsonpatch.applyPatch(doc, ops as Operation[], true, false).newDocument;
  const rfc = await optional<{ applyPatch: (o: unknown, p: unknown) => unknown[] }>('rfc6902');
  if (rfc) {
    out['rfc6902 5.4.0 applyPatch'] = (doc, ops) => {
      // It patches in place and reports per-operation errors instead of throwing; a root
      // replacement cannot be done in place, so wrap the document.
      const box = { doc: clone(doc) };
      const pointer = (p: unknown): unknown => (typeof p === 'string' && (p === '' || p.startsWith('/')) ? `/doc${p}` : p);
      const rebased = (ops as { path?: unknown; from?: unknown }[]).map((o) => ({ ...o, path: pointer(o.path), ...(o.from !== undefined ? { from: pointer(o.from) } : {}) }));
      const errors = rfc.applyPatch(box, rebased).filter((r) => r !== null);
      if (errors.length > 0) throw errors[0] as Error;
      return box.doc;
    };
  }
  return out;
}

async function mergePatchCandidates(): Promise<Record<string, Apply>> {
  const out: Record<string, Apply> = { 'hand-written (before)': before.mergePatch, 'hand-written (kept, now)': mergePatch };
  const jmp = await optional<{ apply: Apply }>('json-merge-patch');
  // It mutates its target: give it a copy, as the server would have to.
  if (jmp) out['json-merge-patch 1.0.2 apply'] = (t, p) => jmp.apply(clone(t), p);
  const tiny = await optional<{ apply: Apply }>('tiny-merge-patch');
  if (tiny) out['tiny-merge-patch 1.0.0 apply'] = tiny.apply;
  return out;
}

interface SuiteResult {
  passed: number;
  failed: number;
  failures: string[];
}

function runVectors(apply: Apply, vectors: JsonPatchVector[]): SuiteResult {
  const r: SuiteResult = { passed: 0, failed: 0, failures: [] };
  for (const v of vectors) {
    let ok: boolean;
    try {
      const got = apply(clone(v.doc), clone(v.patch));
      ok = !v.error && (v.expected === undefined || isDeepStrictEqual(got, v.expected));
    } catch {
      ok = v.error === true;
    }
    if (ok) r.passed++;
    else {
      r.failed++;
      r.failures.push(v.comment);
    }
  }
  return r;
}

/** The json-patch-tests files, as vectors (disabled and comment-only records dropped). */
function suiteVectors(): JsonPatchVector[] | undefined {
  const dir = process.env.JSON_PATCH_TESTS;
  if (!dir || !existsSync(join(dir, 'tests.json'))) return undefined;
  const read = (f: string): JsonPatchVector[] =>
    (JSON.parse(readFileSync(join(dir, f), 'utf8')) as (JsonPatchVector & { disabled?: boolean; error?: unknown })[])
      .filter((t) => t.patch !== undefined && !t.disabled)
      .map((t, i) => ({ comment: `${f} #${i}: ${t.comment ?? ''}`, doc: t.doc, patch: t.patch, ...(t.error !== undefined ? { error: true as const } : t.expected !== undefined ? { expected: t.expected } : {}) }));
  return [...read('tests.json'), ...read('spec_tests.json')];
}

/** A Pod as the API server stores it, and the JSON patch kubectl/controllers typically send. */
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d4b9c6f5-x2x9q',
    namespace: 'team-a',
    uid: '4b1f5a2e-3c1d-4f6a-9b1e-2f7a8c9d0e1f',
    resourceVersion: '18342',
    labels: { app: 'web', 'pod-template-hash': '7d4b9c6f5', tier: 'frontend' },
    annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-20T10:00:00Z' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c6f5', uid: '9a8b7c6d-5e4f-3a2b-1c0d-9e8f7a6b5c4d', controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    nodeName: 'node-2',
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'prod' }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
      },
      { name: 'sidecar', image: 'envoy:1.31', ports: [{ containerPort: 15001, name: 'proxy' }] },
    ],
    volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }] } }],
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  },
  status: {
    phase: 'Running',
    podIP: '10.244.2.17',
    podIPs: [{ ip: '10.244.2.17' }],
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-20T10:00:05Z' },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-20T10:00:05Z' },
    ],
  },
};
const podJsonPatch = [
  { op: 'test', path: '/metadata/resourceVersion', value: '18342' },
  { op: 'replace', path: '/metadata/labels/tier', value: 'edge' },
  { op: 'add', path: '/metadata/annotations/switchyard.io~1checked', value: 'true' },
  { op: 'add', path: '/spec/containers/0/env/-', value: { name: 'FEATURE', value: 'on' } },
  { op: 'remove', path: '/spec/tolerations/0' },
];
const podMergePatch = { metadata: { labels: { tier: 'edge', 'pod-template-hash': null }, annotations: { 'switchyard.io/checked': 'true' } }, status: { phase: 'Running' } };

/**
 * µs per call for each function, rounds interleaved so load from other jobs falls on all alike;
 * the fastest round counts, as the one least disturbed.
 */
function usPerOp(fs: (() => void)[], n = 5_000, rounds = 15): number[] {
  for (const f of fs) for (let i = 0; i < n; i++) f();
  const best = fs.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    fs.forEach((f, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) f();
      best[k] = Math.min(best[k]!, Number(process.hrtime.bigint() - t0) / n / 1000);
    });
  }
  return best.map((x) => Math.round(x * 100) / 100);
}

async function main(): Promise<void> {
  const suite = suiteVectors();
  const jp = await jsonPatchCandidates();
  const mp = await mergePatchCandidates();
  const jsonRows = Object.entries(jp).map(([name, apply]) => {
    const rfc = runVectors(apply, rfc6902Examples);
    const s = suite ? runVectors(apply, suite) : undefined;
    return { name, rfc6902Examples: `${rfc.passed}/${rfc.passed + rfc.failed}`, jsonPatchTests: s ? `${s.passed}/${s.passed + s.failed}` : 'not run', failures: [...rfc.failures, ...(s?.failures ?? [])], podPatchUs: 0 };
  });
  usPerOp(Object.values(jp).map((apply) => () => apply(pod, podJsonPatch))).forEach((us, k) => (jsonRows[k]!.podPatchUs = us));
  const mergeRows = Object.entries(mp).map(([name, apply]) => {
    const failures: string[] = [];
    rfc7396Examples.forEach(([t, p, want], i) => {
      if (!isDeepStrictEqual(apply(clone(t), clone(p)), want)) failures.push(`RFC 7396 A #${i + 1}`);
    });
    const [t, p, want] = prototypeNamedKeys;
    const protoOk = isDeepStrictEqual(apply(clone(t), clone(p)), want);
    const original = clone(pod);
    apply(original, podMergePatch);
    return { name, rfc7396Examples: `${rfc7396Examples.length - failures.length}/${rfc7396Examples.length}`, prototypeNamedKeys: protoOk ? 'kept' : 'WRONG', leavesTargetUnchanged: isDeepStrictEqual(original, pod), failures, podPatchUs: 0 };
  });
  usPerOp(Object.values(mp).map((apply) => () => apply(pod, podMergePatch))).forEach((us, k) => (mergeRows[k]!.podPatchUs = us));
  console.log('JSON patch (RFC 6902)\n| implementation | RFC 6902 app. A | json-patch-tests | Pod patch µs/op (best of 15) |\n|---|---|---|---|');
  for (const r of jsonRows) console.log(`| ${r.name} | ${r.rfc6902Examples} | ${r.jsonPatchTests} | ${r.podPatchUs} |`);
  for (const r of jsonRows) if (r.failures.length) console.log(`  ${r.name} fails: ${r.failures.join('; ')}`);
  console.log('\nJSON merge patch (RFC 7396)\n| implementation | RFC 7396 app. A | keys named like Object.prototype members | target unchanged | Pod patch µs/op (best of 15) |\n|---|---|---|---|---|');
  for (const r of mergeRows) console.log(`| ${r.name} | ${r.rfc7396Examples} | ${r.prototypeNamedKeys} | ${r.leavesTargetUnchanged} | ${r.podPatchUs} |`);
  const load = loadavg().map((x) => Math.round(x * 100) / 100);
  console.log(`load average at the end: ${load.join(' ')}`);
  writeFileSync(new URL('./patch.results.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, loadavg: load, jsonPatch: jsonRows, mergePatch: mergeRows }, null, 2)}\n`);
}

void main();
