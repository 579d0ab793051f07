// kube-api's JSON patch and merge patch as they were before fast-json-patch (hand-written), kept
// only as the baseline of bench/patch.ts. Not used by the server.
import { badRequest, KubeApiError } from '../../src/errors';
import { clone, isRecord } from '../../src/types';

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

