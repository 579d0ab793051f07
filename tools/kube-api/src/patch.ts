// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and an approximation of
// Kubernetes strategic merge patch for the built-in kinds.

import { badRequest, KubeApiError } from './errors';
import { clone, isRecord } from './types';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return clone(patch);
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function decodePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw badRequest(`invalid JSON pointer "${p}"`);
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** The container holding the last segment; undefined when an intermediate is missing. */
function parent(doc: unknown, segs: string[]): { container: unknown; key: string } {
  const cur = getAt(doc, segs.slice(0, -1));
  return { container: cur, key: segs[segs.length - 1] as string };
}

function getAt(doc: unknown, segs: string[]): unknown {
  let cur = doc;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isRecord(cur)) cur = cur[s];
    else return undefined;
  }
  return cur;
}

/** Apply an RFC 6902 patch; failures are 422 like kube-apiserver's "the server rejected our request". */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  let out = clone(doc);
  const fail = (o: JsonPatchOp, why: string): never => {
    throw new KubeApiError('Invalid', `the server rejected our request due to an error in our request: ${o.op} operation on ${o.path}: ${why}`);
  };
  for (const raw of ops as JsonPatchOp[]) {
    const segs = decodePointer(raw.path);
    const set = (value: unknown, insert: boolean): void => {
      if (segs.length === 0) {
        out = value;
        return;
      }
      const p = parent(out, segs);
      if (Array.isArray(p.container)) {
        const idx = p.key === '-' ? p.container.length : Number(p.key);
        if (!Number.isInteger(idx) || idx < 0 || idx > p.container.length) fail(raw, 'index out of range');
        if (insert) p.container.splice(idx, 0, value);
        else p.container[idx] = value;
      } else if (isRecord(p.container)) p.container[p.key] = value;
      else fail(raw, 'missing path');
    };
    const remove = (): unknown => {
      const p = parent(out, segs);
      if (Array.isArray(p.container)) {
        const idx = Number(p.key);
        if (!(idx >= 0 && idx < p.container.length)) fail(raw, 'index out of range');
        return p.container.splice(idx, 1)[0];
      }
      if (isRecord(p.container) && p.key in p.container) {
        const v = p.container[p.key];
        delete p.container[p.key];
        return v;
      }
      return fail(raw, 'missing path');
    };
    switch (raw.op) {
      case 'add':
        set(clone(raw.value), true);
        break;
      case 'replace':
        if (getAt(out, segs) === undefined) fail(raw, 'missing path');
        set(clone(raw.value), false);
        break;
      case 'remove':
        remove();
        break;
      case 'move': {
        const fromSegs = decodePointer(raw.from ?? '');
        const v = getAt(out, fromSegs);
        if (v === undefined) fail(raw, 'missing from path');
        const saved = segs.splice(0, segs.length, ...fromSegs);
        remove();
        segs.splice(0, segs.length, ...saved);
        set(v, true);
        break;
      }
      case 'copy': {
        const v = getAt(out, decodePointer(raw.from ?? ''));
        if (v === undefined) fail(raw, 'missing from path');
        set(clone(v), true);
        break;
      }
      case 'test':
        if (JSON.stringify(getAt(out, segs)) !== JSON.stringify(raw.value)) fail(raw, 'testing value failed');
        break;
      default:
        fail(raw, `unknown operation "${raw.op}"`);
    }
  }
  return out;
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
