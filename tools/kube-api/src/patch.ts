// PATCH bodies: JSON patch (RFC 6902) through fast-json-patch, JSON merge patch (RFC 7396) and
// an approximation of Kubernetes strategic merge patch for the built-in kinds. Merge patch and
// strategic merge stay hand-written: bench/patch.ts compares the merge patch libraries (none does
// better than these ten lines; see docs/kube-api.md), and no maintained JavaScript library
// implements strategic merge patch, which needs the Kubernetes types' patch strategies.

import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { badRequest, KubeApiError } from './errors';
import { clone, isRecord } from './types';

/**
 * RFC 7396: maps merge recursively, null deletes, anything else replaces. The target is not
 * modified. Keys are plain data even when named like Object.prototype members (`constructor`,
 * `__proto__` are valid ConfigMap keys).
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return typeof patch === 'object' && patch !== null ? clone(patch) : patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else {
      const merged = mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v);
      // Assigning to `__proto__` would set the prototype instead of a key.
      if (k === '__proto__') Object.defineProperty(out, k, { value: merged, enumerable: true, writable: true, configurable: true });
      else out[k] = merged;
    }
  }
  return out;
}

/** What kube-api says, after the operation and its path, for each fast-json-patch error. */
const reasons: Record<string, string> = {
  TEST_OPERATION_FAILED: 'testing value failed',
  OPERATION_PATH_UNRESOLVABLE: 'missing path',
  OPERATION_PATH_CANNOT_ADD: 'missing path',
  OPERATION_FROM_UNRESOLVABLE: 'missing from path',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'index out of range',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'index out of range',
  OPERATION_VALUE_REQUIRED: 'missing value',
  OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED: 'missing value',
  OPERATION_FROM_REQUIRED: 'missing from',
};

/** Apply an RFC 6902 patch; failures are 422 like kube-apiserver's "the server rejected our request". */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  ops.forEach((o: unknown, i) => {
    if (!isRecord(o)) throw badRequest(`json patch operation ${i} is not an object`);
    for (const field of ['path', 'from'] as const) {
      const p = o[field];
      if (p !== undefined && (typeof p !== 'string' || (p !== '' && !p.startsWith('/')))) throw badRequest(`invalid JSON pointer "${String(p)}"`);
    }
  });
  try {
    // validate: refuse what RFC 6902 refuses (replace of a missing member, add under a missing
    // parent, ...); mutateDocument false: work on a copy, the stored object stays as it is.
    return jsonpatch.applyPatch(doc, ops as Operation[], true, false).newDocument;
  } catch (e) {
    const op = (e as { operation?: { op?: unknown; path?: unknown } }).operation ?? (ops[(e as { index?: number }).index ?? 0] as { op?: unknown; path?: unknown } | undefined);
    const name = e instanceof jsonpatch.JsonPatchError ? e.name : '';
    const why = name === 'OPERATION_OP_INVALID' ? `unknown operation "${String(op?.op)}"` : (reasons[name] ?? (e as Error).message);
    throw new KubeApiError('Invalid', `the server rejected our request due to an error in our request: ${String(op?.op)} operation on ${String(op?.path)}: ${why}`);
  }
}

/**
 * Merge keys of the list fields kubectl patches on built-in kinds. Lists not named here are
 * replaced wholesale, which is what kube-apiserver does for lists without a patch strategy.
 * `ports` is keyed by containerPort inside containers and by port elsewhere (Service).
 */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  ownerReferences: 'uid',
  conditions: 'type',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  secrets: 'name',
  addresses: 'type',
  taints: 'key',
};
/** Primitive lists with patchStrategy merge (set semantics). */
const primitiveMergeLists = new Set(['finalizers']);

function keyFor(field: string, items: unknown[]): string | undefined {
  if (field === 'ports') return items.some((i) => isRecord(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  return mergeKeys[field];
}

function mergeList(field: string, base: unknown[], patch: unknown[]): unknown[] {
  if (primitiveMergeLists.has(field)) {
    const out = [...base];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  if (patch.some((p) => isRecord(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isRecord(p) && p.$patch === 'replace'));
  }
  const key = keyFor(field, [...base, ...patch]);
  if (key === undefined || !patch.every((p) => isRecord(p) && key in p)) return patch.map((p) => clone(p));
  const out = base.map((b) => clone(b));
  for (const p of patch as Record<string, unknown>[]) {
    const idx = out.findIndex((b) => isRecord(b) && b[key] === p[key]);
    if (p.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], p);
    else out.push(strategicMerge({}, p));
  }
  return out;
}

/**
 * Strategic merge patch as kubectl apply/patch sends it: maps merge recursively, lists with a
 * known merge key merge by that key, `$patch: delete|replace`, `$deleteFromPrimitiveList/<f>`,
 * `$setElementOrder/<f>` (reorders), `$retainKeys` (drops unlisted keys). Other lists replace.
 */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return clone(patch);
  if (patch.$patch === 'delete') return undefined;
  const src = isRecord(base) ? base : {};
  let out: Record<string, unknown> = patch.$patch === 'replace' ? {} : { ...src };
  const orders: [string, unknown[]][] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch') continue;
    if (k === '$retainKeys') {
      const keep = new Set([...(v as string[]), ...Object.keys(patch)]);
      out = Object.fromEntries(Object.entries(out).filter(([ok]) => keep.has(ok)));
      continue;
    }
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const f = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[f];
      if (Array.isArray(cur)) out[f] = cur.filter((x) => !(v as unknown[]).includes(x));
      continue;
    }
    if (k.startsWith('$setElementOrder/')) {
      orders.push([k.slice('$setElementOrder/'.length), v as unknown[]]);
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (Array.isArray(v)) out[k] = mergeList(k, Array.isArray(cur) ? cur : [], v);
    else if (isRecord(v)) {
      const merged = strategicMerge(cur, v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  for (const [f, order] of orders) {
    const cur = out[f];
    if (!Array.isArray(cur)) continue;
    const key = keyFor(f, cur);
    const ident = (x: unknown): unknown => (key !== undefined && isRecord(x) ? x[key] : x);
    const pos = (x: unknown): number => {
      const i = order.findIndex((o) => JSON.stringify(ident(o)) === JSON.stringify(ident(x)));
      return i < 0 ? order.length : i;
    };
    out[f] = [...cur].sort((a, b) => pos(a) - pos(b));
  }
  return out;
}
