// Structural comparisons the engine uses to tell a real change from a repeated one.
import type { controlplane } from '@switchyard/apis/types';
import type { ClusterObject } from './types';

/** Structural equality of plain JSON-like data (no cycles), without building strings. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export const sameMember = (a: controlplane.GroupMember, b: controlplane.GroupMember): boolean => deepEqual(a, b);

/** Same labels (order-insensitive); absent and empty are the same. */
export function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  for (const k of ka) if ((a as Record<string, string>)[k] !== b?.[k]) return false;
  return true;
}

/** Same inputs to compilation: uid, name, namespace, generation and spec (labels, annotations and status are not read). */
export function samePolicyInput(a: ClusterObject, b: ClusterObject): boolean {
  return (
    a.metadata.uid === b.metadata.uid &&
    a.metadata.name === b.metadata.name &&
    a.metadata.namespace === b.metadata.namespace &&
    a.metadata.generation === b.metadata.generation &&
    deepEqual((a as { spec?: unknown }).spec, (b as { spec?: unknown }).spec)
  );
}
