/** The CRD manifests shipped in crds/, embedded at build time, and lookups over them. */
import { EMBEDDED_CRDS } from './gen/crds';

import type { CustomResourceDefinition } from './crd-types';

export type { CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from './crd-types';

/**
 * Every CRD this package ships (crd.antrea.io, policy.networking.k8s.io,
 * multicluster.crd.antrea.io, multicluster.x-k8s.io), parsed. Returns fresh copies, so callers
 * may mutate them (e.g. to add labels before applying).
 */
export function loadCrds(): CustomResourceDefinition[] {
  return structuredClone(EMBEDDED_CRDS) as CustomResourceDefinition[];
}

/** Split `group/version` (or core `v1`) into its parts. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The shipped CRD for a group and kind, or undefined. */
export function findCrd(group: string, kind: string): CustomResourceDefinition | undefined {
  return (EMBEDDED_CRDS as CustomResourceDefinition[]).find((c) => c.spec.group === group && c.spec.names.kind === kind);
}

let kindList: string | undefined;
/** The shipped CRD kinds by group, as text for error messages: `crd.antrea.io: ClusterGroup, ...; ...`. */
export function crdKindList(): string {
  if (kindList !== undefined) return kindList;
  const byGroup = new Map<string, string[]>();
  for (const c of EMBEDDED_CRDS as CustomResourceDefinition[]) {
    const kinds = byGroup.get(c.spec.group) ?? [];
    kinds.push(c.spec.names.kind);
    byGroup.set(c.spec.group, kinds);
  }
  kindList = [...byGroup].map(([g, kinds]) => `${g}: ${kinds.sort().join(', ')}`).join('; ');
  return kindList;
}

/** The storage version name of a shipped CRD kind, or undefined. */
export function storageVersion(group: string, kind: string): string | undefined {
  return findCrd(group, kind)?.spec.versions.find((v) => v.storage)?.name;
}

/** Whether `apiVersion`/`kind` is a served version of a shipped CRD. */
export function isServed(apiVersion: string, kind: string): boolean {
  const { group, version } = parseApiVersion(apiVersion);
  return findCrd(group, kind)?.spec.versions.some((v) => v.name === version && v.served) ?? false;
}
