// Selector leaves for the index tests.
import type { Leaf } from '../src/leaf';
import { normalizeSelector } from '../src/selector';

/** A pod leaf: pods matching `sel` in Namespace `ns`, or in the Namespaces matching `nsSel`, or anywhere. */
export const podLeaf = (sel: object, where: { ns?: string; nsSel?: object } = {}): Leaf => ({
  kind: 'pod',
  sel: normalizeSelector(sel),
  ...(where.ns !== undefined ? { ns: where.ns } : {}),
  ...(where.nsSel ? { nsSel: normalizeSelector(where.nsSel) } : {}),
});
